"""The PostgreSQL ledger through psycopg 3, with SQLite's guarantees by advisory locks."""

from __future__ import annotations

import hashlib
import os
import socket
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.adapt import Loader
from psycopg.rows import dict_row, tuple_row

from flows.core.db_url import parsed_ledger, scrubbed, shown_location
from flows.core.errors import CampaignBusyError, ConfigError
from flows.core.ledger.pg_tables import PgSchema, PgTable, quoted
from flows.core.ledger.store_base import Store
from flows.core.ledger.store_migrations import migrations

LOCK_CLASS = 0x4846  # "HF": the first key of hitflow's two-key advisory locks (the second names what)
LEDGER_WRITE_KEY = 1  # immediate() blocks, as SQLite's one write lock
MIGRATE_KEY = 2  # one process at a time applies migrations
CONNECT_TIMEOUT_S = 10


class _NumericLoader(Loader):
    """NUMERIC as int or float, as SQLite returns them (not Decimal)."""

    def load(self, data: Any) -> Any:
        value = Decimal(bytes(data).decode())
        return int(value) if value == value.to_integral_value() else float(value)


def _plain(value: Any) -> Any:
    """A parameter as SQLite would take it: bools as 0/1, numpy scalars as Python numbers."""
    if isinstance(value, bool):
        return int(value)
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        return value.item()
    if isinstance(value, str) and "\x00" in value:
        # PostgreSQL's text cannot hold NUL: it is kept as U+FFFD, as the MTurk route keeps what XML cannot carry.
        return value.replace("\x00", "\ufffd")
    return value


def _dialect(sql: str) -> str:
    """SQLite's ``?`` placeholders as psycopg's ``%s`` (outside quoted text); a literal % doubled."""
    out, quote = [], ""
    for ch in sql:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "?":
            out.append("%s")
            continue
        out.append("%%" if ch == "%" else ch)
    return "".join(out)


def campaign_key(campaign: str) -> int:
    """The campaign lock's second advisory key: a stable 31-bit hash of the name."""
    return int.from_bytes(hashlib.blake2b(campaign.encode(), digest_size=4).digest(), "big") & 0x7FFFFFFF


class PgStore(Store, scheme="postgresql"):
    def __init__(self, url: str):
        self.location = url
        self._sql: dict[str, str] = {}
        self._pks: dict[str, list[str]] = {}
        self._uniques: dict[str, list[list[str]]] = {}
        self._columns: dict[str, list[str]] = {}
        ledger = parsed_ledger(url)
        secret = {"password": ledger.password} if ledger.password else {}  # where libpq reads it, not the URL
        try:
            self.conn = psycopg.connect(ledger.conninfo, autocommit=True, **secret, row_factory=dict_row,  # type: ignore[arg-type]
                                        connect_timeout=CONNECT_TIMEOUT_S)
        except psycopg.Error as exc:
            first = scrubbed(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__, url)
            raise ConfigError(f"cannot open the PostgreSQL ledger {shown_location(url)} ({first}): check the "
                              "URL, that the database exists, and PGPASSWORD or ~/.pgpass") from None
        self.conn.adapters.register_loader("numeric", _NumericLoader)
        self._migrate()

    def _migrate(self) -> None:
        """Pending migrations with their records in one transaction under an advisory lock."""
        if not self._pending():
            return
        with self.transaction():  # two workers opening a new database at once: the second waits here
            self.execute("SELECT pg_advisory_xact_lock(?, ?)", [LOCK_CLASS, MIGRATE_KEY])
            self.execute("CREATE TABLE IF NOT EXISTS hitflow_migrations (migration_set TEXT NOT NULL, name TEXT "
                         "NOT NULL, applied_at TEXT NOT NULL, rowid BIGINT GENERATED ALWAYS AS IDENTITY, "
                         "PRIMARY KEY (migration_set, name))")
            for migration in self._pending():
                migration.fn(PgSchema(self))  # type: ignore[arg-type]
                self.execute("INSERT INTO hitflow_migrations (migration_set, name, applied_at) VALUES (?, ?, ?)",
                             [migrations.name, migration.name, time.strftime("%Y-%m-%d %H:%M:%S%z")])
        self._pks.clear()
        self._uniques.clear()
        self._columns.clear()

    def _pending(self) -> list[Any]:
        done = set(self.applied_migrations())
        return [m for m in migrations._migrations if m.name not in done]

    # statements --------------------------------------------------------------------------
    def _pg(self, sql: str) -> str:
        if sql not in self._sql:
            self._sql[sql] = _dialect(sql)
        return self._sql[sql]

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.conn.cursor() as cur:
            cur.execute(self._pg(sql), [_plain(p) for p in params])  # type: ignore[arg-type]
            return list(cur.fetchall()) if cur.description else []

    def _row_pages(self, sql: str, params: Sequence[Any], page: int) -> Iterator[list[tuple[Any, ...]]]:
        # a client-side cursor: the rows arrive whole, but no dict is built per row
        with self.conn.cursor(row_factory=tuple_row) as cur:
            cur.execute(self._pg(sql), [_plain(p) for p in params])  # type: ignore[arg-type]
            while chunk := cur.fetchmany(page):
                yield chunk

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(self._pg(sql), [_plain(p) for p in params])  # type: ignore[arg-type]

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        batch = [[_plain(p) for p in row] for row in params]
        if batch:
            with self.transaction(), self.conn.cursor() as cur:
                cur.executemany(self._pg(sql), batch)  # type: ignore[arg-type]

    def table(self, name: str) -> PgTable:
        return PgTable(self, name)

    def insert_raw(self, table: str, rows: list[dict[str, Any]], conflict: str = "ABORT") -> None:
        PgTable(self, table).write(rows, conflict)

    def column_names(self, table: str) -> list[str]:
        """The table's columns (not ``rowid``), in order."""
        if table not in self._columns:
            self._columns[table] = list(PgSchema(self).table(table).columns_dict)
        return self._columns[table]

    def primary_key(self, table: str) -> list[str]:
        if table not in self._pks:
            self._pks[table] = [r["attname"] for r in self.rows(
                "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
                "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = ?::regclass AND i.indisprimary "
                "ORDER BY array_position(i.indkey, a.attnum)", [quoted(table)])]
        return self._pks[table]

    def other_unique_keys(self, table: str) -> list[list[str]]:
        """The columns of each unique index other than the primary key (SQLite's REPLACE honours them all)."""
        if table not in self._uniques:
            keys: dict[int, list[str]] = {}
            for r in self.rows("SELECT i.indexrelid AS idx, a.attname FROM pg_index i JOIN pg_attribute a ON "
                               "a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = ?::regclass "
                               "AND i.indisunique AND NOT i.indisprimary ORDER BY i.indexrelid, "
                               "array_position(i.indkey, a.attnum)", [quoted(table)]):
                keys.setdefault(int(r["idx"]), []).append(r["attname"])
            self._uniques[table] = list(keys.values())
        return self._uniques[table]

    # transactions --------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.conn.transaction():  # nested: a savepoint, as sqlite-utils' atomic()
            yield

    @contextmanager
    def immediate(self) -> Iterator[None]:
        with self.conn.transaction():
            self.execute("SELECT pg_advisory_xact_lock(?, ?)", [LOCK_CLASS, LEDGER_WRITE_KEY])
            yield

    # the campaign lock -------------------------------------------------------------------
    @contextmanager
    def campaign_lock(self, campaign: str) -> Iterator[None]:
        key = [LOCK_CLASS, campaign_key(campaign)]
        if not self.rows("SELECT pg_try_advisory_lock(?, ?) AS got", key)[0]["got"]:
            holder = self.live_holder(campaign) or "another process"
            raise CampaignBusyError(f"campaign {campaign} is being run by {holder}; wait for it to finish, or "
                                    "stop it (a holder whose connection is gone is taken over automatically)")
        me = f"{socket.gethostname()}:{os.getpid()}"
        try:
            self.table("locks").upsert({"campaign": campaign, "holder": me, "acquired_at": time.time()})
            yield
        finally:
            if not self.conn.closed:
                self.execute("DELETE FROM locks WHERE campaign = ? AND holder = ?", [campaign, me])
                self.execute("SELECT pg_advisory_unlock(?, ?)", key)

    def live_holder(self, campaign: str, others_only: bool = True) -> str | None:
        """The holder named in ``locks`` while some live session holds the advisory lock."""
        held = self.rows(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND classid = ?::bigint::oid AND objid = ?::bigint::oid"
            + (" AND pid != pg_backend_pid()" if others_only else ""), [LOCK_CLASS, campaign_key(campaign)])
        if not held:
            return None
        named = self.rows("SELECT holder FROM locks WHERE campaign = ?", [campaign])
        return str(named[0]["holder"]) if named else f"PostgreSQL session {held[0]['pid']}"

    # what the ledger is ------------------------------------------------------------------
    def applied_migrations(self) -> list[str]:
        if self.rows("SELECT to_regclass('hitflow_migrations') IS NULL AS missing")[0]["missing"]:
            return []
        return [r["name"] for r in self.rows("SELECT name FROM hitflow_migrations WHERE migration_set = ? "
                                             "ORDER BY rowid", [migrations.name])]

    def table_names(self) -> list[str]:
        return [r["table_name"] for r in self.rows(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
            "ORDER BY table_name")]

    def close(self) -> None:
        self.conn.close()
