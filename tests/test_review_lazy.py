"""``hitflow ui``'s review queue reads the ledger alone: the campaign's platform (here its embedded simulator,
whose reopening replays the whole marketplace: no answer in 600 s at 40,000 images) is
opened when a decision is first sent, once. A long queue comes a page of cards at a time, each card showing
some of a busy worker's captions and flags and saying how many there are."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import httpx
import pytest

from flows.campaigns.review_data import card_captions, card_flags
from flows.core.ledger.store import Store
from flows.core.run.run_context import Run
from flows.driver.campaign_status import campaign_status
from flows.driver.operations import ledger_run, open_campaign_run
from flows.review import review_cards
from flows.review.overview_app import OverviewServer, OverviewSite
from tests.ledger_reads import item_flags, worker_captions
from tests.review_helpers import form_fields, review_config, run_until_review

NAME = "vizwiz_captions"
QUEUE = f"/review/{NAME}/"


@pytest.fixture(scope="module")
def waiting(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A campaign on its embedded simulator (a state file next to the ledger) whose batch 1 waits for a person."""
    root = tmp_path_factory.mktemp("lazy")
    assert run_until_review(review_config(root), "", root / "h.db", root, limit=120).startswith("batch 1 waits")
    return root / "h.db"


class Openings:
    """The campaign's platform as `hitflow ui` opens it, counting each opening."""

    def __init__(self, db: Path):
        self.db, self.names = db, []

    def __call__(self, name: str) -> AbstractContextManager[Run]:
        self.names.append(name)
        return open_campaign_run(str(self.db), name, progress=lambda _: None)


@pytest.fixture
def ui(waiting: Path) -> Iterator[tuple[httpx.Client, Openings, OverviewServer]]:
    openings = Openings(waiting)
    site = OverviewSite(db_path=waiting, out_root=waiting.parent, read_status=campaign_status, open_run=openings,
                        read_run=lambda name: ledger_run(str(waiting), name), reviewer="ann")
    with site.opened, OverviewServer(site) as server, httpx.Client(base_url=server.url, timeout=120) as client:
        assert client.get(f"/?token={site.login_token}").status_code == 303
        yield client, openings, server


def _state_file(db: Path) -> Path:
    [row] = Store(db).rows("SELECT config_json FROM campaigns WHERE name = ?", [NAME])
    return Path(json.loads(row["config_json"])["sim_state"])


def _decide(client: httpx.Client, server: OverviewServer, page: str) -> str:
    """Approve the page's first open assignment card; the page it comes back to."""
    card = next(c for c in re.findall(r'<section class="card open".*?</section>', page, re.S) if 'class="approve"' in c)
    fields = form_fields(card, "approve")
    sent = client.post(f"{QUEUE}decide", data=fields, headers={"origin": server.url})
    assert sent.status_code == 303
    return client.get(sent.headers["location"].replace("./", QUEUE)).text


def test_the_queue_renders_without_its_simulator_which_opens_once_when_a_decision_is_sent(
        waiting: Path, ui: tuple[httpx.Client, Openings, OverviewServer]) -> None:
    client, openings, server = ui
    state = _state_file(waiting)
    away = state.with_name(state.name + ".away")
    state.rename(away)  # the simulator cannot be opened now: the page still shows the queue
    try:
        page = client.get(QUEUE)
        assert page.status_code == 200 and page.text.count('<section class="card') >= 2
        assert openings.names == []  # reading the queue opened nothing
        refused = _decide(client, server, page.text)
        assert "not sent" in refused and "is gone" in refused  # the platform could not be opened: said so
        assert Store(waiting).rows("SELECT * FROM review_actions") == []
    finally:
        away.rename(state)
    assert openings.names == [NAME]
    page = client.get(QUEUE).text
    after = _decide(client, server, page)
    assert "sent: approve" in after
    again = _decide(client, server, after)  # another card's decision: the platform is open already
    assert "sent: approve" in again
    assert openings.names == [NAME, NAME]  # the failed attempt, then one opening for both decisions
    sent = Store(waiting).rows("SELECT action, reviewer FROM review_actions ORDER BY id")
    assert sent == [{"action": "approve", "reviewer": "ann"}] * 2


def test_a_long_queue_comes_a_page_of_cards_at_a_time(waiting: Path, ui: tuple[httpx.Client, Openings, OverviewServer],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    client, openings, _ = ui
    whole = client.get(f"{QUEUE}?page=1").text
    items = re.findall(r'data-item="([^"]+)"', whole)
    assert len(items) >= 2 and 'id="pages"' not in whole  # one page holds the small queue
    monkeypatch.setattr(review_cards, "PAGE_CARDS", 1)
    pages, seen = len(items), []
    for n in range(1, pages + 1):
        page = client.get(f"{QUEUE}?page={n}").text
        seen += re.findall(r'data-item="([^"]+)"', page)
        assert f"(page {n} of {pages})" in page
        assert ('rel="next"' in page) == (n < pages) and ('rel="prev"' in page) == (n > 1)
    assert seen == items  # every card once, in the queue's order
    beyond = client.get(f"{QUEUE}?page={pages + 5}").text
    assert re.findall(r'data-item="([^"]+)"', beyond) == items[-1:]  # the last page
    bad = client.get(f"{QUEUE}?page=x1")
    assert bad.status_code == 400 and "is not a page number" in bad.text and "Traceback" not in bad.text
    assert openings.names == []


def test_a_busy_workers_card_shows_some_of_their_captions_own_first_and_says_how_many(waiting: Path) -> None:
    store = Store(waiting)
    [busy] = store.rows("SELECT batch, worker_id, count(*) AS n FROM assignments WHERE campaign = ? GROUP BY batch, "
                        "worker_id ORDER BY n DESC, worker_id LIMIT 1", [NAME])
    assert busy["n"] >= 2  # a worker who did more than one assignment in the batch
    every = worker_captions(store, NAME, busy["batch"], busy["worker_id"])  # all, in the ledger's order
    last = every[-1]["assignment_id"]
    most = sum(c["assignment_id"] == last for c in every) + 1  # the last assignment's captions and one more
    [(shown, assignments)] = card_captions(store, NAME, [(busy["batch"], busy["worker_id"], last)], most)
    own_first = [c for c in every if c["assignment_id"] == last] + [c for c in every if c["assignment_id"] != last]
    assert shown == own_first[:most] and len(shown) < len(every)
    assert assignments == busy["n"]
    [(whole, _)] = card_captions(store, NAME, [(busy["batch"], busy["worker_id"], "")], len(every))
    assert whole == every  # no own assignment (a worker's card), room for all: the ledger's order

    [flagged] = store.rows("SELECT batch, worker_id, count(*) AS n FROM qc_flags WHERE campaign = ? AND batch > 0 "
                           "AND worker_id != '' GROUP BY batch, worker_id ORDER BY n DESC, worker_id LIMIT 1", [NAME])
    flags = item_flags(store, NAME, flagged["batch"], flagged["worker_id"])
    assert card_flags(store, NAME, flagged["batch"], flagged["worker_id"], "", len(flags)) == (flags, len(flags))
    some, raised = card_flags(store, NAME, flagged["batch"], flagged["worker_id"], "", 1)
    assert raised == len(flags) and len(some) == 1 and some[0] in flags


def test_a_card_says_how_many_assignments_its_captions_come_from(
        waiting: Path, ui: tuple[httpx.Client, Openings, OverviewServer], monkeypatch: pytest.MonkeyPatch) -> None:
    client, _, _ = ui
    monkeypatch.setattr(review_cards, "CARD_ROWS", 1)
    store = Store(waiting)
    cards = re.findall(r'<section class="card .*?</section>', client.get(f"{QUEUE}?page=1").text, re.S)
    busy = 0
    for card in cards:
        batch = int(re.search(r"&middot; batch (\d+) &middot;", card)[1])
        worker = re.search(r'<code class="worker">([^<]+)</code>', card)[1]
        did = store.rows("SELECT count(*) AS n FROM assignments WHERE campaign = ? AND batch = ? AND worker_id = ?",
                         [NAME, batch, worker])[0]["n"]
        assert card.count('<figure class="answer') == 1
        assert (f"the captions of 1 of the {did} assignments this worker" in card) == (did > 1)
        busy += did > 1
    assert busy  # a card of a worker with more than one assignment in its batch said so
