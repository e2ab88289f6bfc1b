"""A required answer is never approved blank, on the MTurk and the Prolific simulators: a required slider
(a browser never finds one empty, so one left where the page put it is blank), a page whose answers sit in
hidden inputs its script fills at submit (posted as the page's own "<END>" by whoever never ran it), and a
page whose later questions sit behind "Next" links. The crowd has rule breakers, who post around the page's
checks, beside honest workers; every approved assignment is read back from the ledger."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.pages.mturk_forms import answer_fields
from flows.custom.custom_review import from_items
from flows.custom.scaffold import scaffold

BANK = Path(__file__).resolve().parents[1] / "config" / "items" / "vizwiz_demo_captions.csv"
CROWD = """seed = 3
caption_bank = "bank.csv"
[size]
count = 14
[market]
balance = "100000.00"
[[profile]]
name = "diligent"
share = 0.6
[[profile]]
name = "rule_breaker"
share = 0.4
"""
def items(n: int) -> str:
    return "item_id,note\n" + "".join(f"a{k:02},A photo of a red bicycle number {k} against a garden fence.\n"
                                     for k in range(n))

SLIDER = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<label>How well does the alt text describe it (1-7)?
  <input type="range" name="rating_{{ i }}" min="1" max="7" step="1" value="4" required></label>
<label>What is missing? <textarea name="missing_{{ i }}"></textarea></label>
{% endblock %}
"""
# a page whose script (jQuery's, loaded from a CDN, as MTurk's own templates do) copies the draft into the
# hidden answer at submit: nothing but a browser that runs it changes the page's "<END>", so form-reading
# workers post it everywhere, and the batch is held for a person, not approved
HIDDEN = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>{{ item.note }}</p>
<label>Is the photo clear? <input type="radio" name="clear_{{ i }}" value="yes" required> yes
  <input type="radio" name="clear_{{ i }}" value="no"> no</label>
<textarea name="draft_{{ i }}" id="draft_{{ i }}"></textarea>
<input type="hidden" name="summary_{{ i }}" id="summary_{{ i }}" value="&lt;END&gt;">
<script src="https://code.jquery.com/jquery-3.7.1.min.js"></script>
<script>
$("#hit-form").on("submit", function () { $("#summary_{{ i }}").val($("#draft_{{ i }}").val()); });
</script>
{% endblock %}
"""
# (page, {field: the values that are no answer})
PAGES = {"slider": (SLIDER, {"rating": {"", "4"}}), "hidden": (HIDDEN, {"summary": {"", "<END>"}})}


def run_page(tmp_path: Path, page: str, platform: str, workers: str = "form", n: int = 12) -> sqlite3.Connection:
    """A campaign of ``n`` one-item pages on ``page``, done by the crowd above (``workers``: [target] sim_workers)
    on ``platform``'s simulator: its ledger."""
    scaffold("req", tmp_path)
    (tmp_path / "config" / "req.html.j2").write_text(page, encoding="utf-8")
    (tmp_path / "config" / "req_items.csv").write_text(items(n), encoding="utf-8")
    (tmp_path / "config" / "crowd.toml").write_text(CROWD, encoding="utf-8")
    (tmp_path / "config" / "bank.csv").write_bytes(BANK.read_bytes())
    config = tmp_path / "config" / "req.toml"
    text = config.read_text().replace("images_per_hit = 3", "images_per_hit = 1").replace(
        "[target]\n", "")
    text += f'\n[target]\nsim_crowd = "crowd.toml"\nsim_workers = "{workers}"\n'
    config.write_text(text.replace('budget = "20.00 USD"', 'budget = "200.00 USD"'), encoding="utf-8")
    db = tmp_path / "h.db"
    code = main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs"),
                 "--platform", platform])
    assert code in (0, 10)
    return sqlite3.connect(db)


def approved_blank(con: sqlite3.Connection, blanks: dict[str, set[str]]) -> tuple[int, int, int]:
    """(approved assignments with a required field blank, approved ones, all answered ones)."""
    approved = {a for (a,) in con.execute("SELECT assignment_id FROM decisions WHERE action = 'approve'")}
    rows = con.execute("SELECT assignment_id, answer_xml FROM assignments WHERE answer_xml != ''").fetchall()
    blank = set()
    for a, xml in rows:
        fields = answer_fields(xml)
        for name, empty in blanks.items():
            posted = [v for k, v in fields.items() if k.rsplit("_", 1)[0] == name]
            if not posted or any(v in empty for v in posted):
                blank.add(a)
    return len(blank & approved), len(approved), len(rows)


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
@pytest.mark.parametrize("page", sorted(PAGES))
def test_no_required_field_is_approved_blank(tmp_path: Path, page: str, platform: str) -> None:
    text, blanks = PAGES[page]
    con = run_page(tmp_path, text, platform)
    blank_approved, approved, answered = approved_blank(con, blanks)
    per_place = con.execute("SELECT max(n) FROM (SELECT count(*) AS n FROM items GROUP BY batch, hit_index)").fetchone()
    assert answered * per_place[0] >= 20 and blank_approved == 0  # items answered: a place may hold several
    assert approved >= 5 or page == "hidden"  # honest workers' answers are approved where they can give them


# the page fills the box from the item, for the worker to correct or leave if right: not a page constant
ITEM_FILLED = """{% extends "_custom_page.html.j2" %}
{% block item %}
<p>Correct the transcription if it is wrong, or leave it if it is right.</p>
<input name="transcription_{{ i }}" value="{{ item.note }}" required>
<label>Legible? <input type="radio" name="legible_{{ i }}" value="yes" required> yes
  <input type="radio" name="legible_{{ i }}" value="no"> no</label>
{% endblock %}
"""


def test_a_required_value_the_page_fills_from_the_item_left_as_it_is_is_an_answer(tmp_path: Path) -> None:
    con = run_page(tmp_path, ITEM_FILLED, "mturk")
    left = {a for a, xml in con.execute("SELECT assignment_id, answer_xml FROM assignments")
            if answer_fields(xml).get("transcription_0", "").startswith("A photo of a red bicycle")}
    approved = {a for (a,) in con.execute("SELECT assignment_id FROM decisions WHERE action = 'approve'")}
    assert len(left & approved) >= 5  # left as the page filled it, and right: paid
    assert not con.execute("SELECT count(*) FROM qc_flags WHERE rule = 'sentinel_answer'").fetchone()[0]


@pytest.mark.parametrize(("value", "item_filled"), [
    ("<END>", False), ("Type the words here", False),  # the page's own words, the same on every page
    ("A photo of a red bicycle number 3 against a garden fence.", True),  # the item's text, as the page filled it
    ("OCR: A photo of a red bicycle number 3 against a garden fence.", True),  # ... within the page's words
    ("a0", False),  # a short value is the item's only when it is the whole of it
    ("a03", True),
])
def test_a_value_filled_from_the_item_is_no_page_constant(value: str, item_filled: bool) -> None:
    item = {"image_id": "a03", "file_name": "", "url": "", "note": "A photo of a red bicycle number 3 against a "
                                                                   "garden fence."}
    assert from_items(value, [item]) is item_filled
