"""`hitflow new --from` asks a page's own script what it requires by running it in Chromium
(flows/custom/submit_probe.py, flows/sim/pages/script_probe.py): pages whose checks take shapes no reading of
their code knows (a flag set in a loop, a function returning a comparison, a table of rules, an early return, a
switch on a choice) carry the rule each check is as a page rule, and an honest full answer still submits. One
Chromium for the module; a page with no script that could refuse a submit never starts one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flows.custom.page_import import import_page
from flows.custom.scaffold_import import template_text, with_probed_rules
from flows.custom.submit_probe import blocks_submit
from flows.sim.pages.script_probe import PAGE_URL, PROBE_SCRIPT, SESSION, honest_answers

FLAG_LOOP = """<form id="f" onsubmit="return checkAll()">
<p>Name three birds you saw.</p>
<input id="b1" name="bird1"> <input id="b2" name="bird2"> <input id="b3" name="bird3">
<p>Anything else? <input name="extra"></p><input type="submit"></form>
<script>
function checkAll() {
  var problem = null;
  for (var i = 1; i <= 3; i++) {
    if (document.getElementById('b' + i).value.replace(/ /g, '') == '') { problem = 'Bird ' + i + ' is missing'; }
  }
  if (problem) { alert(problem); return false; }
  return true;
}
</script>"""

COUNTED = """<form id="f" onsubmit="return checkWarnings()">
<p>Which do you see? <label><input type="checkbox" name="seen" value="cat"> cat</label>
<label><input type="checkbox" name="seen" value="dog"> dog</label></p>
<p>Comment <textarea name="note"></textarea></p><input type="submit"></form>
<script>
function checkWarnings() {
  var ticked = 0, boxes = document.getElementsByTagName('input');
  for (var k = 0; k < boxes.length; k++) { if (boxes[k].type == 'checkbox' && boxes[k].checked) ticked += 1; }
  return ticked > 0;
}
</script>"""

RULE_TABLE = """<form id="f"><select class="must" name="colour"><option value="">--</option>
<option value="red">Red</option><option value="blue">Blue</option></select>
<textarea class="must" name="why"></textarea> <input name="nick"><input type="submit"></form>
<script>
var checks = [{sel: 'select.must', ok: function (el) { return el.selectedIndex > 0; }},
              {sel: 'textarea.must', ok: function (el) { return /\\S/.test(el.value); }}];
document.getElementById('f').addEventListener('submit', function (ev) {
  var failed = checks.filter(function (c) { return !c.ok(document.querySelector(c.sel)); });
  if (failed.length) { ev.preventDefault(); document.title = failed.length + ' to fix'; }
});
</script>"""

EARLY_RETURN = """<form id="f"><p>Mood: <label><input type="radio" name="mood" value="up"> up</label>
<label><input type="radio" name="mood" value="down"> down</label></p>
<p>Why? <input name="reason"></p><input type="submit"></form>
<script>
document.getElementById('f').addEventListener('submit', function (e) {
  if (document.querySelector('input[name=mood]:checked')) return;
  e.preventDefault();
  alert('Pick a mood first');
});
</script>"""

SWITCHED = """<form id="f"><p>Is the photo sharp?
<label><input type="radio" name="sharp" value="yes"> yes</label>
<label><input type="radio" name="sharp" value="no"> no</label></p>
<p>If not, what is wrong? <input name="fault"></p><input type="submit"></form>
<script>
document.getElementById('f').onsubmit = function () {
  var said = document.querySelector('input[name=sharp]:checked');
  switch (said && said.value) {
    case 'no': if (document.getElementsByName('fault')[0].value.length) break; alert('Say what is wrong'); return false;
    case null: alert('Answer the question'); return false;
  }
};
</script>"""

WARNS_ONCE = """<form id="f"><p>Rating <select name="stars"><option value="">-</option><option>1</option>
<option>2</option></select></p><p>Comment (optional) <textarea name="comment"></textarea></p>
<input type="submit"></form>
<script>
var warned = false;
document.getElementById('f').addEventListener('submit', function (e) {
  if (!document.getElementsByName('stars')[0].value) { e.preventDefault(); alert('Choose a rating'); return; }
  if (!warned && !document.getElementsByName('comment')[0].value) {
    warned = true; e.preventDefault(); alert('No comment? Press Submit again to send without one.');
  }
});
</script>"""

VALIDITY_BOX = """<form id="f"><p>Which symptoms? (at least one)
<label><input type="checkbox" id="first" name="sign" value="spots"> spots</label>
<label><input type="checkbox" name="sign" value="wilt"> wilting</label></p>
<p>Notes <input name="notes"></p><input type="submit"></form>
<script>
var boxes = document.querySelectorAll('input[type=checkbox]');
function mark() {
  var any = Array.prototype.some.call(boxes, function (b) { return b.checked; });
  document.getElementById('first').setCustomValidity(any ? '' : 'Tick at least one symptom');
}
Array.prototype.forEach.call(boxes, function (b) { b.addEventListener('change', mark); });
mark();
</script>"""

REQUIRED_ON_CHANGE = """<form id="f"><p>Decision
<label><input type="radio" name="act" value="shelve" required> shelve</label>
<label><input type="radio" name="act" value="repair"> repair</label></p>
<p>What needs fixing? <input id="fix" name="fix"></p><input type="submit"></form>
<script>
document.addEventListener('change', function (e) {
  if (e.target.type === 'radio') document.getElementById('fix').required = e.target.value === 'repair';
});
</script>"""

COUNTED_WORDS = """<form id="f"><p>What would you improve, and why? (between 10 and 40 words)
<textarea id="improve" name="improve"></textarea></p><p>Your initials <input name="initials"></p>
<p id="msg"></p><input type="submit"></form>
<script>
document.getElementById('f').addEventListener('submit', function (e) {
  var n = document.getElementById('improve').value.split(/\\s+/).filter(Boolean).length;
  if (n < 10 || n > 40) { document.getElementById('msg').textContent = 'Write 10 to 40 words'; e.preventDefault(); }
});
</script>"""

TWO_VALUES = """<form id="f"><p>Do you support it?
<label><input type="radio" name="support" value="1" required> no</label>
<label><input type="radio" name="support" value="2"> rather not</label>
<label><input type="radio" name="support" value="3"> rather yes</label>
<label><input type="radio" name="support" value="4"> yes</label></p>
<p>If not, what instead? <input id="instead" name="instead"></p><input type="submit"></form>
<script>
document.getElementById('f').addEventListener('submit', function (e) {
  var c = document.querySelector('input[type=radio]:checked');
  if (c && (c.value === '1' || c.value === '2') && !document.getElementById('instead').value.trim()) {
    e.preventDefault(); alert('Say what you would do instead');
  }
});
</script>"""

PLAIN = """<form><p>Your answer <input name="a" required></p><input type="submit"></form>
<script>document.title = 'Hello';</script>"""


def submits(browser, html: str, values: dict[str, str] | None = None) -> bool:
    """Whether the page, the browser's own validation on, sends ``values`` (None: an honest worker's full answer)."""
    page = browser.new_page()
    try:
        page.route("**/*", lambda route: route.fulfill(
            status=200, content_type="text/html", body=html if route.request.url.startswith(PAGE_URL) else ""))
        page.add_init_script(script=PROBE_SCRIPT)
        page.goto(f"{PAGE_URL}?assignmentId={SESSION['assignmentId']}")
        groups = page.evaluate("() => window.__hitflowProbe.groups()")
        page.evaluate("() => { document.getElementById('hit-form').noValidate = false; }")
        given = honest_answers(html, groups) if values is None else values
        return page.evaluate("(t) => window.__hitflowProbe.run(t)", [[given, 0]])[0][0]
    finally:
        page.close()


def attrs(body: str, name: str) -> str:
    """Every tag of the control ``name`` (x_{{ i }}), joined."""
    return " ".join(re.findall(rf"<[^>]*name=\"{name}_{{{{ i }}}}\"[^>]*>", body))


@pytest.mark.browser
def test_each_unread_shape_becomes_the_rule_it_enforces_and_honest_work_still_submits(probing, browser) -> None:
    body, notes, page = probing(FLAG_LOOP)
    assert all("required" in attrs(body, f"bird{n}") for n in (1, 2, 3)) and "required" not in attrs(body, "extra")
    assert any("Bird" in n and "is missing" in n and "required" in n for n in notes)
    assert submits(browser, page)

    body, _notes, page = probing(COUNTED)
    assert 'data-min-selections="1"' in attrs(body, "seen") and "required" not in attrs(body, "note")
    assert submits(browser, page)

    body, _notes, page = probing(RULE_TABLE)
    assert "required" in attrs(body, "colour") and "required" in attrs(body, "why")
    assert "required" not in attrs(body, "nick")
    assert submits(browser, page)


@pytest.mark.browser
def test_an_early_return_and_a_switch_on_a_choice_are_read_by_what_they_refuse(probing, browser) -> None:
    body, _notes, page = probing(EARLY_RETURN)
    assert "required" in attrs(body, "mood") and "required" not in attrs(body, "reason")
    assert submits(browser, page)

    body, notes, page = probing(SWITCHED)
    assert 'data-required-when="sharp=no"' in attrs(body, "fault") and "required" in attrs(body, "sharp")
    assert "required" not in attrs(body, "fault").replace("data-required-when", "")
    assert any("Say what is wrong" in n for n in notes)
    assert submits(browser, page)


@pytest.mark.browser
def test_a_warning_that_lets_the_second_press_through_makes_nothing_required(probing, browser) -> None:
    body, _notes, page = probing(WARNS_ONCE)
    assert "required" not in attrs(body, "comment")  # a person who means it sends it without one
    assert "required" in attrs(body, "stars")
    assert submits(browser, page)


def test_a_page_whose_scripts_cannot_refuse_a_submit_starts_no_browser() -> None:
    assert not blocks_submit(import_page(PLAIN, "own.html").body)
    assert blocks_submit(import_page(EARLY_RETURN, "own.html").body)


def test_without_chromium_the_import_says_so_and_keeps_reading_the_code(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("HITFLOW_CHROMIUM", str(tmp_path / "no-chromium"))
    source = EARLY_RETURN
    imported = import_page(source, "own.html")
    template = with_probed_rules(imported, template_text(imported, Path("own.html"), source), Path("own.html"), source)
    assert any("was not run at import" in n and "no Chromium" in n for n in imported.notes)
    assert "{% block item %}" in template and "data-required-when" not in template


@pytest.mark.browser
def test_what_a_script_asks_of_the_browser_s_own_checks_is_found_too(probing, browser) -> None:
    """A custom validity on a group's first box and a box made required as a choice changes: no submit
    listener, yet a person's browser refuses the submit."""
    body, _notes, page = probing(VALIDITY_BOX)
    assert 'data-min-selections="1"' in attrs(body, "sign") and "required" not in attrs(body, "notes")
    assert submits(browser, page)

    body, _notes, page = probing(REQUIRED_ON_CHANGE)
    assert 'data-required-when="act=repair"' in attrs(body, "fix")
    assert "required" not in attrs(body, "fix").replace("data-required-when", "")
    assert submits(browser, page)


@pytest.mark.browser
def test_a_box_the_script_counts_the_words_of_is_tried_with_enough_words_before_giving_up(probing, browser) -> None:
    """An honest worker may leave an unmarked box open; a page that refuses under ten words in it is asked again
    with more words before the import says the page refused an honest answer."""
    body, notes, page = probing(COUNTED_WORDS)
    assert "required" in attrs(body, "improve") and "required" not in attrs(body, "initials")
    assert not any("refused an honest" in n for n in notes)
    assert submits(browser, page)


@pytest.mark.browser
def test_a_box_required_for_two_values_of_a_choice_names_both_on_the_page_and_the_server(probing, browser) -> None:
    """``data-required-when="support=1|2"``: hitflow's page and its server check hold the box for either value."""
    from flows.core.pages.form_spec import form_spec
    from flows.core.pages.mturk_forms import form_fields
    from qc.form_constraints import check_form

    body, _notes, page = probing(TWO_VALUES)
    found = re.search(r'data-required-when="support=([^"]*)"', attrs(body, "instead"))
    assert found and set(found[1].split("|")) == {"1", "2"}
    spec = form_spec(form_fields(page))
    for value, held in (("1", True), ("2", True), ("3", False)):
        assert bool(check_form(spec, {"support_0": value, "instead_0": ""})) is held, value
        assert submits(browser, page, {"support_0": value, "instead_0": ""}) is not held, value
