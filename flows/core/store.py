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

from flows.core.campaign_lock import hold_campaign_lock
from flows.core.ledger_db import LedgerDatabase
from flows.core.store_migrations import migrations

DEFAULT_DB = Path("runs/hitflow.db")
BEGIN_ATTEMPTS = 6  # a writer waits up to a minute for the ledger before it gives up
SETTLED = ("ok", "adopted")  # ledger states after which a call is never made again
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
    from flows.core.errors import ConfigError

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
        for attempt in range(BEGIN_ATTEMPTS):  # each waits busy_timeout (10 s) for the write lock
            try:
                conn.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as exc:
                # Nothing was done yet, so waiting longer is safe: 200 participants submitting at
                # once on a loaded 2-core machine queued past one busy timeout (a 500 to a person).
                if "locked" not in str(exc) or attempt == BEGIN_ATTEMPTS - 1:
                    raise
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
