"""The review queue kept between two asks of the overview (flows/campaigns/queue_cache.py):
what every view shows from it equals a queue built afresh, on an unchanged ledger and after each kind of
change the queue reads (a person's decision, an assignment's status set in place), and its countdown moves
with the clock."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from flows.campaigns.queue_cache import fingerprint
from flows.campaigns.review_data import applied_work, campaign_queue, ledger_state
from flows.campaigns.review_rows import ledger_now
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.sim.service.server import SimServer
from qc.campaign_state import item_states
from tests.review_helpers import review_config, run_until_review

NAME = "vizwiz_captions"


def afresh(store: Store, config: Path, now: float) -> pd.DataFrame:
    """The items with their state, from a queue built now (no cache), as ledger_state computes them."""
    cfg = load_config(config)
    return item_states(campaign_queue(store, NAME, cfg.policy, cfg.review, now), applied_work(store, NAME),
                       cfg.review, now)


def same(kept: pd.DataFrame, fresh: pd.DataFrame) -> None:
    assert kept.drop(columns="seconds_left").equals(fresh.drop(columns="seconds_left"))
    assert all(math.isclose(a, b, abs_tol=1e-6) or (math.isnan(a) and math.isnan(b))
               for a, b in zip(kept["seconds_left"], fresh["seconds_left"], strict=True))


def test_a_kept_queue_equals_a_fresh_one_until_and_after_the_ledger_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config, db = review_config(tmp_path), tmp_path / "h.db"
    with SimServer(seed=5) as sim:
        assert run_until_review(config, sim.url, db, tmp_path)  # a batch waits for a person
    store = Store(db)
    now = ledger_now(store, NAME)
    first = ledger_state(store, NAME, now)
    assert first[0]["open"] > 1  # work for a person: the queue is not trivially empty
    before = fingerprint(store, NAME)
    later = now + 600.0  # the page reloads later on an unchanged ledger: kept, its countdown moved
    again = ledger_state(store, NAME, later)
    assert fingerprint(store, NAME) == before and again[0] == ledger_state(store, NAME, later)[0]
    same(again[1], afresh(store, config, later))
    # a person decides one open item: the next ask sees it
    item = again[1][again[1]["state"] == "open"].iloc[0]
    store.insert_raw("review_actions", [{"campaign": NAME, "batch": int(item["batch"]), "worker_id": item["worker_id"],
                                         "assignment_id": item["assignment_id"], "image_id": "", "action": "approve",
                                         "reason": "", "reviewer": "t", "decided_at": now, "idem_key": "t1"}])
    assert fingerprint(store, NAME) != before
    decided = ledger_state(store, NAME, later)
    assert decided[0]["open"] == first[0]["open"] - 1 and decided[0]["person"] == first[0]["person"] + 1
    same(decided[1], afresh(store, config, later))
    # an assignment's status set in place (the platform settled it): a row count alone would not see it
    changed = fingerprint(store, NAME)
    store.execute("UPDATE assignments SET status = 'Approved' WHERE assignment_id = ?", [item["assignment_id"]])
    assert fingerprint(store, NAME) != changed
    same(ledger_state(store, NAME, later)[1], afresh(store, config, later))
