"""The review queue's items' states kept in the ledger for ``hitflow status`` (flows/campaigns/kept_states.py):
a run that stops for a person keeps them; what status shows from them equals the state
computed from a queue built afresh, before and after a person decides and when the config's text changes;
and status on such a campaign prints the same lines as with nothing kept, without importing pandas."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flows.campaigns.campaign_needs import needs_state
from flows.campaigns.kept_states import keep_items, kept_items, settings_key
from flows.campaigns.queue_cache import fingerprint
from flows.campaigns.review_data import applied_work, campaign_queue
from flows.campaigns.review_rows import applied_rows, held_rows, ledger_now
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.driver.operations import ledger_run
from flows.review.review_cards import queue_cards
from flows.sim.service.server import SimServer
from qc.campaign_state import campaign_state, item_states
from tests.review_helpers import review_config, run_until_review

NAME = "vizwiz_captions"
REPO = Path(__file__).resolve().parents[1]
HEAVY = {"pandas", "numpy", "pyarrow", "pydantic", "jinja2", "scipy", "sklearn", "prefect", "boto3", "psycopg"}

_STATUS = """
import contextlib, io, json, sys
from flows.cli.main import main

with contextlib.redirect_stdout(io.StringIO()) as shown:
    code = main(["status", "--db", sys.argv[1]])
with contextlib.redirect_stdout(io.StringIO()) as as_json:
    code_json = main(["status", "--db", sys.argv[1], "--json"])
print(json.dumps({{"code": code + code_json, "shown": shown.getvalue(), "json": json.loads(as_json.getvalue()),
                  "loaded": sorted({{m.split(".")[0] for m in sys.modules}} & {heavy})}}))
"""


def afresh(store: Store, config: Path, now: float) -> dict[str, Any]:
    """The campaign's state from a queue built now from the loaded config (nothing kept is read)."""
    cfg = load_config(config)
    items = item_states(campaign_queue(store, NAME, cfg.policy, cfg.review, now), applied_work(store, NAME),
                        cfg.review, now)
    return campaign_state(items[["batch", "state"]].to_dict("records"), applied_rows(store, NAME),
                          held_rows(store, NAME), now)


def status_child(db: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _STATUS.format(heavy=HEAVY), str(db)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = json.loads(done.stdout)
    assert seen["code"] == 0
    return seen


def test_kept_states_equal_a_fresh_queue_and_status_reads_them_without_pandas(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config, db = review_config(tmp_path), tmp_path / "h.db"
    with SimServer(seed=5) as sim:
        assert run_until_review(config, sim.url, db, tmp_path, limit=10)  # a batch waits for a person
    store = Store(db)
    now = ledger_now(store, NAME)
    key = settings_key(store, NAME)
    assert key is not None and kept_items(store, NAME, key) is not None  # the run kept them as it stopped
    fresh = afresh(store, config, now)
    assert fresh["open"] >= 1 and needs_state(store, NAME, now) == fresh
    # status in a fresh process: the kept states, no pandas; then with nothing kept (the queue built): same lines
    kept = status_child(db)
    assert kept["loaded"] == [], f"hitflow status on a reviewed campaign imported {kept['loaded']}"
    assert kept["json"][0]["needs"]["open"] == fresh["open"]
    store.execute("DELETE FROM kept_states")
    built = status_child(db)
    assert "pandas" in built["loaded"]  # this one really built the queue
    assert built["shown"] == kept["shown"] and built["json"] == kept["json"]
    assert kept_items(store, NAME, key) is not None  # and kept its states again
    # a person decides an open item: the kept states no longer answer, and the next ask equals a fresh queue
    queue = item_states(campaign_queue(store, NAME, load_config(config).policy, "flagged", now),
                        applied_work(store, NAME), "flagged", now)
    item = queue[queue["state"] == "open"].iloc[0]
    with store.immediate():  # committed: the review page reads the ledger on a connection of its own
        store.insert_raw("review_actions", [{
            "campaign": NAME, "batch": int(item["batch"]), "worker_id": item["worker_id"],
            "assignment_id": item["assignment_id"], "image_id": "", "reviewer": "t", "decided_at": now,
            "action": "approve" if item["kind"] == "assignment" else "block", "reason": "", "idem_key": "t1"}])
    assert kept_items(store, NAME, key) is None
    # the review page shown after the decision keeps the states its queue has (the config's file unchanged)
    run = ledger_run(str(db), NAME)  # as `hitflow ui` serves the queue: the ledger and config alone
    queue_cards(run, run.cfg.review, {}, now)
    assert kept_items(store, NAME, key) is not None
    decided = needs_state(store, NAME, now)  # read back, not built
    assert decided == afresh(store, config, now) and decided["open"] == fresh["open"] - 1
    # the config's text changes (here the review mode): the kept states are not read for it
    config.write_text(config.read_text().replace('review = "flagged"', 'review = "sample"'))
    assert settings_key(store, NAME) != key and kept_items(store, NAME, settings_key(store, NAME) or "") is None
    assert needs_state(store, NAME, now) == afresh(store, config, now)


def test_kept_items_round_trip_and_lapse_on_both_ledgers(ledger_location: str, tmp_path: Path) -> None:
    store = Store(ledger_location)  # SQLite and PostgreSQL (the upsert is one statement for both)
    config = tmp_path / "c.toml"
    config.write_text('[policy]\nreview = "flagged"\n')
    store.insert_raw("campaigns", [{"name": "c", "config_path": str(config), "config_json": "{}", "target": "sim",
                                    "created_at": 0.0, "status": "running"}])
    key = settings_key(store, "c")
    assert key is not None and kept_items(store, "c", key) is None  # nothing kept yet
    items = [{"batch": 2, "state": "open"}, {"batch": 1, "state": "rules"}, {"batch": 2, "state": "open"}]
    keep_items(store, "c", key, fingerprint(store, "c"), items)
    assert sorted(kept_items(store, "c", key) or [], key=str) == sorted(items, key=str)
    keep_items(store, "c", key, fingerprint(store, "c"), items[1:2])  # kept again: the newer replaces it
    assert kept_items(store, "c", key) == items[1:2]
    assert kept_items(store, "c", "another config") is None
    store.insert_raw("qc_flags", [{"campaign": "c", "batch": 1, "worker_id": "W", "rule": "r", "value": "",
                                   "threshold": "", "assignment_id": "A", "image_id": "", "detail": ""}])
    assert kept_items(store, "c", key) is None  # the rows the queue reads changed
    # the fingerprint's in-place columns, in each dialect (PostgreSQL has no total() or group_concat())
    store.insert_raw("assignments", [{"assignment_id": "A", "hit_id": "H", "campaign": "c", "batch": 1,
                                      "worker_id": "W", "status": "Submitted", "auto_approval_time": 5.0}])
    before = fingerprint(store, "c")
    store.execute("UPDATE assignments SET status = 'Approved' WHERE assignment_id = 'A'")
    assert fingerprint(store, "c") != before
    config.write_text('[policy]\nreview = "sample"\n')
    assert settings_key(store, "c") not in (None, key)


def test_a_file_the_config_names_moved_voids_the_key(tmp_path: Path) -> None:
    # load_config fails once its items file is gone, and then no queue is built (review_settings: "none"):
    # states kept for the config before must not answer for it
    (tmp_path / "items.csv").write_text("image_id,url\n")
    config = tmp_path / "c.toml"
    config.write_text('[campaign]\nitems = "items.csv"\nout = "runs"\n[policy]\nreview = "flagged"\n')
    store = Store(tmp_path / "h.db")
    store.insert_raw("campaigns", [{"name": "c", "config_path": str(config), "config_json": "{}", "target": "sim",
                                    "created_at": 0.0, "status": "running"}])
    key = settings_key(store, "c")
    (tmp_path / "runs").mkdir()  # the output folder appearing, or filling, leaves the key alone
    (tmp_path / "runs" / "log.txt").write_text("x")
    assert settings_key(store, "c") == key
    (tmp_path / "items.csv").rename(tmp_path / "moved.csv")
    assert settings_key(store, "c") != key
