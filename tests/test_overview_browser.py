"""The edge-case work in Chromium: the campaign overview (``hitflow ui``) links to each campaign's review queue,
which works there on the overview's sign-in (decisions reach the platform; strangers, foreign origins
and names outside the ledger are refused); the review page's thumbnails fall back to a local
placeholder when their host is out of reach; the overview reloads itself while a run goes, not after."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.core.ledger.store import Store
from flows.core.run.run_context import Run
from flows.driver.campaign_status import campaign_status
from flows.driver.operations import ledger_run, open_campaign_run
from flows.review.overview_app import OverviewServer, OverviewSite
from flows.sim.service.server import SimServer
from tests.review_helpers import review_config, run_until_review

pytestmark = [pytest.mark.browser, pytest.mark.slow]
LAPTOP = {"width": 1280, "height": 800}
NOT_LOOPBACK = re.compile(r"^https?://(?!127\.0\.0\.1[:/])")


@pytest.fixture(scope="module")
def waiting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, SimServer]]:
    """A campaign whose batch 1 waits for a person, on a simulator that outlives the run (seed 5
    leaves several cards in batch 1, tests/test_review_browser.py)."""
    root = tmp_path_factory.mktemp("waiting")
    with SimServer(seed=5) as sim:
        assert run_until_review(review_config(root), sim.url, root / "h.db", root).startswith("batch 1 waits")
        yield root / "h.db", sim


@pytest.fixture
def laptop(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    page.route(NOT_LOOPBACK, lambda route: route.abort())  # every image host out of reach: offline
    yield page
    context.close()


def until(page: Any, done: Any, within_s: float = 30) -> bool:
    """``done()`` within ``within_s``, waiting in Playwright (its events, a page's loads, arrive only then)."""
    deadline = time.monotonic() + within_s
    while not done():
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(200)
    return True


def _no_refresh(page: Any) -> bool:
    try:
        return bool(page.evaluate("() => document.readyState === 'complete' && "
                                  "!document.querySelector('meta[http-equiv=refresh]')"))
    except Exception:
        return False


def overview_site(db: Path, **kw: Any) -> OverviewSite:
    def open_run(name: str) -> AbstractContextManager[Run]:
        return open_campaign_run(str(db), name, progress=lambda _: None)

    return OverviewSite(db_path=db, out_root=db.parent / "runs", read_status=campaign_status, open_run=open_run,
                        read_run=lambda name: ledger_run(str(db), name), reviewer="ann", **kw)  # as `hitflow ui`


def test_the_overview_links_to_the_review_queue_which_decides_there(waiting: tuple[Path, SimServer],
                                                                    laptop: Any) -> None:
    db, _ = waiting
    site = overview_site(db)
    with site.opened, OverviewServer(site) as server:
        laptop.goto(f"{server.url}/?token={site.login_token}")
        link = laptop.locator("details.campaign[data-name=vizwiz_captions] a.review")
        assert "review item(s) open" in link.inner_text()
        link.click()
        laptop.wait_for_url(f"{server.url}/review/vizwiz_captions/")
        assert laptop.locator("#reviewer").inner_text() == "ann" and laptop.locator(".card").count() >= 2
        # offline: every thumbnail shows the local placeholder, not a blank box (a script under the CSP:
        # an inline onerror would not run)
        thumbs = laptop.locator(".answer img")
        assert thumbs.count() >= 1
        # (polled from here: the page's CSP refuses the eval that wait_for_function would need)
        all_placeholders = ("() => [...document.querySelectorAll('.answer img')]"
                            ".every(i => i.src.startsWith('data:image/svg+xml') && i.naturalWidth > 0)")
        assert until(laptop, lambda: laptop.evaluate(all_placeholders))
        assert laptop.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")

        item = str(laptop.locator(".card.current").get_attribute("data-item")).removeprefix("a:")
        laptop.keyboard.press("a")  # approve, through the page's own form (page token, Origin)
        laptop.wait_for_url("**/review/vizwiz_captions/?msg=*")
        assert "sent: approve" in laptop.locator("#message").inner_text()
        sent = Store(db).rows("SELECT reviewer, action FROM review_actions WHERE assignment_id = ?", [item])
        assert sent == [{"reviewer": "ann", "action": "approve"}]

        cookie = {c["name"]: c["value"] for c in laptop.context.cookies()}
        foreign = httpx.post(f"{server.url}/review/vizwiz_captions/decide", cookies=cookie,
                             headers={"origin": "http://evil.example"}, data={"action": "approve"})
        assert foreign.status_code == 403  # the review page's Origin check holds under the overview
        assert httpx.get(f"{server.url}/review/nosuch/", cookies=cookie).status_code == 403  # ledger names only
        assert httpx.get(f"{server.url}/review/vizwiz_captions/").status_code == 403  # no cookie


def test_the_overview_reloads_while_a_run_goes_and_stops_after(waiting: tuple[Path, SimServer], laptop: Any) -> None:
    db, _ = waiting
    store = Store(db)
    site = overview_site(db, refresh_s=1)
    loads: list[str] = []
    laptop.on("load", lambda page: loads.append(page.url))
    [before] = store.rows("SELECT status FROM campaigns WHERE name = 'vizwiz_captions'")
    with OverviewServer(site) as server:
        with store.campaign_lock("vizwiz_captions"):  # a live process holds the campaign: it is running
            with store.transaction():
                store.db.execute("UPDATE campaigns SET status = 'running' WHERE name = 'vizwiz_captions'")
            laptop.goto(f"{server.url}/?token={site.login_token}")
            assert "reloads every 1 s" in laptop.locator("#summary").inner_text()
            first = len(loads)
            assert until(laptop, lambda: len(loads) >= first + 2)  # it reloads itself (every 1 s; slower under load)
        # the lock is released: the run is over (shown as stopped); a reload finds nothing running
        assert until(laptop, lambda: _no_refresh(laptop))
        settled = len(loads)
        laptop.wait_for_timeout(3000)  # three of the old intervals
        assert len(loads) == settled  # and the page stays put
        assert "reloads" not in laptop.locator("#summary").inner_text()
    with store.transaction():
        store.db.execute("UPDATE campaigns SET status = ? WHERE name = 'vizwiz_captions'", [before["status"]])


def test_no_cell_breaks_a_word_or_a_number_at_1280_px(waiting: tuple[Path, SimServer], laptop: Any,
                                                      tmp_path: Path) -> None:
    """The newcomer work: the workers table broke words and numbers ("ski ll", "0.3 / 35"). Every header and cell
    of every table is one line of text at a laptop's width (a worker's "why", which opens the rest of the
    pooled rule's figures, wraps in its own width by design). the pooled workers table (13
    columns, 1,926-2,000 px) hid skill, agreement and control accuracy past the edge: its chosen columns
    and every "why" opened now fit 1280 px, no table scrolling."""
    import pandas as pd

    db, _ = waiting
    out = tmp_path / "runs" / "vizwiz_captions"
    out.mkdir(parents=True)
    pd.DataFrame({"item_id": [f"item-{k:05d}" for k in range(30)], "field": "text_present", "label": "yes",
                  "confidence": 0.75, "method": "ds", "judgements": 5}).to_csv(out / "answers.csv", index=False)
    # Prolific's participant ids (24 hex digits) are the widest a route gives
    pd.DataFrame({"worker_id": [f"{k:024x}" for k in range(12)], "skill": 0.3333, "items": 35, "agreement": 0.8,
                  "control_accuracy": 0.5, "controls": 2, "pooled_accuracy": 0.61, "pooled_p_above": 0.00012,
                  "pooled_evidence": 1.75, "pooled_controls": 1, "pooled_controls_right": 0, "pooled_pages": 12,
                  "pooled_labels": 35, "pooled_agreement": 0.333, "pooled_status": "at risk"}
                 ).to_csv(out / "workers.csv", index=False)
    site = OverviewSite(db_path=db, out_root=tmp_path / "runs", read_status=campaign_status, reviewer="ann")
    with OverviewServer(site) as server:
        laptop.goto(f"{server.url}/?token={site.login_token}")
        laptop.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        lines = laptop.evaluate("""() => [...document.querySelectorAll('th, td')]
            .filter(c => c.innerText.trim() && !c.querySelector('details.why'))
            .map(c => { const r = document.createRange(); r.selectNodeContents(c);
                        const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
                        return [c.innerText, tops.size]; })""")
        texts = [text for text, _ in lines]
        assert "P(accurate enough)" in texts and "0.333" in texts and "0 of 1" in texts and "skill" in texts
        broken = [text for text, count in lines if count > 1]
        assert not broken, broken
        assert laptop.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
        wide = laptop.evaluate("""() => [...document.querySelectorAll('.scroll')]
            .filter(box => box.scrollWidth > box.clientWidth).map(box => [box.scrollWidth, box.clientWidth])""")
        assert not wide, wide  # every table whole at 1280 px, the workers' "why" open on every row
