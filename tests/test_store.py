"""The ledger's contract, on both backends (an SQLite file and a real PostgreSQL database, the
``ledger_location`` fixture): migrations recorded, intents written before calls, no secrets stored,
transactions whole or absent across kill -9, one writer at a time in ``immediate``, and a
campaign lock that a killed holder never wedges. SQLite-only details follow at the end."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import socket
import time
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from flows.cli.main import main
from flows.core.db_url import deployable_ledger, password_to_environment, shown_location
from flows.core.errors import CampaignBusyError, ConfigError
from flows.core.ledger.store import Store, migrations

TABLES = {"campaigns", "batches", "items", "hit_types", "hits", "assignments", "answers", "workers",
          "qualifications", "qc_flags", "decisions", "blocks", "ledger", "qualification_scores",
          "qualification_problems", "response_problems", "locks", "review_actions", "task_sessions", "worker_history",
          "kept_states", "ledger_changes"}
NAMES = ["m001_initial", "m002_campaign_locks", "m003_qualification_scores", "m004_task_server_and_studies",
         "m005_item_payloads", "m006_batch_shortfall", "m007_review_decisions", "m008_batch_windows",
         "m009_batch_holds", "m010_worker_history", "m011_batch_hold_page",
         "m012_kept_states", "m013_change_counts", "m014_records_by_marketplace",
         "m015_campaign_marketplace"]
FORK = multiprocessing.get_context("fork")


def test_migrations_create_every_table_and_are_recorded(ledger_location: str) -> None:
    store = Store(ledger_location)
    assert set(store.table_names()) >= TABLES
    assert store.applied_migrations() == NAMES
    assert Store(ledger_location).applied_migrations() == NAMES  # reopening applies nothing twice


def test_intend_is_written_once_and_settled(ledger_location: str) -> None:
    store = Store(ledger_location)
    first = store.intend("c", 1, "CreateHIT", "k", {"Reward": "0.50"})
    second = store.intend("c", 1, "CreateHIT", "k", {"Reward": "9.99"})
    assert first["id"] == second["id"] and json.loads(second["params"]) == {"Reward": "0.50"}
    assert first["status"] == "intended"
    store.settle("k", "ok", {"HITId": "H"})
    entry = Store(ledger_location).ledger_entry("k")  # another connection sees it: committed
    assert entry is not None and entry["status"] == "ok" and json.loads(entry["result"]) == {"HITId": "H"}
    many = store.intend_all("c", 2, [("Op", "k", {}), ("Op", "k2", {"a": 1}), ("Op", "k3", {})])
    assert many["k"]["status"] == "ok" and many["k2"]["status"] == "intended"
    store.settle_all([("k2", "ok", {"n": 2}), ("k3", "adopted", None)])
    assert {r["idem_key"]: r["status"] for r in store.rows("SELECT idem_key, status FROM ledger")} == {
        "k": "ok", "k2": "ok", "k3": "adopted"}


def test_ledger_never_stores_secrets_or_page_bodies(ledger_location: str) -> None:
    store = Store(ledger_location)
    store.intend("c", 1, "Op", "k", {"aws_secret_access_key": "SECRET", "Authorization": "Token SECRET",
                                     "Question": "<html>" + "x" * 5000, "Title": "t"})
    assert "SECRET" not in json.dumps(store.rows("SELECT * FROM ledger"))
    params = json.loads(store.ledger_entry("k")["params"])  # type: ignore[index]
    assert params == {"Question": "<5006 bytes>", "Title": "t"}


def test_the_row_api_behaves_alike(ledger_location: str) -> None:
    store = Store(ledger_location)
    store.table("batches").insert_all([{"campaign": "c", "batch": b, "status": "planned"} for b in (1, 2)])
    store.set_batch("c", 1, status="published", hold="rule x")  # upsert: other columns kept
    store.table("batches").upsert({"campaign": "c", "batch": 1, "hit_type_id": "T"}, pk=("campaign", "batch"))
    row = store.rows("SELECT * FROM batches WHERE campaign = ? AND batch = ?", ["c", 1])[0]
    assert (row["status"], row["hold"], row["hit_type_id"]) == ("published", "rule x", "T")
    assert store.batch_status("c", 2) == "planned" and store.batch_status("c", 9) == "planned"
    store.table("campaigns").insert({"name": "c", "status": "running", "created_at": 1.5})
    store.table("campaigns").update("c", {"status": "done"})
    assert store.table("campaigns").count_where("status = ?", ["done"]) == 1
    with store.transaction():
        store.insert_raw("workers", [{"worker_id": "w", "first_seen": 1.0}])
        store.insert_raw("workers", [{"worker_id": "w", "first_seen": 2.0}], "IGNORE")
        store.insert_raw("answers", [{"assignment_id": "a", "item_id": "i", "field": "f", "value": "1"}])
        store.insert_raw("answers", [{"assignment_id": "a", "item_id": "i", "field": "f", "value": "2"}], "REPLACE")
    assert store.rows("SELECT first_seen FROM workers") == [{"first_seen": 1.0}]
    assert store.rows("SELECT value FROM answers") == [{"value": "2"}]
    store.table("items").insert_all([{"campaign": "c", "item_id": i, "batch": 1, "hit_index": 0} for i in "zyx"])
    assert [r["item_id"] for r in store.rows("SELECT item_id FROM items ORDER BY rowid")] == ["z", "y", "x"]
    assert store.rows("SELECT count(*) AS n, sum(batch) AS s FROM items WHERE item_id LIKE ?", ["%"]) == [
        {"n": 3, "s": 3}]


def test_insert_or_replace_replaces_the_whole_row_and_upsert_keeps_the_rest(ledger_location: str) -> None:
    # SQLite's INSERT OR REPLACE deletes the old row and inserts the new one: the columns not given
    # are NULL or their default again, and the row moves to the end of rowid order (which the flows
    # read in). PostgreSQL once updated only the given columns in place.
    store = Store(ledger_location)
    full = {"status": "published", "hold": "rule x", "shortfall": "2 short"}
    store.table("batches").insert_all([{"campaign": "c", "batch": b, **full} for b in (1, 2, 3)])
    store.table("batches").insert_all([{"campaign": "c", "batch": 1, "status": "planned"}], replace=True)
    with store.transaction():
        store.insert_raw("batches", [{"campaign": "c", "batch": 2, "status": "collected"}], "REPLACE")
    store.table("batches").upsert({"campaign": "c", "batch": 3, "status": "decided"}, pk=("campaign", "batch"))
    shown = "SELECT batch, status, hold, shortfall FROM batches ORDER BY rowid"
    assert store.rows(shown) == [{"batch": 3, "status": "decided", "hold": "rule x", "shortfall": "2 short"},
                                 {"batch": 1, "status": "planned", "hold": None, "shortfall": ""},
                                 {"batch": 2, "status": "collected", "hold": None, "shortfall": ""}]


def test_insert_or_replace_deletes_the_rows_any_unique_index_conflicts_with(ledger_location: str) -> None:
    """SQLite's REPLACE deletes every row the new one conflicts with, on the primary key or on any other
    unique index (hits: campaign, batch, hit_index); PostgreSQL once raised on the other index."""
    store = Store(ledger_location)
    store.table("hits").insert_all([{"hit_id": h, "campaign": "c", "batch": 1, "hit_index": i, "status": "open"}
                                    for i, h in enumerate(["A", "B", "C"])])
    store.table("hits").insert_all([{"hit_id": "D", "campaign": "c", "batch": 1, "hit_index": 0}], replace=True)
    with store.transaction():  # the same index and the primary key at once: both rows go (B and C)
        store.insert_raw("hits", [{"hit_id": "C", "campaign": "c", "batch": 1, "hit_index": 1}], "REPLACE")
    store.insert_raw("hits", [{"hit_id": "E", "campaign": "c", "batch": 2, "hit_index": None}], "REPLACE")
    store.insert_raw("hits", [{"hit_id": "F", "campaign": "c", "batch": 2, "hit_index": None}], "REPLACE")
    shown = "SELECT hit_id, hit_index, status FROM hits ORDER BY rowid"
    assert store.rows(shown) == [{"hit_id": "D", "hit_index": 0, "status": None},
                                 {"hit_id": "C", "hit_index": 1, "status": None},
                                 {"hit_id": "E", "hit_index": None, "status": None},  # NULLs conflict with nothing
                                 {"hit_id": "F", "hit_index": None, "status": None}]


def _hold_then_die(location: str, campaign: str, ready: Any) -> None:
    with Store(location).campaign_lock(campaign):
        ready.set()
        time.sleep(120)  # killed long before


def test_campaign_lock_refuses_a_live_holder_and_outlives_a_killed_one(ledger_location: str) -> None:
    Store(ledger_location)  # migrated before the child races to it
    ready = FORK.Event()
    child = FORK.Process(target=_hold_then_die, args=(ledger_location, "c", ready))
    child.start()
    try:
        assert ready.wait(60)
        mine = Store(ledger_location)
        assert mine.live_holder("c") == f"{socket.gethostname()}:{child.pid}"
        with pytest.raises(CampaignBusyError, match=f"is being run by .*:{child.pid}"), mine.campaign_lock("c"):
            pass
        with mine.campaign_lock("other"):  # different campaigns run at once
            assert mine.live_holder("other") is None and mine.live_holder("other", others_only=False)
    finally:
        os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
        child.join(30)
    deadline = time.monotonic() + 10  # PostgreSQL ends the killed client's session when its socket closes
    while mine.live_holder("c") and time.monotonic() < deadline:
        time.sleep(0.05)
    with mine.campaign_lock("c"):
        assert mine.live_holder("c", others_only=False) == f"{socket.gethostname()}:{os.getpid()}"
    assert Store(ledger_location).table("locks").count == 0


def _write_then_die(location: str, ready: Any) -> None:
    store = Store(location)
    with store.transaction():
        store.table("decisions").insert_all([{"assignment_id": f"A{i}", "campaign": "c", "batch": 1,
                                              "action": "approve"} for i in range(50)])
        store.set_batch("c", 1, status="decided")
        ready.set()
        time.sleep(120)  # killed inside the transaction


def test_a_transaction_killed_midway_leaves_nothing(ledger_location: str) -> None:
    Store(ledger_location)
    ready = FORK.Event()
    child = FORK.Process(target=_write_then_die, args=(ledger_location, ready))
    child.start()
    assert ready.wait(60)
    os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
    child.join(30)
    store = Store(ledger_location)
    assert store.table("decisions").count == 0 and store.batch_status("c", 1) == "planned"


def _count_then_insert(location: str, rounds: int, results: Any) -> None:
    store = Store(location)
    try:
        for _ in range(rounds):
            with store.immediate():  # read, then write what was read: no other writer in between
                n = store.table("workers").count
                store.insert_raw("workers", [{"worker_id": f"w{n}", "first_seen": time.time()}])
        results.put("ok")
    except Exception as exc:  # the parent reports it
        results.put(f"{type(exc).__name__}: {exc}")


def test_immediate_blocks_of_different_processes_never_interleave(ledger_location: str) -> None:
    Store(ledger_location)
    results = FORK.Queue()
    procs = [FORK.Process(target=_count_then_insert, args=(ledger_location, 15, results)) for _ in range(3)]
    for proc in procs:
        proc.start()
    outcomes = [results.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(60)
    assert outcomes == ["ok"] * 3
    assert Store(ledger_location).table("workers").count == 45


def _open_store(location: str, barrier: Any, results: Any) -> None:
    barrier.wait()  # every process opens the new ledger at the same moment
    try:
        Store(location).rows("SELECT count(*) AS n FROM campaigns")
        results.put("ok")
    except Exception as exc:  # the parent process reports what went wrong
        results.put(f"{type(exc).__name__}: {exc}")


def test_processes_opening_a_new_ledger_at_once_all_get_the_migrated_store(ledger_location: str) -> None:
    # A schedule's run and `hitflow status` (or the schedule test's poll) open the ledger together.
    # Before migrations took the write lock up front, about half of such opens of a new SQLite
    # file failed at once with "database is locked".
    barrier, results = FORK.Barrier(3), FORK.Queue()
    procs = [FORK.Process(target=_open_store, args=(ledger_location, barrier, results)) for _ in range(3)]
    for proc in procs:
        proc.start()
    outcomes = [results.get(timeout=60) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
    assert outcomes == ["ok"] * 3, outcomes
    assert Store(ledger_location).applied_migrations() == NAMES


# PostgreSQL only ----------------------------------------------------------------------------
def test_a_password_in_the_url_is_never_shown(pg_url: str) -> None:
    with_password = pg_url.replace("://hitflow@", "://hitflow:Sup3rS3cret@")
    store = Store(with_password)  # trust auth: the password is not checked, only carried
    assert "Sup3rS3cret" not in store.shown() and store.shown().startswith("postgresql://hitflow:***@")
    wrong = with_password.rsplit("/", 1)[0] + "/no_such_database"
    with pytest.raises(ConfigError) as caught:
        Store(wrong)
    assert "Sup3rS3cret" not in str(caught.value) and "no_such_database" in str(caught.value)


def test_a_url_is_shown_and_deployed_without_its_password(tmp_path: Path) -> None:
    assert shown_location("postgresql://u:pw@db:5433/x?password=pw") == "postgresql://u:***@db:5433/x?***"
    assert shown_location("postgresql://u@db/x") == "postgresql://u@db/x" and shown_location("a/h.db") == "a/h.db"
    assert deployable_ledger("postgresql://u@db/x") == "postgresql://u@db/x"  # the same URL for every worker
    assert deployable_ledger(str(tmp_path / "h.db")) == str((tmp_path / "h.db").resolve())
    with pytest.raises(ConfigError, match="PGPASSWORD") as refused:
        deployable_ledger("postgresql://u:pw@db/x")  # Prefect would store and show it
    assert "pw@" not in str(refused.value)


def test_the_cli_moves_a_url_password_to_pgpassword(pg_url: str, monkeypatch, capsys) -> None:
    monkeypatch.setenv("PGPASSWORD", "")
    monkeypatch.delenv("PGPASSWORD")  # absent now, and put back as it was after the test
    assert password_to_environment("postgresql://u:p%40ss@db:5433/x") == "postgresql://u@db:5433/x"
    assert os.environ["PGPASSWORD"] == "p@ss"  # libpq's own variable, decoded as libpq decodes the URL
    config = Path(__file__).resolve().parents[1] / "config" / "vizwiz_captions.toml"
    Store(pg_url).table("campaigns").insert({"name": "vizwiz_captions", "status": "running", "created_at": 0.0,
                                             "config_path": str(config), "config_json": "{}", "target": "sim"})
    assert main(["status", "--db", pg_url.replace("://hitflow@", "://hitflow:Sup3rS3cret@")]) == 0
    shown = capsys.readouterr()
    assert "vizwiz_captions (stopped)" in shown.out and "Sup3rS3cret" not in shown.out + shown.err


# SQLite only --------------------------------------------------------------------------------
def test_an_older_file_is_upgraded_in_place(tmp_path: Path) -> None:
    old = sqlite_utils.Database(tmp_path / "h.db")
    migrations.apply(old, stop_before="m002_campaign_locks")
    old.table("ledger").insert({"campaign": "c", "batch": 1, "operation": "Op", "idem_key": "k", "params": "{}",
                                "status": "ok", "result": "", "error": "", "created_at": 0.0, "updated_at": 0.0})
    old.table("batches").insert({"campaign": "c", "batch": 1, "status": "held"})
    old.table("batches").add_column("hold", str)  # what alter=True made before m009
    old.close()
    store = Store(tmp_path / "h.db")
    assert "locks" in store.table_names() and store.ledger_entry("k") is not None
    assert store.db["items"].columns_dict["payload"] is str  # type: ignore[attr-defined]  # m005
    assert {"hold", "hold_release"} <= set(store.db["batches"].columns_dict)  # type: ignore[attr-defined]


def _schema(db: sqlite_utils.Database) -> dict[str, object]:
    """Every table's, index's and trigger's definition, as SQLite reads it back (columns, keys, defaults)."""
    named = db.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%'").fetchall()
    tables = [name for kind, name, _ in named if kind == "table"]
    return {"sql": sorted(named), **{t: (db.execute(f'PRAGMA table_xinfo("{t}")').fetchall(),
                                        db.execute(f'PRAGMA index_list("{t}")').fetchall()) for t in tables}}


def test_a_new_file_has_the_schema_the_migrations_make_one_by_one(tmp_path: Path) -> None:
    stepwise = sqlite_utils.Database(tmp_path / "stepwise.db")
    migrations.apply(stepwise)
    new = Store(tmp_path / "new.db")
    assert _schema(new.db) == _schema(stepwise)  # type: ignore[attr-defined]
    assert new.applied_migrations() == NAMES
    new.table("assignments").insert({"campaign": "c", "assignment_id": "A"})  # a trigger counts the write
    assert new.rows("SELECT changes FROM ledger_changes") == [{"changes": 1}]


def test_sqlite_lock_holder_on_this_host_is_checked_by_pid(tmp_path: Path) -> None:
    store = Store(tmp_path / "h.db")
    with store.campaign_lock("c"):
        store.table("locks").update("c", {"holder": f"{socket.gethostname()}:1"})  # pid 1 is alive
        with pytest.raises(CampaignBusyError, match="is being run by"), Store(tmp_path / "h.db").campaign_lock("c"):
            pass
        store.table("locks").update("c", {"holder": f"{socket.gethostname()}:999999999"})  # gone: taken over
        with Store(tmp_path / "h.db").campaign_lock("c"):
            assert store.table("locks").count == 1
    assert Store(tmp_path / "h.db").table("locks").count == 0


def test_secrets_are_not_in_the_sqlite_files(tmp_path: Path) -> None:
    Store(tmp_path / "h.db").intend("c", 1, "Op", "k", {"aws_secret_access_key": "SECRET", "Title": "t"})
    raw = (tmp_path / "h.db").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("h.db-*"))
    assert b"SECRET" not in raw
