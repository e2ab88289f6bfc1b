"""`hitflow new --from` on pages as requesters write them: hyphenated requester-UI
placeholders, XML wrappers opening with a comment, the page's own submit checks, a QuestionForm's
lists, instructions kept out of the per-item block, and a note for everything an import step drops."""

from __future__ import annotations

import re
from pathlib import Path

from flows.cli.main import main
from flows.custom.page_check import source_problems
from flows.custom.page_import import import_page, restructure

FORM_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2017-11-06/QuestionForm.xsd"
HTML_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2011-11-11/HTMLQuestion.xsd"


def test_a_hyphenated_placeholder_reads_its_column_and_the_page_runs(tmp_path: Path, monkeypatch, capsys) -> None:
    page = tmp_path / "passages.html"
    page.write_text("<p>${passage-1}</p><p>${passage-2}</p><a href='${source-url}'>source</a>\n"
                    "<textarea name='summary' required></textarea>\n", encoding="utf-8")
    assert main(["new", "passages", "--from", str(page), "--dir", str(tmp_path)]) == 0
    template = (tmp_path / "config" / "passages.html.j2").read_text()
    assert "{{ item['passage-1'] }}" in template and "{{ item['source-url'] | safe_url }}" in template
    items = tmp_path / "config" / "passages_items.csv"
    assert items.read_text().splitlines()[0] == "item_id,passage-1,passage-2,source-url"
    items.write_text("item_id,passage-1,passage-2,source-url\nx1,The first part.,The second part.,"
                     "https://example.org/a\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["run", "config/passages.toml", "--dry-run"]) == 0
    assert "PROBLEM" not in capsys.readouterr().out


def test_an_xml_wrapper_behind_a_comment_is_still_a_wrapper(tmp_path: Path) -> None:
    text = (f'<?xml version="1.0"?>\n<!-- exported from the requester site -->\n<?app build="3"?>\n'
            f'<HTMLQuestion xmlns="{HTML_NS}"><HTMLContent><![CDATA[<p>Rate it</p><input name="score">]]>'
            "</HTMLContent><FrameHeight>0</FrameHeight></HTMLQuestion>")
    imported = import_page(text, "wrapped.xml")
    assert "HTMLQuestion" not in imported.body and 'name="score_{{ i }}"' in imported.body
    wrapper = tmp_path / "page.html.j2"
    wrapper.write_text(text, encoding="utf-8")
    assert "is MTurk question XML (<HTMLQuestion>)" in source_problems(wrapper)[1][0]


def test_the_submit_buttons_own_check_is_kept_with_a_note() -> None:
    body, notes = restructure('<form><input name="a"><input type="submit" onclick="return looksDone()">'
                              '<input type="hidden" name="workerId"></form>')
    assert "return looksDone() }).call(this, event) === false) { event.preventDefault(); }" in body
    assert any("own submit check" in n for n in notes)
    assert any("session field workerId not posted" in n for n in notes)


def test_a_crowd_forms_own_onsubmit_is_kept_on_hitflows_crowd_form() -> None:
    """The crowd-form's onsubmit went with the crowd-form the import drops, silently; and a kept check
    looked for #hit-form, which a crowd page does not have."""
    page = ('<html><body><crowd-form onsubmit="if (!document.querySelector(\'[name=ok]\').value) { return false; }">'
            '<p>${text}</p><crowd-input name="ok" required></crowd-input></crowd-form></body></html>')
    imported = import_page(page, "p.html")
    assert "[name=ok_{{ i }}]').value) { return false; } }).call(this, event) === false)" in imported.body
    assert 'document.getElementById("hit-form") || document.getElementById("crowd-form")' in imported.body
    assert any("own submit check" in n for n in imported.notes)


def test_what_the_body_tag_and_the_head_held_is_kept_or_named() -> None:
    """<body onload>, the body's attributes, a <base> in the head and a script after </body> went silently."""
    page = ('<!DOCTYPE html><html><head><title>T</title><base href="https://x.org/"><script>function init() {}'
            '</script></head><body onload="init()" class="big"><p>${text}</p><textarea name="b"></textarea>'
            '</body><script>window.late = 1;</script></html>')
    imported = import_page(page, "p.html")
    # kept on the page, once a page: the load listener above the items, the late script below them
    assert 'window.addEventListener("load", function (event) { init() });' in imported.instructions
    assert "<script>window.late = 1;</script>" in imported.closing  # after </body>: a browser puts it in the body
    notes = " ".join(imported.notes)
    assert "<body>'s onload now runs as a load listener" in notes and "<body>'s class dropped" in notes
    assert "<head> held <base>, dropped" in notes


def test_a_question_forms_list_is_shown_and_what_it_cannot_show_is_named() -> None:
    xml = (f'<QuestionForm xmlns="{FORM_NS}"><Overview><Title>Rules</Title><List><ListItem>Be brief</ListItem>'
           "<ListItem>No links</ListItem></List><Binary><MimeType><Type>image</Type></MimeType>"
           "<DataURL>https://example.org/a.png</DataURL><AltText>a</AltText></Binary></Overview>"
           "<Question><QuestionIdentifier>why</QuestionIdentifier><IsRequired>true</IsRequired><QuestionContent>"
           "<Text>Why?</Text></QuestionContent><AnswerSpecification><FreeTextAnswer/></AnswerSpecification>"
           "</Question></QuestionForm>")
    imported = import_page(xml, "form.xml")
    assert "<ul><li>Be brief</li><li>No links</li></ul>" in imported.body
    assert any("Binary content was left out" in n for n in imported.notes)


def test_instructions_are_shown_once_above_the_items(tmp_path: Path, capsys) -> None:
    page = tmp_path / "summ.html"
    page.write_text('<div id="instructions"><h2>How to</h2><div><p>Read the passage, then summarise it.</p></div>'
                    "</div>\n<p>${text}</p>\n<textarea name='summary'></textarea>\n", encoding="utf-8")
    assert main(["new", "summ", "--from", str(page), "--dir", str(tmp_path)]) == 0
    template = (tmp_path / "config" / "summ.html.j2").read_text()
    instructions, item = re.split(r"\{% block item %\}", template)
    assert "{% block instructions %}" in instructions and "Read the passage" in instructions
    assert "Read the passage" not in item and "{{ item.text }}" in item and 'name="summary_{{ i }}"' in item
    assert "moved out of the per-item block" in capsys.readouterr().err


def test_many_comments_or_instructions_before_no_root_are_read_once() -> None:
    """Found by the hostile-page fuzzing: re-splitting matched comments made the wrapper check
    exponential (22 instructions: 1.7 s, each one more doubling it); 60 of each is plain HTML here."""
    for page in ("<?a?>" * 60 + "<p>x</p><textarea name='t'></textarea>",
                 "<!-- a -->" * 60 + "<p>x</p><textarea name='t'></textarea>"):
        assert 'name="t_{{ i }}"' in import_page(page, "many.html").body


def test_a_submit_button_that_starts_disabled_is_named_as_a_lost_check() -> None:
    """A page whose script enables its (disabled) Submit only once every question is answered: hitflow's
    Submit is never disabled, so the import says the check is lost and how to keep it."""
    page = ("<p>${text}</p><select name='tone' class='q'><option></option><option value='calm'>calm</option>"
            "</select>\n<button type='submit' id='go' disabled>Send</button>\n"
            "<script>document.querySelector('.q').onchange = function () { go.disabled = false; };</script>\n")
    notes = import_page(page, "gated.html").notes
    assert any("submit button starts disabled" in n and "`required`" in n for n in notes), notes
    assert not any("starts disabled" in n for n in import_page(page.replace(" disabled>", ">"), "open.html").notes)


def test_a_submit_buttons_checks_become_page_rules_or_are_each_named(tmp_path: Path, capsys) -> None:
    """rehearsal work: five cross-field checks in the submit button's onclick were kept only in the script, which
    form-reading workers and QC never run, with one note; 14 of 18 approved answers broke them. Checks of
    a recognisable shape (a field left empty, a number above a bound, a field required only with another's
    value) are page rules now; the other (one answer excluding another) is named."""
    from flows.core.pages.form_spec import form_spec
    from flows.core.pages.mturk_forms import form_fields
    from flows.core.pages.templates import render_source
    from qc.form_constraints import check_form

    page = Path(__file__).parent / "pages_wild" / "stress_checks.html"
    assert main(["new", "stress", "--from", str(page), "--dir", str(tmp_path)]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "submit check `if (" in line]
    assert len(notes) == 5
    ruled = [n for n in notes if "is now the page rule" in n]
    assert [re.search(r"page rule (.*?):", n)[1] for n in ruled] == [
        "required on stress", "required on reason", "data-required-when='stress=stressful' on severity",
        "max=10 on severity"]
    kept = [n for n in notes if "stays in its script only" in n]
    assert len(kept) == 1 and "not stressful has no stressor" in kept[0]
    assert all("check" in n.split(":", 2)[2] for n in notes)  # each says what the user must check
    template = (tmp_path / "config" / "stress.html.j2").read_text()
    rendered = render_source(template, "t", {"title": "t", "rules": {}, "items": [{"item_id": "a", "post": "p"}]})
    spec = form_spec(form_fields(rendered))
    broken = {p["field"]: p["rule"] for p in check_form(spec, {"stress_0": "", "reason_0": "", "severity_0": "12"})}
    assert broken == {"stress_0": "required", "reason_0": "required", "severity_0": "out_of_range"}
    assert not check_form(spec, {"stress_0": "stressful", "reason_0": "rent", "severity_0": "9"})
    assert [p["field"] for p in check_form(spec, {"stress_0": "stressful", "reason_0": "rent"})] == ["severity_0"]


# what a note asks of the user: a check or a fix ("every import note says what the user must check")
ASKS = re.compile(r"\b(check|put|move|mark|write|give|add|re-express|leave|remove)\b")


def test_every_import_note_says_what_the_user_must_check() -> None:
    wild = Path(__file__).parent / "pages_wild"
    pages = {p.name: p.read_text(encoding="utf-8") for p in sorted(wild.glob("*.html")) if "key" not in p.name}
    pages["features.html"] = (  # a page that draws every note of restructure and its instructions
        '<!DOCTYPE html><html><head><title>T</title><base href="https://x.org/"></head><body onload="go()" '
        'class="big"><div class="instructions"><p>Read the text, then answer.</p></div><form id="f" '
        'onsubmit="return ok()"><input type="hidden" name="assignmentId"><p>${text}</p><textarea name="b">'
        '</textarea><button onclick="x()">more</button><input type="submit" disabled onclick="return ok()"></form>'
        '<script>function ok() { if (!document.getElementsByName("b")[0].value) { return false; } '
        'if (window.a && window.b) { alert("no"); return false; } return true; }\nvar s = `${here}`;</script>'
        '</body></html>')
    notes = [n for name, text in pages.items() for n in import_page(text, name).notes]
    assert len(notes) >= 15
    silent = [n for n in notes if not ASKS.search(n.split(": note: ", 1)[1])]
    assert not silent, silent


def test_a_fragment_without_a_title_or_h1_takes_its_first_heading_as_the_task_title() -> None:
    page = ('<h2>Which birds <em>can</em> you see?</h2>\n<p>${photo}</p>\n'
            '<input type="radio" name="seen" value="yes"> yes <input type="radio" name="seen" value="no"> no\n')
    assert import_page(page, "birds.html").title == "Which birds can you see?"
    assert import_page("<h3>Rate it</h3>" + page.split("</h2>", 1)[1], "rate.html").title == "Rate it"


def test_offline_qc_on_an_own_pages_batch_file_reads_its_free_text_fields(tmp_path: Path, capsys) -> None:
    page = tmp_path / "labels.html"
    page.write_text("<h2>Rewrite the label</h2><p>${label}</p>\n<select name='tone' required><option>calm</option>"
                    "<option>lively</option></select>\n<textarea name='rewrite' required></textarea>\n",
                    encoding="utf-8")
    assert main(["new", "labels", "--from", str(page), "--dir", str(tmp_path)]) == 0
    (tmp_path / "config" / "labels_items.csv").write_text("item_id,label\nx1,Old pots\n", encoding="utf-8")
    batch = tmp_path / "Batch_1_batch_results.csv"
    batch.write_text("AssignmentId,WorkerId,WorkTimeInSeconds,Input.label,Answer.tone,Answer.rewrite\n"
                     "A1,W1,60,Old pots,calm,Bowls made by hand in the village two thousand years ago.\n"
                     "A2,W2,4,Old pots,calm,ok\n", encoding="utf-8")
    out = tmp_path / "flags.csv"
    assert main(["qc", str(batch), "--out", str(out), "--config", str(tmp_path / "config" / "labels.toml")]) == 0
    flags = out.read_text(encoding="utf-8")
    assert "A2" in flags and "A1,," not in flags  # the two-letter answer is flagged; nothing reads as no answer
    choices_only = tmp_path / "choices.html"
    choices_only.write_text("<p>${label}</p><select name='tone' required><option>calm</option></select>\n",
                            encoding="utf-8")
    assert main(["new", "choices", "--from", str(choices_only), "--dir", str(tmp_path)]) == 0
    (tmp_path / "config" / "choices_items.csv").write_text("item_id,label\nx1,Old pots\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["qc", str(batch), "--out", str(out), "--config", str(tmp_path / "config" / "choices.toml")]) == 3
    assert "asks for no free text" in capsys.readouterr().err


BOXES = """<p>${report}</p><h4>Which of these does the report mention? Tick all that apply (at least one box).</h4>
<label><input type="checkbox" name="mentions" value="a"> ${thing_a}</label>
<label><input type="checkbox" name="mentions" value="b"> ${thing_b}</label>
<h4>Anything else? Tick any that apply.</h4><label><input type="checkbox" name="extra" value="x"> Photos</label>
<label><input type="checkbox" name="extra" value="y"> Maps</label>
<p>Explain in at least two sentences.</p><textarea name="why"></textarea>"""


def test_a_minimum_of_boxes_stated_only_in_the_question_becomes_the_groups_rule() -> None:
    from flows.core.pages.form_spec import form_spec
    from flows.core.pages.mturk_forms import form_fields
    from qc.form_constraints import check_form

    imported = import_page(BOXES, "boxes.html")
    assert imported.body.count('data-min-selections="1"') == 2  # each box of "mentions", none of "extra"
    assert sum("'at least one' box(es) in mentions" in n for n in imported.notes) == 1
    spec = form_spec(form_fields(imported.body.replace("{{ i }}", "0")))
    assert [p["field"] for p in check_form(spec, {"mentions_0": "", "extra_0": "", "why_0": "x"})] == ["mentions_0"]
    assert not check_form(spec, {"mentions_0": "a", "extra_0": "", "why_0": "x"})
