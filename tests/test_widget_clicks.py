"""A browser worker fills a required hidden field the way a person does: by clicking the page's own widget
(stars, numbered boxes) whose script writes it, one widget per item where a page holds several."""

from __future__ import annotations

import random

import pytest

from flows.sim.pages.browser_worker import work_page
from tests.conftest import CHROMIUM

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300),
              pytest.mark.skipif(not CHROMIUM.exists(), reason=f"needs {CHROMIUM} (make browser-deps)")]

SESSION = {"assignmentId": "A1", "hitId": "H1", "workerId": "W1"}
ITEM = ('<div class="q"><p>Rate item {k}</p><div class="marks">{marks}</div>'
        '<input type="hidden" name="score_{k}" value="" required></div>')
PAGE = ('<!DOCTYPE html><html><body><form id="f" method="post" action="https://hit.sim.invalid/submit">{items}'
        '<input type="text" name="note" value=""><input type="submit" value="Submit"></form><script>'
        'document.querySelectorAll(".marks").forEach(function (box) {{'
        '  var field = box.parentNode.querySelector("input[type=hidden]");'
        '  box.querySelectorAll("[data-score], i").forEach(function (m) {{ m.addEventListener("click", function () {{'
        '    field.value = m.getAttribute("data-score") || m.textContent; }}); }}); }});'
        'document.getElementById("f").addEventListener("submit", function (e) {{'
        '  document.querySelectorAll("input[type=hidden]").forEach(function (h) {{'
        '    if (!h.value) e.preventDefault(); }}); }});</script></body></html>')
STARS = "".join(f'<span data-score="{v}">&#9733;</span>' for v in range(1, 6))


def worked(browser, items: list[str], intents: dict[str, str]) -> dict[str, str] | None:
    page = PAGE.format(items="".join(ITEM.format(k=k, marks=m) for k, m in enumerate(items)))
    return work_page(browser, page, SESSION, intents, random.Random(3))


def test_stars_the_page_draws_are_clicked_for_the_intended_value_on_every_item(browser) -> None:
    posted = worked(browser, [STARS, STARS], {"score_0": "4", "score_1": "2", "note": "ok"})
    assert posted is not None
    assert (posted["score_0"], posted["score_1"]) == ("4", "2")


def test_numbered_boxes_without_data_are_read_by_their_number(browser) -> None:
    posted = worked(browser, ["".join(f"<i>{v}</i>" for v in range(1, 8))], {"note": "ok"})
    assert posted is not None
    assert posted["score_0"] in {str(v) for v in range(1, 8)}
