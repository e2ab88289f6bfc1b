"""The SQLite ledger of a hitflow project (one file, default ``runs/hitflow.db``).

Every intended platform call is written before it is made, under a deterministic
idempotency key; every raw answer is stored before any decision. Schema changes go
through sqlite-utils migrations, so an old file is brought up to date on open.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import sqlite_utils
from sqlite_utils import Migrations

from flows.campaign_lock import hold_campaign_lock
from flows.ledger_db import LedgerDatabase

DEFAULT_DB = Path("runs/hitflow.db")
SETTLED = ("ok", "adopted")  # ledger states after which a call is never made again
migrations = Migrations("hitflow")


@migrations()
def m001_initial(db: sqlite_utils.Database) -> None:
    db.table("campaigns").create({"name": str, "config_path": str, "config_json": str, "target": str,
                            "created_at": float, "status": str}, pk="name")
    db.table("batches").create({"campaign": str, "batch": int, "status": str, "hit_type_id": str,
                          "cost_estimate": str, "updated_at": float}, pk=("campaign", "batch"))
    db.table("items").create({"campaign": str, "item_id": str, "file_name": str, "url": str, "batch": int,
                        "hit_index": int}, pk=("campaign", "item_id"))
    db.table("hit_types").create({"hit_type_id": str, "campaign": str, "batch": int, "params_json": str},
                                 pk="hit_type_id")
    db.table("hits").create({"hit_id": str, "campaign": str, "batch": int, "hit_index": int, "token": str,
                       "item_ids": str, "created_at": float, "status": str}, pk="hit_id")
    db.table("hits").create_index(["campaign", "batch", "hit_index"], unique=True)
    db.table("assignments").create({"assignment_id": str, "hit_id": str, "campaign": str, "batch": int,
                              "worker_id": str, "status": str, "accept_time": float, "submit_time": float,
                              "auto_approval_time": float, "answer_xml": str, "parse_error": str,
                              "fetched_at": float}, pk="assignment_id")
    db.table("answers").create({"assignment_id": str, "item_id": str, "field": str, "value": str},
                         pk=("assignment_id", "item_id", "field"))
    db.table("workers").create({"worker_id": str, "first_seen": float}, pk="worker_id")
    db.table("qualifications").create({"qualification_type_id": str, "campaign": str, "name": str,
                                 "purpose": str}, pk="qualification_type_id")
    db.table("qc_flags").create({"campaign": str, "batch": int, "worker_id": str, "rule": str, "value": str,
                           "threshold": str, "assignment_id": str, "image_id": str, "detail": str})
    db.table("qc_flags").create_index(["campaign", "batch"])
    db.table("decisions").create({"assignment_id": str, "campaign": str, "batch": int, "worker_id": str,
                            "action": str, "reasons": str, "review": int, "decided_at": float,
                            "applied": str}, pk="assignment_id")
    db.table("blocks").create({"campaign": str, "worker_id": str, "batch": int, "rules": str, "mode": str,
                         "applied": str}, pk=("campaign", "worker_id"))
    db.table("ledger").create({"id": int, "campaign": str, "batch": int, "operation": str, "idem_key": str,
                         "params": str, "status": str, "result": str, "error": str,
                         "created_at": float, "updated_at": float}, pk="id")
    db.table("ledger").create_index(["idem_key"], unique=True)


@migrations()
def m002_campaign_locks(db: sqlite_utils.Database) -> None:
    """At most one run per campaign: the holder's host and pid, and when it took the lock."""
    db.table("locks").create({"campaign": str, "holder": str, "acquired_at": float}, pk="campaign")


@migrations()
def m003_qualification_scores(db: sqlite_utils.Database) -> None:
    """Each worker's qualification-test score (overall and per section) and the test's answer problems."""
    db.table("qualification_scores").create({
        "campaign": str, "worker_id": str, "assignment_id": str, "mode": str, "answered": int, "correct": int,
        "score": float, "spelling_score": float, "grammar_score": float, "judging_score": float,
        "passed": int, "granted": int, "recorded_at": float}, pk=("campaign", "worker_id"))
    db.table("qualification_problems").create({"campaign": str, "worker_id": str, "item_id": str, "answer": str,
                                               "problem": str})


@migrations()
def m004_task_server_and_studies(db: sqlite_utils.Database) -> None:
    """Self-hosted delivery: a participant's session and its unit of items; Prolific studies per
    batch and every Prolific submission's state (paid or not)."""
    db.table("task_sessions").create({
        "session_id": str, "campaign": str, "batch": int, "unit": int, "item_ids": str, "participant_id": str,
        "study_id": str, "route": str, "created_at": float, "submitted_at": float, "completion_code": str,
        "released": int}, pk="session_id")
    db.table("task_sessions").create_index(["campaign", "batch", "unit"])
    db.table("studies").create({"study_id": str, "campaign": str, "batch": int, "status": str, "places": int,
                                "created_at": float}, pk="study_id")
    db.table("platform_submissions").create({
        "submission_id": str, "campaign": str, "batch": int, "study_id": str, "participant_id": str,
        "status": str, "started_at": float, "completed_at": float, "has_response": int, "outcome": str},
        pk="submission_id")


@migrations()
def m005_item_payloads(db: sqlite_utils.Database) -> None:
    """Evaluation studies' items carry more than an image: sentences, references, system pairs
    (JSON, what the page shows); and the per-response checks of their submit rules."""
    db.table("items").add_column("payload", str, not_null_default="")
    db.table("response_problems").create({"campaign": str, "assignment_id": str, "worker_id": str, "rule": str,
                                          "field": str, "detail": str})


@migrations()
def m006_batch_shortfall(db: sqlite_utils.Database) -> None:
    """What a batch's HITs closed without (JSON: hits, expected, got, short_hits), "" when complete."""
    db.table("batches").add_column("shortfall", str, not_null_default="")


@migrations()
def m007_review_decisions(db: sqlite_utils.Database) -> None:
    """What people decided on the review page (who, when, under which idempotency key), and the
    captions they struck from the dataset without rejecting the assignment."""
    db.table("review_actions").create({
        "id": int, "campaign": str, "batch": int, "worker_id": str, "assignment_id": str, "image_id": str,
        "action": str, "reason": str, "category": str, "amount": str, "reviewer": str, "decided_at": float,
        "idem_key": str, "ledger_key": str, "outcome": str}, pk="id")
    db.table("review_actions").create_index(["idem_key"], unique=True)
    db.table("review_actions").create_index(["campaign", "batch"])
    db.table("struck_captions").create({"campaign": str, "assignment_id": str, "image_id": str, "reviewer": str,
                                        "reason": str, "struck_at": float}, pk=("assignment_id", "image_id"))
    db.table("batches").add_column("review_note", str, not_null_default="")


@migrations()
def m008_batch_windows(db: sqlite_utils.Database) -> None:
    """When a batch opened (on the platform's clock), so a later run knows its deadline; places a
    closed study released from the committed budget."""
    db.table("batches").add_column("opened_at", float)
    db.table("studies").add_column("released", int, not_null_default=0)


SECRET_KEYS = {"aws_secret_access_key", "aws_session_token", "authorization", "token", "password"}


def _scrub(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters as stored: no secrets, and no multi-kilobyte page bodies."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key.lower() in SECRET_KEYS:
            continue
        if key == "Question" and isinstance(value, str):
            value = f"<{len(value)} bytes>"
        out[key] = value
    return out


SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite 3 file (sqlite.org/fileformat.html)


def existing_store(path: str | Path) -> Store:
    """The ledger at ``path`` for a command that only reads or acts on stored campaigns: a missing
    path, a folder or a file that is not SQLite is refused (one line) and no ledger is created."""
    from flows.errors import ConfigError

    path = Path(path)
    again = "pass --db with the ledger `hitflow run` wrote (default $HITFLOW_DB or runs/hitflow.db)"
    if not path.exists():
        raise ConfigError(f"no ledger at {path}: {again}")
    if path.is_dir():
        raise ConfigError(f"{path} is a folder, not a ledger: {again}")
    try:
        with path.open("rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise ConfigError(f"cannot read the ledger {path} ({exc.strerror or type(exc).__name__}): {again}") from exc
    if head and head != SQLITE_MAGIC:
        raise ConfigError(f"{path} is not a hitflow ledger (not an SQLite file): {again}")
    return Store(path)


class Store:
    def __init__(self, path: str | Path = DEFAULT_DB):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = LedgerDatabase(self.path)
        self.db.execute("PRAGMA busy_timeout=10000")  # before WAL: switching modes needs the lock
        self._use_wal()
        # WAL + NORMAL: a commit survives the process dying (what the ledger guards against)
        # without an fsync per commit, which made every small write cost milliseconds.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self._migrate()

    def _use_wal(self) -> None:
        """WAL mode, kept in the file once set. Switching a new file to it while other processes open
        the same file fails at once with "database is locked" (SQLite does not wait on the busy
        timeout for that lock), so the switch is retried briefly."""
        for attempt in range(40):
            try:
                if self.db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == 39:
                    raise
                time.sleep(min(0.01 * (attempt + 1), 0.25))

    def _migrate(self) -> None:
        """Pending migrations under a write lock taken up front. Two processes opening a new file
        at once (a schedule's run and ``hitflow status``) would otherwise both find them pending
        and both upgrade a read transaction to a write one, which WAL refuses at once with
        "database is locked" (no busy wait); under the lock the loser finds nothing pending."""
        if not migrations.pending(self.db):
            return
        with self.immediate():
            migrations.apply(self.db)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One BEGIN ... COMMIT around the block. ``with conn:`` alone is not one: each sqlite-utils
        write inside commits on its own, so a kill -9 could keep an assignment without its answers."""
        with self.db.atomic():
            yield

    @contextmanager
    def immediate(self) -> Iterator[None]:
        """A write transaction taken up front (``BEGIN IMMEDIATE``): a read-then-write in it sees
        no other writer in between, across threads and processes."""
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def insert_raw(self, table: str, rows: list[dict[str, Any]], conflict: str = "ABORT") -> None:
        """Plain ``INSERT OR <conflict>`` rows, for use inside :meth:`immediate` (sqlite-utils'
        own inserts commit on their way out, which would end that transaction early)."""
        for row in rows:
            cols = ", ".join(f"[{c}]" for c in row)
            self.db.conn.execute(f"INSERT OR {conflict} INTO [{table}] ({cols}) VALUES "
                                 f"({', '.join('?' * len(row))})", list(row.values()))

    # ledger ----------------------------------------------------------------------
    def ledger_entry(self, key: str) -> dict[str, Any] | None:
        rows = list(self.db["ledger"].rows_where("idem_key = ?", [key]))
        return rows[0] if rows else None

    def intend(self, campaign: str, batch: int, operation: str, key: str, params: dict[str, Any]) -> dict[str, Any]:
        """Write the intended call (once); returns the entry, which may already be settled."""
        existing = self.ledger_entry(key)
        if existing:
            return existing
        now = time.time()
        with self.transaction():
            self.table("ledger").insert({"campaign": campaign, "batch": batch, "operation": operation,
                                      "idem_key": key, "params": json.dumps(_scrub(params), default=str),
                                      "status": "intended", "result": "", "error": "",
                                      "created_at": now, "updated_at": now})
        entry = self.ledger_entry(key)
        assert entry is not None
        return entry

    def intend_all(self, campaign: str, batch: int, calls: list[tuple[str, str, dict[str, Any]]]
                   ) -> dict[str, dict[str, Any]]:
        """``intend`` for many ``(operation, key, params)`` in one transaction; entries by key."""
        keys = [key for _, key, _ in calls]
        known = {r["idem_key"]: r for chunk in range(0, len(keys), 500) for r in self.db.query(
            f"SELECT * FROM ledger WHERE idem_key IN ({','.join('?' * len(keys[chunk:chunk + 500]))})",
            keys[chunk:chunk + 500])}
        now = time.time()
        fresh = [{"campaign": campaign, "batch": batch, "operation": op, "idem_key": key,
                  "params": json.dumps(_scrub(params), default=str), "status": "intended", "result": "",
                  "error": "", "created_at": now, "updated_at": now}
                 for op, key, params in calls if key not in known]
        if fresh:
            with self.transaction():
                self.table("ledger").insert_all(fresh)
            known.update({r["idem_key"]: r for r in fresh})
        return known

    def settle_all(self, outcomes: list[tuple[str, str, Any]]) -> None:
        """``settle`` for many ``(key, status, result)`` in one transaction."""
        now = time.time()
        with self.transaction():
            self.db.conn.executemany(
                "UPDATE ledger SET status = ?, result = ?, error = '', updated_at = ? WHERE idem_key = ?",
                [(status, json.dumps(result, default=str) if result is not None else "", now, key)
                 for key, status, result in outcomes])

    def settle(self, key: str, status: str, result: Any = None, error: str = "") -> None:
        with self.transaction():
            self.db.execute("UPDATE ledger SET status = ?, result = ?, error = ?, updated_at = ? WHERE idem_key = ?",
                            [status, json.dumps(result, default=str) if result is not None else "",
                             error, time.time(), key])

    # batches ---------------------------------------------------------------------
    def batch_status(self, campaign: str, batch: int) -> str:
        rows = list(self.db["batches"].rows_where("campaign = ? AND batch = ?", [campaign, batch]))
        return (rows[0]["status"] if rows else None) or "planned"

    def set_batch(self, campaign: str, batch: int, **fields: Any) -> None:
        self.table("batches").upsert({"campaign": campaign, "batch": batch, "updated_at": time.time(), **fields},
                                  pk=("campaign", "batch"), alter=True)

    def campaign_lock(self, campaign: str) -> AbstractContextManager[None]:
        """Hold the campaign's lock for the block; a live holder elsewhere makes this fail."""
        return hold_campaign_lock(self.db, campaign)

    def table(self, name: str) -> sqlite_utils.db.Table:
        return self.db.table(name)

    def rows(self, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.query(sql, params)]
