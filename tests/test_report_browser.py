"""The edge-case work in Chromium at 1,280 x 800: the demo's report and the campaign overview fit a laptop
screen (no horizontal scroll), open with their summary in the first screen, keep long tables
behind "show all", and show a local placeholder for an image whose URL cannot be reached."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flows.campaigns.report import render_report
from flows.driver.campaign_run import run_campaign
from flows.driver.campaign_status import campaign_status
from flows.review.overview_app import OverviewServer, OverviewSite
from flows.sim.service.server import SimServer
from tests.report_samples import sample_report_data
from tests.small_configs import small_vizwiz
from tests.unseen_figures import figures_seen  # noqa: F401  (autouse: its plots must load and fit)

pytestmark = pytest.mark.browser
LAPTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A small demo campaign (25 images, 5 HITs: one a batch) run to its end: the ledger and the report under it."""
    root = tmp_path_factory.mktemp("demo")
    with SimServer(seed=3) as sim:
        run_campaign(small_vizwiz(root, items=25), endpoint_url=sim.url, db_path=root / "h.db", out_root=root / "runs",
                     progress=lambda _: None)
    yield root


@pytest.fixture
def laptop(demo: Path, browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    page.route("http*://images.example.org/**", lambda route: route.abort())  # an image host out of reach
    yield page
    context.close()


# Table headers and first cells holding one word (no space) whose text runs over more than one line.
SPLIT_WORDS = """() => [...document.querySelectorAll('th, td:first-child')]
    .filter(c => c.innerText.trim() && !/\\s/.test(c.innerText.trim()))
    .filter(c => { const r = document.createRange(); r.selectNodeContents(c); return r.getClientRects().length > 1; })
    .map(c => c.innerText.trim())"""


def fits_the_screen(page: Any, selector: str) -> None:
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    box = page.locator(selector).bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= LAPTOP["height"]


def test_report_fits_a_laptop_and_opens_with_the_answer(demo: Path, laptop: Any) -> None:
    report = demo / "runs" / "vizwiz_captions" / "report.html"
    laptop.goto(report.as_uri())
    fits_the_screen(laptop, "#summary")
    summary = laptop.locator("#summary").inner_text()
    assert "captions kept" in summary and "cost with fees" in summary and "Needs a person" in summary
    assert laptop.locator("section").first.get_attribute("id") == "batches"  # the evidence after the answer
    # every plot loaded and fits the column
    for img in laptop.locator("img").all():
        assert img.evaluate("i => i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().right <= innerWidth")
    # no header and no row's name (a worker id) broken inside a word: "bat ch", "A52YKOP53 9YN2Q" were
    laptop.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    assert laptop.evaluate(SPLIT_WORDS) == []
    # an image whose URL is unreachable falls back to the local placeholder
    laptop.locator("img").first.evaluate("i => { i.src = 'http://images.example.org/missing.png'; }")
    laptop.wait_for_function("document.images[0].src.startsWith('data:image/svg+xml')")


def test_long_tables_are_capped_until_show_all(demo: Path, laptop: Any, tmp_path: Path) -> None:
    """The blocked-workers table with 60 rows: 20 show, the rest after a click, with no server."""
    page_file = tmp_path / "report.html"
    page_file.write_text(render_report(sample_report_data(blocked_rows=60, text="x" * 300)), encoding="utf-8")
    laptop.goto(page_file.as_uri())
    rows = laptop.locator("#blocked-table tr:has(td)")
    laptop.locator("#blocked-table > summary").click()
    assert rows.count() == 60 and sum(r.is_visible() for r in rows.all()) == 20
    laptop.locator("label[for=blocked-table-all]").click()
    assert sum(r.is_visible() for r in rows.all()) == 60
    assert laptop.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


def test_overview_lists_campaigns_with_links_and_refuses_strangers(demo: Path, laptop: Any) -> None:
    site = OverviewSite(db_path=demo / "h.db", out_root=demo / "runs", read_status=campaign_status)
    errors: list[str] = []
    laptop.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    with OverviewServer(site) as server:
        assert laptop.goto(f"{server.url}/").status == 403  # no token, no cookie
        errors.clear()  # the 403's own console line
        laptop.goto(f"{server.url}/?token={site.login_token}")
        assert laptop.url == f"{server.url}/"
        fits_the_screen(laptop, "#summary")
        section = laptop.locator("details.campaign[data-name=vizwiz_captions]")
        assert section.count() == 1 and "spent $" in section.inner_text()
        rows = section.locator("table.batches tr:has(td)")
        assert rows.count() == 5  # the demo's five batches
        assert section.locator("details.answers table.skill tr:has(td)").count() > 0  # answers and worker skill
        assert laptop.locator("meta[http-equiv=refresh]").count() == 0  # nothing runs: no reloading
        section.locator("a", has_text="report").click()
        laptop.wait_for_url("**/report/vizwiz_captions")
        fits_the_screen(laptop, "#summary")
        assert laptop.locator("#summary").evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"  # styled
        # the report's image fallback runs under the overview's CSP (it was refused: a console error per image)
        assert errors == []
        laptop.locator("img").first.evaluate("i => { i.src = 'http://images.example.org/missing.png'; }")
        deadline = time.monotonic() + 10  # polled: the CSP refuses the eval wait_for_function needs
        while not laptop.evaluate("document.images[0].src.startsWith('data:image/svg+xml')"):
            assert time.monotonic() < deadline, errors
            laptop.wait_for_timeout(200)
        assert [e for e in errors if "img-src" not in e] == []  # the CSP kept the outside image out, no more
        assert laptop.goto(f"{server.url}/report/nosuch").status == 403  # only campaigns of the ledger
        assert laptop.goto(f"{server.url}/report/..%2Fh.db").status in (403, 404)  # no path from the URL
        assert laptop.goto(f"{server.url}/?token={site.login_token}").status == 403  # the link works once
