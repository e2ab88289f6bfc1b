"""A required hidden field written by a widget of the page's own that is no button, input or label: an SVG compass of
clickable points, boxes with a click listener, an ``onclick`` or ``role=button``, or ones the page's CSS gives a
pointer. A browser worker clicks one of them as a person would (the known answer's, where one carries it), in
Chromium, and the page's own submit check lets it through."""

from __future__ import annotations

import random

import pytest

from flows.sim.pages.browser_worker import work_page
from tests.conftest import CHROMIUM

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300),
              pytest.mark.skipif(not CHROMIUM.exists(), reason=f"needs {CHROMIUM} (make browser-deps)")]

SESSION = {"assignmentId": "A1", "hitId": "H1", "workerId": "W1"}
PAGE = """<!DOCTYPE html><html><head><style>
  .pt circle, .tile { cursor: pointer; } .pt text { pointer-events: none; } .tile, .opt { padding: 4px; }
</style></head><body><form id="f" method="post" action="https://hit.sim.invalid/submit">
<p>Which way does the garden face?</p>
<div class="q">WIDGET<div id="shown">nothing yet</div>
<input type="hidden" name="facing" id="facing" value="" required></div>
<label><input type="radio" name="sunny" value="yes" required> Yes</label>
<label><input type="radio" name="sunny" value="no"> No</label>
<input type="submit" value="Submit"></form>
<script>
  function pick(el, value) { document.getElementById('facing').value = value;
    document.getElementById('shown').textContent = value; }
  LISTEN
  document.getElementById('f').addEventListener('submit', function (e) {
    if (!document.getElementById('facing').value) { e.preventDefault(); alert('Please click a point first.'); } });
</script></body></html>"""
POINTS = {"n": (120, 24), "e": (216, 120), "s": (120, 216), "w": (24, 120)}
# points that carry their direction in a data- attribute, their circle given a pointer by the CSS
COMPASS = ('<svg viewBox="0 0 240 240" width="240" height="240">' + "".join(
    f'<g class="pt" data-dir="{d}"><circle cx="{x}" cy="{y}" r="17" fill="#fff" stroke="#000"/>'
    f'<text x="{x}" y="{y + 5}" text-anchor="middle">{d.upper()}</text></g>' for d, (x, y) in POINTS.items())
    + "</svg>")
COMPASS_LISTENS = ("document.querySelectorAll('.pt').forEach(function (pt) { pt.addEventListener('click', "
                   "function () { pick(pt, pt.getAttribute('data-dir')); }); });")
# bare shapes: no data, no text, each its own onclick
BARE_SHAPES = ('<svg viewBox="0 0 240 240" width="240" height="240">' + "".join(
    f'<circle cx="{x}" cy="{y}" r="17" fill="#ccc" onclick="pick(this, \'{d}\')"/>' for d, (x, y) in POINTS.items())
    + "</svg>")
# words in boxes a script listens to, told apart by nothing but their words (no pointer, no attribute)
WORD_BOXES = "".join(f'<span class="opt">{w}</span>' for w in ("North", "East", "South", "West"))
WORD_LISTENS = ("document.querySelectorAll('.opt').forEach(function (o) { o.addEventListener('click', "
                "function () { pick(o, o.textContent.toLowerCase()); }); });")
# tiles the CSS gives a pointer, one listener on their row reading which was clicked
TILES = '<div id="tiles">' + "".join(f'<div class="tile">{d.upper()}</div>' for d in POINTS) + "</div>"
TILES_LISTEN = ("document.getElementById('tiles').addEventListener('click', function (e) { "
                "if (e.target.className === 'tile') pick(e.target, e.target.textContent.toLowerCase()); });")
ROLE_BOXES = "".join(f'<div role="button" tabindex="0" id="b{d}">{d.upper()}</div>' for d in POINTS)
ROLE_LISTENS = ("document.querySelectorAll('[role=button]').forEach(function (o) { o.addEventListener('mousedown', "
                "function () { pick(o, o.id.slice(1)); }); });")


def worked(browser, widget: str, listens: str, intents: dict[str, str], seed: int = 3) -> dict[str, str] | None:
    page = PAGE.replace("WIDGET", widget).replace("LISTEN", listens)
    return work_page(browser, page, SESSION, {"sunny": "yes", **intents}, random.Random(seed))


def test_an_svg_compass_point_is_clicked_for_the_known_answer(browser) -> None:
    for want in ("s", "w"):
        posted = worked(browser, COMPASS, COMPASS_LISTENS, {"facing": want})
        assert posted is not None and posted["facing"] == want


@pytest.mark.parametrize("widget,listens,values", [
    (BARE_SHAPES, "", set(POINTS)),
    (WORD_BOXES, WORD_LISTENS, {"north", "east", "south", "west"}),
    (ROLE_BOXES, ROLE_LISTENS, set(POINTS)),
    (TILES, TILES_LISTEN, set(POINTS)),
], ids=["svg shapes with onclick", "words with a click listener", "role=button boxes", "tiles with a pointer"])
def test_clickable_shapes_and_boxes_are_clicked_by_a_worker(browser, widget: str, listens: str,
                                                            values: set[str]) -> None:
    chosen = set()
    for seed in range(2):  # two pages: seeds 0 and 1 click two different points of each widget (a third: ~0.35 s)
        posted = worked(browser, widget, listens, {}, seed)
        assert posted is not None and posted["facing"] in values
        chosen.add(posted["facing"])
    assert len(chosen) >= 2  # a choice among the points, not always the first


def test_a_known_answer_matches_a_boxs_words(browser) -> None:
    posted = worked(browser, WORD_BOXES, WORD_LISTENS, {"facing": "south"})
    assert posted is not None and posted["facing"] == "south"
