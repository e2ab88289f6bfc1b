"""A radio or checkbox the page's CSS hides behind the label drawn for it (the CSS-only star rating, a row of toggle
chips) is answered as a person answers it, by clicking the label: in headless Chromium the honest trial submits the
page and the worker's choice is posted; the form-reading worker answers it too. A required control nothing visible
sets (no label, or a hidden one) is still named by the trial."""

from __future__ import annotations

import random
import re

import pytest

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.browser_check import missing
from flows.sim.pages.browser_trial import trial_outcome
from flows.sim.pages.browser_worker import work_page
from flows.sim.people.crowd_model import Worker

in_chromium = pytest.mark.skipif(bool(missing()), reason=f"browser workers cannot run here: {missing()}")
SESSION = {"assignmentId": "A1", "hitId": "H1", "workerId": "W1"}
# the common CSS-only star rating: five required radios, display: none, each drawn by its <label for>
STARS = """<style>.stars { display: inline-flex; flex-direction: row-reverse; } .stars input { display: none; }
  .stars label { font-size: 32px; cursor: pointer; }</style>
<p>How much did you enjoy it?</p><div class="stars">""" + "".join(
    f'<input type="radio" name="enjoy" id="star{v}" value="{v}"{" required" if v == 5 else ""}>'
    f'<label for="star{v}" title="{v} stars">&#9733;</label>' for v in range(5, 0, -1)) + "</div>"
# toggle chips: checkboxes hidden by the hidden attribute inside the label a person clicks; one must be ticked (the
# page's script says so, and the box's data-min-selections as an import states it)
CHIPS = """<style>.chip { border: 1px solid #888; border-radius: 12px; padding: 2px 8px; cursor: pointer; }</style>
<p>Which topics does it touch?</p>""" + "".join(
    f'<label class="chip"><input type="checkbox" name="topics" value="{t}" data-min-selections="1" hidden> {t}</label>'
    for t in ("food", "travel", "money")) + """
<p>Anything else?</p><input type="text" name="note"><input type="hidden" name="n" value="">"""
PAGE = ('<!DOCTYPE html><html><body><form id="f" method="post" action="https://hit.sim.invalid/submit">{body}'
        '<input type="submit" value="Submit"></form><script>'
        'document.getElementById("f").addEventListener("submit", function (e) {{'
        '  var n = document.querySelectorAll("[name=topics]:checked").length; if (!n) e.preventDefault();'
        '  if (document.getElementsByName("n").length) document.getElementsByName("n")[0].value = n; }});'
        '</script></body></html>')
STARS_PAGE = PAGE.replace("[name=topics]", "[name=enjoy]").format(body=STARS)
CHIPS_PAGE = PAGE.format(body=CHIPS)


@pytest.mark.browser
@in_chromium
def test_hidden_star_radios_are_ticked_by_their_labels_and_the_trial_submits(browser) -> None:
    posted = [work_page(browser, STARS_PAGE, SESSION, {"enjoy": v}, random.Random(1)) for v in ("4", "1")]
    assert [p and p.get("enjoy") for p in posted] == ["4", "1"]
    assert trial_outcome(STARS_PAGE).problem == ""


@pytest.mark.browser
@in_chromium
def test_hidden_checkbox_chips_inside_their_labels_are_ticked_and_stay_ticked(browser) -> None:
    """Two chips clicked once each stay ticked (a second click would untick one): the page counts two."""
    for wanted, count in (("travel", "1"), ("food|money", "2")):
        posted = work_page(browser, CHIPS_PAGE, SESSION, {"topics": wanted, "note": "ok"}, random.Random(1))
        assert posted is not None and posted["n"] == count and posted["topics"] in wanted.split("|")
    assert trial_outcome(CHIPS_PAGE).problem == ""


@pytest.mark.browser
@in_chromium
@pytest.mark.parametrize("how", ["no label", "labels hidden too"])
def test_a_required_radio_nothing_visible_sets_is_still_named(how: str) -> None:
    """No person can answer it, so the trial says so."""
    stars = re.sub(r"<label[^>]*>.*?</label>", "", STARS) if how == "no label" else \
        STARS.replace(".stars label {", ".stars label { display: none;")
    said = trial_outcome(PAGE.replace("[name=topics]", "[name=enjoy]").format(body=stars)).problem
    assert "enjoy" in said and "stayed hidden" in said


def test_form_reading_workers_answer_a_choice_styled_away_behind_its_label() -> None:
    page = STARS_PAGE.replace('<input type="radio"', '<input style="display: none" type="radio"')
    worker = Worker("W1", "diligent", {}, 5000, 99)
    values = fill_unhinted(worker, form_fields(page), page, {}, random.Random(1))
    assert values.get("enjoy") in {"1", "2", "3", "4", "5"}
    unlabelled = page.replace("&#9733;</label>", "</label>")  # nothing names the buttons: nothing a person clicks
    assert "enjoy" not in fill_unhinted(worker, form_fields(unlabelled), unlabelled, {}, random.Random(1))
