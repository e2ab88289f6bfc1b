"""`hitflow new --from` on a page whose script, not an attribute, guards its submit: a
click listener on the page's submit button and a submit listener on its form (jQuery's `.on("submit", f)`,
by name). The button and form are dropped, so each listener now finds hitflow's, and each check they make
is listed by what it enforced: a length, a pattern, a bound and an empty field become page rules QC
checks; a word count names QC's min_words; a cross-field check is named by its condition and message."""

from __future__ import annotations

import io
import re
from contextlib import chdir, redirect_stdout
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields
from flows.custom.page_import import import_page
from flows.custom.page_scripts import scripts_write_fields
from flows.custom.submit_checks import script_only_checks
from qc.form_constraints import check_form

PAGE = """<html><head><title>Rate the word</title></head><body>
<form id="task" method="post">
<input id="w" name="word">
<textarea id="c" name="comment"></textarea>
<input id="zip" name="zip">
<input type="number" id="age" name="age">
<input type="checkbox" name="other" id="other" value="yes"><input name="other_text" id="other_text">
<button type="submit" id="go" data-id="x">Submit</button>
</form>
<script>
document.getElementById("go").addEventListener("click", function (e) {
  var c = document.getElementById("c");
  if (c.value.trim().length < 100) { alert("Write at least 100 characters."); e.preventDefault(); return; }
  if (!/^\\d{5}$/.test(document.getElementById("zip").value)) { alert("A 5-digit ZIP"); e.preventDefault(); return; }
  if (document.getElementById("other").checked && !document.getElementById("other_text").value) {
    alert("Say what other is"); e.preventDefault(); return; }
  if (c.value.trim().split(/\\s+/).length < 20) { alert("At least 20 words"); e.preventDefault(); return; }
  if (!document.getElementById("w").value) { alert("Type the word"); e.preventDefault(); }
});
$("#task").on("submit", check);
function check(event) {
  if (document.getElementById("age").value > 120) { alert("An age up to 120"); return false; }
}
</script>
</body></html>
"""


def test_each_check_a_script_attaches_to_the_dropped_button_or_form_is_listed() -> None:
    page = import_page(PAGE, "rate.html")
    checks = [n for n in page.notes if "submit check `if (" in n]
    said = [re.search(r"\(it says '([^']+)'\)", n)[1] for n in checks]
    assert said == ["Write at least 100 characters.", "A 5-digit ZIP", "Say what other is", "At least 20 words",
                    "Type the word", "An age up to 120"]
    ruled = {re.search(r"page rule (.*?): hitflow", n)[1] for n in checks if "is now the page rule" in n}
    assert ruled == {"minlength=100 on comment", "pattern='\\\\d{5}' on zip", "required on word", "max=120 on age"}
    kept = [n for n in checks if "stays in its script only" in n]
    assert len(kept) == 2 and "[qc.fields.comment] min_words = 20" in kept[1] and "other_text" in kept[0]
    # the listeners find hitflow's Submit button and form, not the dropped ones (once a page, below the items)
    code = page.instructions + page.body + page.closing
    assert 'document.getElementById("submit-btn").addEventListener("click"' in code
    assert '$("#hit-form").on("submit", check)' in code and '"go"' not in code


def test_the_checks_made_page_rules_are_enforced_on_the_answers() -> None:
    body = import_page(PAGE, "rate.html").body.replace("{{ i }}", "0")
    spec = form_spec(form_fields(body))
    good = {"word_0": "lantern", "comment_0": "x" * 100, "zip_0": "12345", "age_0": "30"}
    assert not check_form(spec, good)
    for field, bad in (("comment_0", "x" * 99), ("zip_0", "1234"), ("zip_0", "12345a"), ("age_0", "121"),
                       ("word_0", "")):
        broken = [p["field"] for p in check_form(spec, {**good, field: bad})]
        assert broken == [field], (field, bad)


def test_a_pattern_on_a_textarea_stays_the_scripts() -> None:
    page = import_page(PAGE.replace('<input id="zip" name="zip">', '<textarea id="zip" name="zip"></textarea>'),
                       "rate.html")
    note = next(n for n in page.notes if "A 5-digit ZIP" in n)
    assert "stays in its script only" in note and "pattern=" not in page.body


def test_a_plain_button_that_submits_the_form_from_its_script_has_its_checks_listed() -> None:
    """``<button type="button" onclick="send()">`` whose ``send`` checks, then calls ``form.submit()``: the
    page's real submit. hitflow's Submit skips its checks, so each is read and the button named."""
    page = ("<form id='f'><input id='r' name='reason'>\n<button type='button' onclick='send()'>Send</button></form>\n"
            "<script>function send() {\n  if (!document.getElementById('r').value) { alert('Give a reason'); "
            "return; }\n  document.getElementById('f').submit();\n}</script>\n")
    imported = import_page(page, "send.html")
    assert any("1 button(s) of the page submit the form from its script" in n for n in imported.notes)
    note = next(n for n in imported.notes if "Give a reason" in n)
    assert "page rule required on reason" in note and re.search(r"<input required id='r' name=\"reason_", imported.body)
    # a button that only shows more does not count
    assert not any("submit the form" in n for n in import_page(page.replace(".submit();", ".reset();"), "x").notes)


def test_a_listener_on_the_form_by_its_tag_is_read_too() -> None:
    page = ("<form><input id='r' name='reason'><input type='submit'></form>\n<script>\n"
            "$('form').submit(function () { if (!$('#r').val() && !document.getElementById('r').value) "
            "{ alert('Give a reason'); return false; } });\n"
            "document.querySelector('input[type=submit]').addEventListener('click', function (e) {\n"
            "  if (document.getElementById('r').value.length > 200) { alert('At most 200'); e.preventDefault(); }\n"
            "});\n</script>\n")
    notes = import_page(page, "tag.html").notes
    said = [n for n in notes if "submit check `if (" in n]
    assert len(said) == 2 and "Give a reason" in said[0] and "stays in its script only" in said[0]
    assert "page rule maxlength=200 on reason" in said[1]


# the three ways a check reads an answer that a person's script alone enforced: jQuery's value of a hidden field a
# widget writes, "no checkbox ticked" by type in each item's block, and a loop's flag with "answer every ..." said
WIDGET = ("<form id='f'><div class='stars'><span data-v='1'>*</span><span data-v='2'>*</span></div>"
          "<input type='hidden' name='stars' id='stars' value=''><input name='note' required>"
          "<input type='submit'></form>\n<script>$('.stars span').on('click', function () { "
          "$('#stars').val($(this).data('v')); });\n$('#f').on('submit', function (e) {\n"
          "  if (!$('#stars').val()) { e.preventDefault(); alert('Click the stars.'); }\n});</script>\n")
BOXES = ("<form id='f' onsubmit='return ok()'><div class='r'><input type='checkbox' name='tag' value='a'>"
         "<input type='checkbox' name='tag' value='b'></div><input type='submit'></form>\n<script>function ok() {\n"
         "  var rs = document.querySelectorAll('.r');\n  for (var i = 0; i < rs.length; i++) {\n"
         "    if (!rs[i].querySelector('input[type=checkbox]:checked')) { alert('Tick one.'); return false; }\n"
         "  }\n  return true;\n}</script>\n")
EVERY = ("<form id='f' onsubmit='return ok()'><input type='radio' name='fit' value='yes'>"
         "<input type='radio' name='fit' value='no'><input name='why'><input type='submit'></form>\n"
         "<script>function ok() {\n  var good = true;\n  if (!good) { alert('Please answer every address.'); "
         "return false; }\n}</script>\n")


def test_a_widgets_hidden_field_a_checkbox_block_and_answer_every_become_page_rules() -> None:
    widget = import_page(WIDGET, "stars.html")
    assert any("page rule required on stars" in n for n in widget.notes)
    spec = form_spec(form_fields(widget.body.replace("{{ i }}", "0")), hidden_answers=True)
    assert [p["field"] for p in check_form(spec, {"stars_0": "", "note_0": "fine"})] == ["stars_0"]
    assert not check_form(spec, {"stars_0": "2", "note_0": "fine"})
    assert any("page rule data-min-selections=1 on tag" in n for n in import_page(BOXES, "tags.html").notes)
    assert any("page rule required on fit" in n for n in import_page(EVERY, "fit.html").notes)
    # two checkbox groups: which one "a box" means is not known, so the check stays the script's
    two = BOXES.replace("value='b'>", "value='b'><input type='checkbox' name='more' value='c'>")
    assert any("Tick one." in n and "stays in its script only" in n for n in import_page(two, "two.html").notes)


ODD = ("<p>${text}</p><form id='f'><input type='radio' name='ok' value='yes'><input type='radio' name='ok' value='no'>"
       "<input name='why' id='why'><input type='submit'></form>\n<script>document.getElementById('f')."
       "addEventListener('submit', function (e) {\n"
       "  var n = document.querySelectorAll('input[name=ok]:checked').length;\n"
       "  if (n + document.getElementById('why').value.length < 2) { alert('Answer both.'); e.preventDefault(); }\n"
       "});</script>\n")


def test_the_dry_run_names_a_check_only_a_browser_enforces_instead_of_no_problems(tmp_path: Path) -> None:
    (tmp_path / "odd.html").write_text(ODD)
    (tmp_path / "odd.csv").write_text("item_id,text\na1,hello there\na2,good day\n")
    with chdir(tmp_path):
        assert main(["new", "odd", "--from", "odd.html", "--items", "odd.csv"]) == 0
        out = io.StringIO()
        with redirect_stdout(out):
            assert main(["run", "config/odd.toml", "--dry-run", "--limit", "2"]) == 0  # the run is not refused
    said = out.getvalue()
    assert "UNCHECKED: the page's submit check `if (n + document.getElementById('why')" in said
    assert "no problems found" not in said and "no problem found, but 1 check(s)" in said


NAMED = ("<form id='f'><input type='checkbox' name='seen' value='a'><input type='checkbox' name='seen' value='b'>"
         "<input type='submit'></form>\n<script>document.getElementById('f')"
         ".addEventListener('submit', function (e) {\n"
         "  var ticked = document.querySelectorAll('input[name=\"seen\"]:checked');\n"
         "  if (ticked.length === 0) { alert('Tick one.'); e.preventDefault(); return; }\n"
         "  if (ticked.length > 1 && ticked[0].value === 'a') { alert('Not both.'); e.preventDefault(); }\n"
         "});</script>\n")


def test_the_dry_run_does_not_call_unchecked_what_the_import_made_a_page_rule() -> None:
    page = import_page(NAMED, "seen.html")
    assert any("Tick one." in n and "is now the page rule" in n for n in page.notes)
    unchecked = script_only_checks(page.body)  # the template's per-item names: seen_{{ i }}
    assert len(unchecked) == 1 and "Not both." in unchecked[0].note


WORDS = ("<form id='f'><textarea name='plan'></textarea><input type='submit' id='go'></form>\n<script>\n"
         "document.getElementById('go').addEventListener('click', function (e) {\n"
         "  var t = document.getElementsByName('plan')[0].value.trim();\n  var n = t ? t.split(/\\s+/).length : 0;\n"
         "  if (n < 10 || n > 40) { alert('Between 10 and 40 words (you have ' + n + ').'); e.preventDefault(); }\n"
         "});</script>\n")


# the same check, its count made by a page function on a box the page holds in a variable of its own
COUNTED = ("<form id='f'><textarea name='plan' id='plan'></textarea><input type='submit' id='go'></form>\n<script>\n"
           "var box = document.getElementById('plan');\n"
           "function countWords(t) { t = t.trim(); return t === '' ? 0 : t.split(/\\s+/).length; }\n"
           "document.getElementById('go').addEventListener('click', function (e) {\n  var n = countWords(box.value);\n"
           "  if (n < 10 || n > 40) { alert('Between 10 and 40 words, please.'); e.preventDefault(); }\n});</script>\n")


@pytest.mark.parametrize("page", [WORDS, COUNTED], ids=["inline", "function"])
def test_a_word_minimum_in_a_script_refuses_a_blank_so_the_box_becomes_required(page: str) -> None:
    imported = import_page(page, "plan.html")
    assert any("min_words = 10" in n and "it is now required" in n for n in imported.notes)
    assert page != WORDS or any("'Between 10 and 40 words (you have ...'" in n for n in imported.notes)  # joined
    spec = form_spec(form_fields(imported.body.replace("{{ i }}", "0")))
    assert [p["field"] for p in check_form(spec, {"plan_0": ""})] == ["plan_0"]
    assert not check_form(spec, {"plan_0": "three short words"})  # the count itself stays QC's min_words


BOILERPLATE = """<html><body><form name="mturk_form" method="post" id="mturk_form" action="https://www.mturk.com/x">
<input type="hidden" value="" name="assignmentId" id="assignmentId">
<input type="hidden" name="PROLIFIC_PID" id="pid"><p>${text}</p><textarea name="why" required></textarea>
<input type="submit" id="submitButton"></form>
<script>
  function turkGetParam(name, def) { var m = new RegExp('[?&]' + name + '=([^&]*)').exec(location.search);
    return m ? decodeURIComponent(m[1]) : def; }
  document.getElementById('assignmentId').value = turkGetParam('assignmentId', '');
  $('#pid').val(new URLSearchParams(location.search).get('PROLIFIC_PID'));
</script></body></html>"""


def test_a_script_writing_a_session_field_gets_a_copy_and_leaves_the_session_alone() -> None:
    """MTurk's boilerplate set hitflow's assignmentId from a URL parameter Prolific does not send: every submit
    lost its session; a Prolific id field became an answer field and made the crowd a browser one."""
    imported = import_page(BOILERPLATE, "boilerplate.html")
    body, page = imported.body, imported.instructions + imported.body + imported.closing  # its closing script below
    assert "getElementById('assignmentId')" not in page and 'name="PROLIFIC_PID"' not in page
    assert '<input hidden type="hidden" data-unposted="PROLIFIC_PID" id="pid">' in body
    assert '({value: (document.getElementsByName("assignmentId")[0] || "").value || "", sessionCopy: true})' \
        ".value = turkGetParam" in page and '$("<input>").val(' in page
    assert any("session fields assignmentId, PROLIFIC_PID not posted" in n and "reads assignmentId, pid" in n
               for n in imported.notes)
    assert not scripts_write_fields(page)  # the copy takes the write: form-reading workers do this page
    assert [f.name for f in form_fields(body.replace("{{ i }}", "0"))] == ["why_0"]


def test_a_fragments_listener_on_mturks_own_form_is_read_as_the_forms() -> None:
    """A layout fragment has no form: MTurk wraps it in one with id mturk_form, which its script looks up."""
    fragment = ("<p>${abstract}</p><input type='checkbox' name='audience' value='a'>"
                "<input type='checkbox' name='audience' value='b'><textarea name='why'></textarea>\n<script>\n"
                "document.getElementById('mturk_form').addEventListener('submit', function (event) {\n"
                "  if (document.querySelectorAll('input[name=\"audience\"]:checked').length === 0) "
                "{ event.preventDefault(); }\n});\n</script>")
    imported = import_page(fragment, "fragment.html")
    assert "getElementById('hit-form').addEventListener('submit'" in imported.body
    assert 'input[name="audience_{{ i }}"]:checked' in imported.body
    assert any("attaches 1 submit/click listener(s)" in n for n in imported.notes)
    assert not any("not read as its form" in n for n in imported.notes)
