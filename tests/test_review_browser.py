"""The early platform work in Chromium: a person clears a batch's review queue with the keyboard; hostile caption
text stays text; the page refuses a browser that did not come through the one-time link."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flows.core.ledger.store import Store
from flows.sim.service.server import SimServer
from tests.review_helpers import review_config, review_server, run_until_review


@pytest.fixture
def sim() -> Iterator[SimServer]:
    """A crowd whose batch 1 leaves at least three cards for a person (approve, reject, block); the
    seed is the test's choice: since captions are read in plan order, seed 3 leaves only two."""
    with SimServer(seed=5) as server:
        yield server

pytestmark = pytest.mark.browser
HOSTILE = "<img src=x onerror=alert(1)>"
# one long word (a formula, a URL): it must wrap inside its 160 px card, not run over the next caption
UNBROKEN = '+HYPERLINK("http://evil.example/aaaaaaaaaaaaaaaaaaaaaaaa","click")'
# a caption as long as the task server's body limit allows: it must not push the card's buttons 160,000 px down
HUGE = "word " * 40_000


def current_item(page: Any) -> str:
    return str(page.locator(".card.current").get_attribute("data-item"))


def decide_the_rest(db: Path) -> None:
    """What the queue still holds, decided as the rules advise (the page was tested above)."""
    from flows.campaigns.review_data import campaign_queue
    from flows.core.decisions import Decision
    from flows.driver.operations import open_campaign_run
    from flows.review.review_actions import apply_decision

    with open_campaign_run(str(db), "vizwiz_captions") as run:
        queue = campaign_queue(run.store, "vizwiz_captions", run.cfg.policy, "flagged")
        for row in queue[queue["decided"] == ""].itertuples():
            action = row.auto_action if row.kind == "worker" else "approve"
            apply_decision(run, Decision(action, row.batch, row.worker_id, row.assignment_id, idem_key=row.item))


def test_keyboard_review_reject_block_and_hostile_caption(sim, client, page, tmp_path: Path) -> None:
    db, config = tmp_path / "h.db", review_config(tmp_path)
    assert run_until_review(config, sim.url, db, tmp_path).startswith("batch 1 waits for review")
    store = Store(db)
    target = store.rows("SELECT assignment_id FROM qc_flags WHERE batch = 1 AND rule = 'random_sample'")[0]
    with store.transaction():  # what a hostile worker could have typed into the caption box
        store.db.execute("UPDATE answers SET value = ? WHERE assignment_id = ? AND field = 'caption'",
                         [HOSTILE, target["assignment_id"]])
        store.db.execute("UPDATE answers SET value = ? WHERE assignment_id = ? AND field = 'caption' AND item_id = "
                         "(SELECT min(item_id) FROM answers WHERE assignment_id = ? AND field = 'caption')",
                         [UNBROKEN, target["assignment_id"], target["assignment_id"]])
        store.db.execute("UPDATE answers SET value = ? WHERE assignment_id = ? AND field = 'caption' AND item_id = "
                         "(SELECT max(item_id) FROM answers WHERE assignment_id = ? AND field = 'caption')",
                         [HUGE, target["assignment_id"], target["assignment_id"]])
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    with review_server(db, "vizwiz_captions", reviewer="ann") as (server, site):
        page.goto(f"{server.url}/?token={site.login_token}")
        assert page.url == f"{server.url}/"
        cards = page.locator(".card")
        assert cards.count() >= 3
        first = current_item(page)
        page.keyboard.press("j")
        assert current_item(page) == cards.nth(1).get_attribute("data-item")
        page.keyboard.press("k")
        assert current_item(page) == first
        assert page.locator(".answer-text", has_text=HOSTILE).count() >= 1  # shown as text
        assert page.locator("img[src='x']").count() == 0 and not dialogs
        assert page.locator(".answer-text", has_text=UNBROKEN).count() >= 1
        overflowing = page.eval_on_selector_all(".answer-text", "ps => ps.filter(p => p.scrollWidth > p.clientWidth)"
                                                ".map(p => p.textContent)")
        assert overflowing == []  # each caption stays inside its own card
        tallest = page.eval_on_selector_all(".answer-text", "ps => Math.max(...ps.map(p => p.clientHeight))")
        assert tallest < 300  # the 200 KB caption scrolls inside its box; the page stays a page

        approved = first.removeprefix("a:")
        page.keyboard.press("a")
        page.wait_for_url("**/?msg=*")
        assert "sent: approve" in page.locator("#message").inner_text()
        rejected = current_item(page).removeprefix("a:")
        assert rejected != approved
        page.keyboard.press("r")
        page.keyboard.type("Please describe what the photo shows, not the task.")
        page.keyboard.press("Enter")
        page.wait_for_url("**/?msg=sent*reject*")
        worker_card = page.locator(".card.current")
        worker = str(worker_card.locator("code.worker").inner_text())
        page.keyboard.press("b")
        page.wait_for_url("**/?msg=sent*block*")

        other = page.context.browser.new_context()
        stranger = other.new_page()
        response = stranger.goto(f"{server.url}/")
        assert response is not None and response.status == 403
        other.close()
    assert client.get_assignment(AssignmentId=approved)["Assignment"]["AssignmentStatus"] == "Approved"
    got = client.get_assignment(AssignmentId=rejected)["Assignment"]
    assert got["AssignmentStatus"] == "Rejected" and got["RequesterFeedback"].startswith("Please describe")
    assert [r["action"] for r in store.rows("SELECT action FROM review_actions ORDER BY id")][:3] == [
        "approve", "reject", "block"]
    assert len(store.rows("SELECT * FROM ledger WHERE operation = 'ExcludeWorker' AND params LIKE ?",
                          [f"%{worker}%"])) == 1
    assert not dialogs
    decide_the_rest(db)
    run_until_review(config, sim.url, db, tmp_path)  # the next batch, with the block in force
    assert store.rows("SELECT count(*) AS n FROM assignments WHERE batch = 2")[0]["n"] > 0
    assert not store.rows("SELECT * FROM assignments WHERE batch = 2 AND worker_id = ?", [worker])
