"""The SQLite ledger: one file, WAL mode, every writer taking the write lock up front."""

from __future__ import annotations

import datetime
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import sqlite_utils

from flows.core.ledger.campaign_lock import hold_campaign_lock, live_holder
from flows.core.ledger.store_base import DEFAULT_DB, Store
from flows.core.ledger.store_migrations import migrations

BEGIN_ATTEMPTS = 6  # a writer waits up to a minute for the ledger before it gives up


# Every sqlite-utils transaction BEGIN IMMEDIATE: in WAL mode a read transaction that then writes after another
# process committed is refused at once ("database is locked"), without waiting on the busy timeout.
class LedgerDatabase(sqlite_utils.Database):
    @contextmanager
    def atomic(self) -> Iterator[sqlite_utils.Database]:  # type: ignore[override]
        if self.conn.in_transaction:  # nested: sqlite-utils' savepoint
            with super().atomic() as db:
                yield db
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            self.rollback()  # a no-op when the error already ended the transaction
            raise
        try:
            self.conn.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise


@lru_cache(maxsize=2)
def migrated_schema(names: tuple[str, ...]) -> tuple[str, ...]:
    """The CREATE statements the migrations ``names`` (all there are) leave, tables first: ~5 ms, not 26, a ledger."""
    db = sqlite_utils.Database(memory=True)
    migrations.apply(db)
    return tuple(sql for (sql,) in db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT "
                                              "LIKE 'sqlite_%' ORDER BY type != 'table', type = 'trigger', rowid"))


class SqliteStore(Store, scheme="sqlite"):
    def __init__(self, path: str | Path = DEFAULT_DB):
        self.path = Path(path)
        self.location = self.path
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = LedgerDatabase(self.path)
        self._tables: dict[str, sqlite_utils.db.Table] = {}
        self.db.execute("PRAGMA busy_timeout=10000")  # before WAL: switching modes needs the lock
        self._use_wal()
        # WAL + NORMAL: a commit survives the process dying without an fsync per commit.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self._migrate()

    def _use_wal(self) -> None:
        """WAL mode, retried briefly (switching while others open the file fails at once)."""
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
        """Pending migrations under a write lock taken up front (WAL refuses two upgrading readers); a new file is
        given the schema they end in at once (:func:`migrated_schema`), with each recorded as applied."""
        if not (pending := tuple(m.name for m in migrations.pending(self.db))):
            return
        with self.immediate():
            if self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                migrations.apply(self.db)
            else:
                for sql in migrated_schema(pending):
                    self.db.execute(sql)
                now = str(datetime.datetime.now(datetime.UTC))  # as sqlite-utils records one applied
                self.insert_raw(migrations.migrations_table, [{"migration_set": migrations.name, "name": name,
                                                               "applied_at": now} for name in pending])

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One BEGIN ... COMMIT around the block (each sqlite-utils write in ``with conn:`` commits)."""
        with self.db.atomic():
            yield

    @contextmanager
    def immediate(self) -> Iterator[None]:
        """A write transaction taken up front (``BEGIN IMMEDIATE``), across threads and processes."""
        conn = self.db.conn
        for attempt in range(BEGIN_ATTEMPTS):  # each waits busy_timeout (10 s) for the write lock
            try:
                conn.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as exc:
                # Nothing was done yet, so waiting longer is safe (a burst of submissions outlasts one busy timeout).
                if "locked" not in str(exc) or attempt == BEGIN_ATTEMPTS - 1:
                    raise
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def insert_raw(self, table: str, rows: list[dict[str, Any]], conflict: str = "ABORT") -> None:
        """Plain ``INSERT OR <conflict>`` rows for use inside :meth:`immediate`."""
        for row in rows:
            cols = ", ".join(f"[{c}]" for c in row)
            self.db.conn.execute(f"INSERT OR {conflict} INTO [{table}] ({cols}) VALUES "
                                 f"({', '.join('?' * len(row))})", list(row.values()))

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cursor = self.db.conn.execute(sql, params)  # not db.query: it wraps each read in a savepoint (~2x the cost)
        keys = sqlite_utils.db.dedupe_keys(d[0] for d in cursor.description or ())  # as query() names them
        return [dict(zip(keys, row, strict=True)) for row in cursor]

    def _row_pages(self, sql: str, params: Sequence[Any], page: int) -> Iterator[list[tuple[Any, ...]]]:
        cursor = self.db.execute(sql, list(params))
        try:
            while chunk := cursor.fetchmany(page):
                yield chunk
        finally:
            cursor.close()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        if self.db.conn.in_transaction:
            self.db.conn.execute(sql, params)
            return
        with self.db.atomic():
            self.db.conn.execute(sql, params)

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        with self.db.atomic():
            self.db.conn.executemany(sql, params)

    def table(self, name: str) -> sqlite_utils.db.Table:  # kept: db.table() asks sqlite_master for views each call
        return self._tables[name] if name in self._tables else self._tables.setdefault(name, self.db.table(name))

    def campaign_lock(self, campaign: str) -> AbstractContextManager[None]:
        return hold_campaign_lock(self.db, campaign)

    def live_holder(self, campaign: str, others_only: bool = True) -> str | None:
        return live_holder(self.db, campaign, others_only)

    def applied_migrations(self) -> list[str]:
        return [m.name for m in migrations.applied(self.db)]

    def table_names(self) -> list[str]:
        return list(self.db.table_names())

    def close(self) -> None:
        self.db.close()
