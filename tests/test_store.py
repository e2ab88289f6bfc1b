"""The SQLite ledger: migrations, intents written before calls, no secrets stored."""

from __future__ import annotations

import json
import multiprocessing
import socket
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from flows.core.errors import CampaignBusyError
from flows.core.store import Store, migrations


def test_migrations_create_every_table_and_are_recorded(tmp_path: Path) -> None:
    store = Store(tmp_path / "x" / "h.db")
    assert {"campaigns", "batches", "items", "hit_types", "hits", "assignments", "answers", "workers",
            "qualifications", "qc_flags", "decisions", "blocks", "ledger", "qualification_scores",
            "qualification_problems", "response_problems"} <= set(store.db.table_names())
    names = ["m001_initial", "m002_campaign_locks", "m003_qualification_scores",
             "m004_task_server_and_studies", "m005_item_payloads", "m006_batch_shortfall",
             "m007_review_decisions", "m008_batch_windows"]
    assert [m.name for m in migrations.applied(store.db)] == names
    again = Store(tmp_path / "x" / "h.db")  # reopening applies nothing twice
    assert [m.name for m in migrations.applied(again.db)] == names


def test_an_older_file_is_upgraded_in_place(tmp_path: Path) -> None:
    old = sqlite_utils.Database(tmp_path / "h.db")
    migrations.apply(old, stop_before="m002_campaign_locks")
    old.table("ledger").insert({"campaign": "c", "batch": 1, "operation": "Op", "idem_key": "k", "params": "{}",
                                "status": "ok", "result": "", "error": "", "created_at": 0.0, "updated_at": 0.0})
    old.close()
    store = Store(tmp_path / "h.db")
    assert "locks" in store.db.table_names() and store.ledger_entry("k") is not None
    assert store.db["items"].columns_dict["payload"] is str  # m005 on a file that had no payloads


def test_campaign_lock_admits_one_live_holder(tmp_path: Path) -> None:
    store = Store(tmp_path / "h.db")
    with store.campaign_lock("c"):
        store.table("locks").update("c", {"holder": f"{socket.gethostname()}:1"})  # pid 1 is alive
        with pytest.raises(CampaignBusyError, match="is being run by"), Store(tmp_path / "h.db").campaign_lock("c"):
            pass
        store.table("locks").update("c", {"holder": f"{socket.gethostname()}:999999999"})  # gone: taken over
        with Store(tmp_path / "h.db").campaign_lock("c"):
            assert store.table("locks").count == 1
    assert Store(tmp_path / "h.db").table("locks").count == 0


def test_intend_is_written_once_and_settled(tmp_path: Path) -> None:
    store = Store(tmp_path / "h.db")
    first = store.intend("c", 1, "CreateHIT", "k", {"Reward": "0.50"})
    second = store.intend("c", 1, "CreateHIT", "k", {"Reward": "9.99"})
    assert first["id"] == second["id"] and json.loads(second["params"]) == {"Reward": "0.50"}
    assert first["status"] == "intended"
    store.settle("k", "ok", {"HITId": "H"})
    entry = store.ledger_entry("k")
    assert entry is not None and entry["status"] == "ok" and json.loads(entry["result"]) == {"HITId": "H"}


def test_ledger_never_stores_secrets_or_page_bodies(tmp_path: Path) -> None:
    store = Store(tmp_path / "h.db")
    store.intend("c", 1, "Op", "k", {"aws_secret_access_key": "SECRET", "Authorization": "Token SECRET",
                                     "Question": "<html>" + "x" * 5000, "Title": "t"})
    raw = (tmp_path / "h.db").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("h.db-*"))
    assert b"SECRET" not in raw
    params = json.loads(store.ledger_entry("k")["params"])
    assert params == {"Question": "<5006 bytes>", "Title": "t"}


def _open_store(path: str, barrier: Any, results: Any) -> None:
    barrier.wait()  # every process opens the new file at the same moment
    try:
        Store(path).rows("SELECT count(*) AS n FROM campaigns")
        results.put("ok")
    except Exception as exc:  # the parent process reports what went wrong
        results.put(f"{type(exc).__name__}: {exc}")


def test_processes_opening_a_new_file_at_once_all_get_the_migrated_store(tmp_path: Path) -> None:
    # A schedule's run and `hitflow status` (or the schedule test's poll) open the file together.
    # Before migrations took the write lock up front, about half of such opens failed at once
    # with "database is locked".
    ctx = multiprocessing.get_context("fork")
    for round_ in range(4):
        path, barrier, results = str(tmp_path / f"h{round_}.db"), ctx.Barrier(3), ctx.Queue()
        procs = [ctx.Process(target=_open_store, args=(path, barrier, results)) for _ in range(3)]
        for proc in procs:
            proc.start()
        outcomes = [results.get(timeout=60) for _ in procs]
        for proc in procs:
            proc.join(timeout=60)
        assert outcomes == ["ok"] * 3, outcomes
        assert len(migrations.applied(Store(path).db)) == len(migrations.pending(sqlite_utils.Database(":memory:")))
