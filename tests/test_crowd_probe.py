"""`hitflow new --from` asks a crowd-element page's own script what it requires, as it asks a plain page's
(flows/custom/submit_probe.py, flows/sim/pages/script_probe.py): the page is run as hitflow renders it, each
crowd element answered through the control hitflow's stand-in draws for it (crowd_elements.js), and each blank
the script refuses becomes a page rule the gate and the simulated crowd read. Pages of our own
(bench/crowd_probe/), whose checks are attached after load and read the elements as MTurk's expose them
(``crowd-radio-button.checked``, ``crowd-text-area.value``)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.script_probe import PAGE_URL, PROBE_SCRIPT, SESSION, honest_answers
from qc.form_constraints import check_form

PAGES = Path(__file__).resolve().parents[1] / "bench" / "crowd_probe"
OWN_REQUIRED = """<crowd-form>
  <p>${sentence}</p>
  <crowd-text-area name="fixed" required></crowd-text-area>
  <crowd-radio-group>
    <crowd-radio-button name="ok" value="yes">Correct as it is</crowd-radio-button>
    <crowd-radio-button name="ok" value="no">Needs a fix</crowd-radio-button>
  </crowd-radio-group>
  <crowd-input name="note"></crowd-input>
  <label><input type="radio" name="sure" value="yes" required> Sure</label>
  <label><input type="radio" name="sure" value="no"> Not sure</label>
</crowd-form>
<script>
document.querySelector('crowd-form').addEventListener('submit', function (e) {
  if (!document.querySelector('crowd-radio-button[value="yes"]').checked &&
      !document.querySelector('crowd-radio-button[value="no"]').checked) { e.preventDefault(); }
});
</script>"""
DRAWN = """<crowd-form>
  <crowd-bounding-box name="boxes" src="${image}" labels="['car']" header="Box each car"></crowd-bounding-box>
  <crowd-input name="count" type="number"></crowd-input>
</crowd-form>
<script>
document.querySelector('crowd-form').onsubmit = function () { return !!document.querySelector('crowd-input').value; };
</script>"""


def page_of(name: str) -> str:
    return (PAGES / f"{name}.html").read_text(encoding="utf-8")


def tag_of(body: str, name: str) -> str:
    """Every tag named ``name`` (x_{{ i }}), joined."""
    return " ".join(re.findall(rf"<[^>]*name=\"{name}_{{{{ i }}}}\"[^>]*>", body))


def submits(browser, html: str, values: dict[str, str] | None = None) -> bool:
    """Whether the crowd page, its own checks on as a person meets them, sends ``values`` (None: an honest
    worker's full answer)."""
    page = browser.new_page()
    try:
        page.route("**/*", lambda route: route.fulfill(
            status=200, content_type="text/html", body=html if route.request.url.startswith(PAGE_URL) else ""))
        page.add_init_script(script=PROBE_SCRIPT)
        page.goto(f"{PAGE_URL}?assignmentId={SESSION['assignmentId']}")
        groups = page.evaluate("() => window.__hitflowProbe.groups()")
        page.evaluate("() => document.querySelectorAll('input, textarea').forEach((c) => delete c.checkValidity)")
        given = honest_answers(html, groups) if values is None else values
        return page.evaluate("(t) => window.__hitflowProbe.run(t)", [[given, 0]])[0][0]
    finally:
        page.close()


@pytest.mark.browser
def test_a_crowd_pages_script_only_requirements_become_page_rules(probing, browser) -> None:
    body, notes, page = probing(page_of("review_tone"))
    assert "required" in tag_of(body, "tone") and "required" in tag_of(body, "explain")
    assert "required" not in tag_of(body, "extra")
    assert any("run in Chromium at import" in n and "10 words" in n for n in notes)
    spec = {f["name"]: f for f in form_spec(form_fields(page))["fields"]}
    assert spec["tone_0"]["required"] and spec["explain_0"]["required"] and not spec["extra_0"]["required"]
    assert submits(browser, page)  # MTurk's .checked and .value, read by the page's script, hold the answer
    assert not submits(browser, page, {"tone_0": "", "explain_0": " ".join(["word"] * 12)})

    body, _notes, page = probing(page_of("news_topics"))
    assert 'data-min-selections="1"' in tag_of(body, "topic") and "required" not in tag_of(body, "summary")
    assert "required" not in tag_of(body, "urgency")  # a classifier is required by the element already
    assert submits(browser, page)


@pytest.mark.browser
def test_a_crowd_element_required_with_one_value_of_a_choice_is_the_same_rule_as_on_a_plain_page(probing,
                                                                                                 browser) -> None:
    body, _notes, page = probing(page_of("damage_check"))
    assert "required" in tag_of(body, "damage")
    assert 'data-required-when="damage=yes"' in tag_of(body, "where")
    assert "required" not in tag_of(body, "where").replace("data-required-when", "")
    assert "required" not in tag_of(body, "sure")
    spec = form_spec(form_fields(page))
    for value, held in (("yes", True), ("no", False)):
        assert bool(check_form(spec, {"damage_0": value, "where_0": "", "sure_0": "3"})) is held, value
    assert submits(browser, page)


@pytest.mark.browser
def test_a_radio_group_whose_buttons_each_have_a_name_is_asked_as_the_one_field_it_answers(probing, browser) -> None:
    """MTurk's reference shape: each crowd-radio-button its own name, the group one field (``choice``); the run
    answers and blanks the group, and its rule goes on the <crowd-radio-group>, where hitflow reads it."""
    body, notes, page = probing(page_of("sentiment_buttons"))
    assert re.search(r"<crowd-radio-group required>", body) and "required" not in tag_of(body, "positive")
    assert 'data-required-when="choice=negative"' in tag_of(body, "complaint")
    assert not any("was not asked about" in n for n in notes)
    spec = form_spec(form_fields(page))
    for value, held in (("", True), ("negative", True), ("neutral", False)):
        assert bool(check_form(spec, {"choice_0": value, "complaint_0": ""})) is held, value
    assert submits(browser, page)


@pytest.mark.browser
def test_an_elements_own_required_is_kept_and_does_not_hide_what_the_script_requires(probing, browser) -> None:
    """The stand-in refuses a blank required element (or plain control) itself, before the page's script runs:
    the run lets each try past the page's own rules, so the script's requirement on the radio group is still
    found, and what the page already requires is not taken for the script's."""
    body, notes, page = probing(OWN_REQUIRED)
    assert tag_of(body, "fixed").count("required") == 1 and tag_of(body, "sure").count("required") == 1
    assert "required" in tag_of(body, "ok") and "required" not in tag_of(body, "note")
    assert not any("already say" in n for n in notes)
    assert submits(browser, page) and not submits(browser, page, {"fixed_0": "", "ok_0": "yes", "sure_0": "yes"})


@pytest.mark.browser
def test_a_crowd_element_the_run_cannot_answer_is_named_in_a_note(probing) -> None:
    body, notes, _page = probing(DRAWN)
    assert any("was not asked about boxes" in n for n in notes), notes
    assert "required" in tag_of(body, "count")



def test_a_box_the_page_requires_after_yes_is_answered_about_the_item() -> None:
    """"If yes, where is the damage?" reads like a question about the worker ("Have you heard of it? If yes,
    where?"), left blank by those who never heard; once the page requires it (yes chosen, data-required-when)
    an honest worker answers it about the item, as the page's script makes a person do."""
    from flows.core.pages.crowd_elements import FormField
    from flows.sim.people.worker_questions import about_worker

    question, rng = "If yes, where is the damage?", random.Random(1)
    workers = [f"A{n:03d}" for n in range(40)]
    said = {w: about_worker(FormField("where_0", "text"), question, w, rng) for w in workers}
    never_heard = [w for w in workers if said[w] == ""]
    assert never_heard  # an optional box: left blank by some
    assert all(about_worker(FormField("where_0", "text", attrs={"required": ""}), question, w, rng) is None
               for w in never_heard)


def test_an_if_yes_box_that_asks_for_work_or_that_the_page_requires_after_yes_is_about_the_item() -> None:
    """"If yes: type the announcement as it was said, every mistake fixed" was read as "If yes, where did you hear
    of it?", and honest workers typed "On a podcast." into a correction the page's script requires."""
    from flows.core.pages.asks_worker import topic
    from flows.core.pages.crowd_elements import FormField
    from flows.sim.people.worker_questions import about_worker

    assert topic("If yes: type the announcement as the announcer really said it, every mistake fixed.") == ""
    assert topic("If yes, please write the corrected line.") == "" and topic("If yes, where?") == "if_yes"
    box = FormField("corrected_0", "textarea", attrs={"data-required-when": "has_error=yes"})
    assert all(about_worker(box, "If yes, where?", f"A{n:03d}", random.Random(n)) is None for n in range(20))
