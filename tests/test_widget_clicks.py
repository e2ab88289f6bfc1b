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


TURK_PAGE = """{% extends "_custom_page.html.j2" %}
{% block item %}
<script src="https://s3.amazonaws.com/mturk-public/externalHIT_v1.js"></script>
<p>{{ item.note }}</p><div class="marks">""" + STARS + """</div>
<input type="hidden" name="score_{{ i }}" value="" required>
<script>
  turkSetAssignmentID();
  document.querySelectorAll(".marks span").forEach(function (m) { m.addEventListener("click", function () {
    document.getElementsByName("score_{{ i }}")[0].value = m.getAttribute("data-score"); }); });
</script>
{% endblock %}"""


def test_a_page_calling_mturks_helper_script_works_where_that_script_does_not_load(browser, tmp_path) -> None:
    """hitflow's page stands in for MTurk's externalHIT_v1.js helpers, so the page's script gets past them to its
    widget (the simulator serves no CDN; a task server's policy may block it)."""
    import json

    from flows.core.config.config import load_config
    from flows.core.pages.templates import page_items
    from flows.custom.custom_task import custom_page
    from flows.custom.scaffold import scaffold

    scaffold("turk_helpers", tmp_path)
    (tmp_path / "config" / "turk_helpers.html.j2").write_text(TURK_PAGE, encoding="utf-8")
    cfg = load_config(tmp_path / "config" / "turk_helpers.toml")
    rows = [{"item_id": "n-1", "file_name": "", "url": "", "payload": json.dumps({"note": "A note."})}]
    posted = work_page(browser, custom_page(cfg, page_items(rows)), SESSION, {"score_0": "5"}, random.Random(2))
    assert posted is not None
    assert posted["score_0"] == "5"


ROWS_PAGE = ('<!DOCTYPE html><html><body><form id="f" method="post" action="https://hit.sim.invalid/submit">'
             '{rows}<input type="hidden" name="all" id="all" value="&lt;END&gt;">'
             '<input type="submit" value="Submit"></form><script>var got = {{}};'
             'document.querySelectorAll(".row").forEach(function (row) {{ row.querySelectorAll("button")'
             '.forEach(function (b) {{ b.addEventListener("click", function () {{'
             '  got[row.dataset.q] = b.dataset.v;'
             '  document.getElementById("all").value = Object.keys(got).length === {n} ? "done" : "<END>";'
             '}}); }}); }});'
             'document.getElementById("f").addEventListener("submit", function (e) {{'
             '  if (document.getElementById("all").value === "<END>") e.preventDefault(); }});</script></body></html>')
ROW = '<p>Question {q}</p><div class="row" data-q="q{q}">{buttons}</div>'


def test_a_person_clicks_one_button_of_each_row_of_option_buttons(browser) -> None:
    """A row of sibling buttons is one question's options: a person picks one in every row, never leaving one out
    for the page to refuse (the page posts its own "<END>" until every row is answered)."""
    sizes = (3, 5, 2, 4)
    rows = "".join(ROW.format(q=q, buttons="".join(f'<button type="button" data-v="{v}">{v}</button>'
                                                   for v in range(n))) for q, n in enumerate(sizes))
    page = ROWS_PAGE.format(rows=rows, n=len(sizes))
    posted = [work_page(browser, page, SESSION, {}, random.Random(seed)) for seed in range(8)]
    assert all(p is not None and p["all"] == "done" for p in posted), posted
