"""`hitflow new --from` on pages that run on the requester's own server: PHP, ASP/JSP/
ERB and other engines' template tags never run on hitflow's page, so each block is named with its line
and nothing is written (a PHP page imported ran with 2 of 11 fields seen and "no problems found"); a
template with such a block left is a PROBLEM at the dry run; and a value the page itself writes into an
answer field (a sentinel such as "<END>") is no answer: a batch of them is held, not approved."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.pages.mturk_forms import answer_fields
from flows.custom.scaffold import scaffold

PHP = """<?php
  $ids = explode(",", $_GET["ids"]);
?>
<html><head><title>Describe the photos</title></head><body>
<form method="post" action="https://www.mturk.com/mturk/externalSubmit">
<input type="hidden" name="assignmentId" value="<?= htmlspecialchars($_GET['assignmentId']) ?>">
<?php foreach ($ids as $n => $id) { ?>
  <img src="https://example.org/img/<?php echo $id; ?>.jpg" alt="photo">
  <textarea name="caption<?php echo $n; ?>"></textarea>
<?php } ?>
<input type="submit" value="Submit">
</form></body></html>
"""
# (page, the engine named, the lines named)
OTHERS = [
    ("<p><%= item.title %></p>\n<% if show %>\n<input name='a'>\n<% end %>\n", "ASP/JSP/ERB/EJS", [1, 2, 4]),
    ("<p>Rate it</p>\n{{#each options}}\n<input type='radio' name='r' value='{{this}}'>\n{{/each}}\n",
     "Handlebars/Mustache", [2, 4]),
    ("{% extends 'base.html' %}\n{% block content %}\n<p>{{ title }}</p><input name='x'>\n{% endblock %}\n",
     "Django/Jinja/Twig", [1, 2]),
]


def refused(tmp_path: Path, text: str, capsys) -> list[str]:
    page = tmp_path / "page.html"
    page.write_text(text, encoding="utf-8")
    assert main(["new", "imp", "--from", str(page), "--dir", str(tmp_path)]) == 2
    assert not (tmp_path / "config").exists()  # nothing written
    return [line for line in capsys.readouterr().err.splitlines() if "server-side code" in line]


def test_a_php_page_is_refused_with_each_block_and_its_line(tmp_path: Path, capsys) -> None:
    lines = refused(tmp_path, PHP, capsys)
    starts = [n for n, line in enumerate(PHP.splitlines(), 1) if "<?" in line]
    blocks = sum(line.count("<?") for line in PHP.splitlines())
    assert len(lines) == blocks == 6
    assert [int(line.split(":")[1]) for line in lines] == [n for n in starts for _ in
                                                           range(PHP.splitlines()[n - 1].count("<?"))]
    assert all("PHP server-side code" in line and "${column}" in line and "--keep-jinja" in line for line in lines)


def _followed(tmp_path: Path, capsys, placeholder: str, *flags: str) -> list[str]:
    """The PHP page edited as its refusal says (the fields its code names, named plainly; the loop's part
    once; the item's value as ``placeholder``), imported with ``flags``; the dry run's lines."""
    page = tmp_path / "page.html"
    page.write_text(PHP, encoding="utf-8")
    assert main(["new", "imp", "--from", str(page), "--dir", str(tmp_path)]) == 2
    said = capsys.readouterr().err
    renamed = re.findall(r"named '([^']+)': its name is printed.*?name it plainly \(name=\"([^\"]+)\"\)", said)
    assert renamed == [("caption<?php echo $n; ?>", "caption")]  # the field the loop names
    text = PHP
    for printed, plain in renamed:
        text = text.replace(printed, plain)
    text = re.sub(r"<\?php\s+(?:\$ids|foreach|\}).*?\?>\n?", "", text, flags=re.S)  # the loop's part once
    text = text.replace("<?php echo $id; ?>", placeholder).replace("<?= htmlspecialchars($_GET['assignmentId']) ?>", "")
    assert "<?" not in text
    page.write_text(text, encoding="utf-8")
    assert main(["new", "imp", "--from", str(page), "--dir", str(tmp_path), *flags]) == 0
    capsys.readouterr()
    assert main(["run", str(tmp_path / "config" / "imp.toml"), "--dry-run"]) in (0, 1)
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(("placeholder", "flags"), [("${id}", ()), ("{{ item.id }}", ("--keep-jinja",))])
def test_following_the_php_refusals_advice_finds_every_field(tmp_path: Path, monkeypatch, capsys, placeholder: str,
                                                             flags: tuple[str, ...]) -> None:
    monkeypatch.chdir(tmp_path)
    lines = _followed(tmp_path, capsys, placeholder, *flags)
    assert any(line.startswith("custom page") and "fields found: caption (" in line for line in lines)
    assert not [line for line in lines if line.startswith("PROBLEM")]
    assert (tmp_path / "config" / "imp_items.csv").read_text().splitlines()[0] == "item_id,id"


def test_the_advices_jinja_without_keep_jinja_is_a_problem_not_silence(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    lines = _followed(tmp_path, capsys, "{{ item.id }}")
    assert any(line.startswith("PROBLEM") and "{{ item.id }}" in line for line in lines)


@pytest.mark.parametrize(("text", "engine", "at"), OTHERS, ids=[o[1] for o in OTHERS])
def test_other_engines_blocks_are_named(tmp_path: Path, capsys, text: str, engine: str, at: list[int]) -> None:
    lines = refused(tmp_path, text, capsys)
    assert [int(line.split(":")[1]) for line in lines] == at and all(engine in line for line in lines)


def test_hitflows_own_jinja_and_ground_truths_liquid_are_not_other_engines(tmp_path: Path) -> None:
    page = tmp_path / "gt.html"
    page.write_text("<p>{{ task.input.text }}</p>{% if task.input.note %}<b>{{ task.input.note }}</b>{% endif %}"
                    "<input name='ok'>", encoding="utf-8")
    assert main(["new", "gt", "--from", str(page), "--dir", str(tmp_path)]) == 0


def test_a_template_with_php_left_is_a_problem_at_the_dry_run(tmp_path: Path, monkeypatch, capsys) -> None:
    scaffold("left", tmp_path)
    template = tmp_path / "config" / "left.html.j2"
    template.write_text(template.read_text().replace("{% block item %}", "{% block item %}\n<p><?php echo $x; ?></p>"),
                        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/left.toml", "--dry-run"]) == 1
    problems = [line for line in capsys.readouterr().out.splitlines() if line.startswith("PROBLEM")]
    assert any("PHP server-side code '<?php echo $x; ?>'" in line for line in problems)


# The page writes "<END>" into its answer and only its script's button replaces it: form-reading workers
# post the page's own sentinel (17 of 17 approved captions were "<END>" on the PHP page)
SENTINEL = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<textarea class="draft" data-i="{{ i }}"></textarea>
<input type="hidden" name="caption_{{ i }}" id="caption_{{ i }}" value="&lt;END&gt;">
<button type="button" class="keep" data-i="{{ i }}">Keep my caption</button>
<script>
document.querySelectorAll(".keep").forEach(function (b) { b.addEventListener("click", function () {
  var i = b.getAttribute("data-i");
  document.getElementById("caption_" + i).value = document.querySelector(".draft").value;
}); });
</script>
{% endblock %}
"""


def _run_with_form_workers(name: str, page: str, tmp_path: Path) -> tuple[int, sqlite3.Connection]:
    """A scaffolded campaign NAME on ``page``, run by form-filling workers: (exit code, its ledger)."""
    scaffold(name, tmp_path)
    (tmp_path / "config" / f"{name}.html.j2").write_text(page, encoding="utf-8")
    config = tmp_path / "config" / f"{name}.toml"
    # hitflow new writes no [target] table (replacing one in it set nothing: Chromium workers, ~4 s of CPU a run)
    config.write_text(config.read_text() + '\n[target]\nsim_workers = "form"\n', encoding="utf-8")
    db = tmp_path / "h.db"
    code = main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs")])
    return code, sqlite3.connect(db)


def test_answers_equal_to_the_pages_own_sentinel_are_no_answers(tmp_path: Path, capsys) -> None:
    code, con = _run_with_form_workers("sentinel", SENTINEL, tmp_path)
    posted = con.execute("SELECT count(*) FROM assignments WHERE answer_xml LIKE '%&lt;END&gt;%'").fetchone()[0]
    assert posted >= 2  # what the workers posted is the page's own constant (kept in the ledger)
    assert code == 10 and "rule empty_answer would reject or block" in capsys.readouterr().err
    assert con.execute("SELECT count(*) FROM decisions WHERE action = 'approve'").fetchone()[0] == 0


# Two fields a worker answers come before the script's two sentinel fields: the response is not empty,
# yet half its answers are the page's own "<END>" (18 of 18 approved rows so)
SENTINEL_LATER = SENTINEL.replace('<textarea class="draft"', '<input name="mood_{{ i }}" required>\n'
                                  '<textarea name="comment_{{ i }}"></textarea>\n<textarea class="draft"').replace(
    '<button type="button"', '<input type="hidden" name="summary_{{ i }}" value="&lt;END&gt;">\n<button type="button"')


def test_a_sentinel_in_a_later_field_of_a_response_with_answers_is_caught(tmp_path: Path, capsys) -> None:
    code, con = _run_with_form_workers("later", SENTINEL_LATER, tmp_path)
    answered = con.execute("SELECT count(*) FROM assignments WHERE answer_xml LIKE '%<Answer><QuestionIdentifier>"
                           "mood_0</QuestionIdentifier><FreeText>_%'").fetchone()[0]
    assert answered >= 2  # the workers answered the first field: empty_answer has nothing to say
    flags = dict(con.execute("SELECT assignment_id, detail FROM qc_flags WHERE rule = 'sentinel_answer'").fetchall())
    # what each response posted as "<END>", read from the ledger's answer XML: the flag names each such field
    posted = {a: [f"{name}='<END>'" for name, value in answer_fields(xml).items() if value == "<END>"]
              for a, xml in con.execute("SELECT assignment_id, answer_xml FROM assignments")}
    assert {a for a, left in posted.items() if left} == set(flags) and len(flags) >= 2
    said = "required, left blank (still the page's own value): "
    assert all(flags[a] == said + "; ".join(posted[a]) for a in flags)
    assert all("summary_2='<END>'" in d for d in flags.values())  # the page's last field
    assert not con.execute("SELECT count(*) FROM qc_flags WHERE rule = 'empty_answer'").fetchone()[0]
    assert code == 10 and "rule sentinel_answer would reject or block" in capsys.readouterr().err
    assert con.execute("SELECT count(*) FROM decisions WHERE action = 'approve'").fetchone()[0] == 0


# An optional field the page prefills: a worker who leaves it as it loads did not answer it (import67 left the
# page's own words in approved dataset rows, read from the ledger, though QC had read them as no answer)
PREFILLED = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<input name="mood_{{ i }}" required>
<input name="remarks_{{ i }}" value="Any remarks?">
{% endblock %}
"""


def test_a_prefilled_optional_field_left_as_it_loads_is_blank_in_the_dataset(tmp_path: Path) -> None:
    import csv

    code, con = _run_with_form_workers("prefill", PREFILLED, tmp_path)
    kept = con.execute("SELECT count(*) FROM answers WHERE field = 'remarks' AND value = 'Any remarks?'").fetchone()[0]
    assert kept >= 2  # the ledger keeps what was posted: the page's own words
    with (tmp_path / "runs" / "prefill" / "dataset.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    remarks = [r for r in rows if r["field"] == "remarks"]
    moods = [r for r in rows if r["field"] == "mood"]
    assert remarks and all(r["value"] != "Any remarks?" for r in remarks)
    assert sum(r["value"] == "" for r in remarks) >= kept  # each left as it loaded: no answer
    assert any(r["decision"] == "approve" for r in remarks) and all(r["value"] for r in moods)
    assert code in (0, 10)


# A required field the page fills with the item's own text for the worker to check ("leave it if it is right"):
# a worker who leaves it as it loads has answered, unlike one who leaves a page constant ("<END>", "Any remarks?")
PER_ITEM = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>Correct the text read from the image; leave it if it is right.</p>
<input name="transcription_{{ i }}" value="{{ item.note }}" required>
{% endblock %}
"""


def test_a_per_item_prefilled_value_left_as_it_loads_is_an_answer(tmp_path: Path, capsys) -> None:
    import csv

    code, con = _run_with_form_workers("perItem", PER_ITEM, tmp_path)
    notes = {r[0]: json.loads(r[1]).get("note") for r in con.execute("SELECT item_id, payload FROM items")}
    left = con.execute("SELECT count(*) FROM answers a WHERE field = 'transcription' AND value = "
                       "json_extract((SELECT payload FROM items i WHERE i.item_id = a.item_id LIMIT 1), '$.note')"
                       ).fetchone()[0]
    assert left >= 2 and all(notes.values())  # workers left the item's own text as it loaded
    assert not con.execute("SELECT count(*) FROM qc_flags WHERE rule IN ('sentinel_answer', 'empty_answer')"
                           ).fetchone()[0]
    with (tmp_path / "runs" / "perItem" / "dataset.csv").open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["field"] == "transcription"]
    assert rows and all(r["value"] for r in rows)  # kept, not blanked as a page constant
    assert sum(r["value"] == notes[r["item_id"]] for r in rows) >= left
    assert code == 0, capsys.readouterr().err
