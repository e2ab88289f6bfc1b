"""The ledger's one interface over SQLite and PostgreSQL."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flows.core.db_url import MISTYPED_ADVICE, SQLITE_MAGIC, is_postgres_url, mistyped_postgres_url, shown_location
from flows.core.ledger.store_migrations import migrations

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DEFAULT_DB", "SETTLED", "Store", "existing_store", "is_hitflow_ledger", "migrations"]

DEFAULT_DB = Path("runs/hitflow.db")
SETTLED = ("ok", "adopted")  # ledger states after which a call is never made again
SECRET_KEYS = {"aws_secret_access_key", "aws_session_token", "authorization", "token", "password"}
READ_PAGE = 100_000  # rows per page of Store.frame: ~100 MB of tuples at most, one page at a time
IN_CHUNK = 500  # keys per ``IN (...)``: under SQLite's default limit of 999 bound parameters


_BACKENDS: dict[str, type[Store]] = {}  # "sqlite" / "postgresql": the class a Store(location) becomes


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


def _intent(campaign: str, batch: int, operation: str, key: str, params: dict[str, Any], now: float
            ) -> dict[str, Any]:
    return {"campaign": campaign, "batch": batch, "operation": operation, "idem_key": key,
            "params": json.dumps(_scrub(params), default=str), "status": "intended", "result": "",
            "error": "", "created_at": now, "updated_at": now}


class Store:
    """One ledger, whichever database holds it; ``Store(location)`` returns the backend's own class."""

    location: str | Path

    def __new__(cls, location: str | Path = DEFAULT_DB) -> Store:
        backend: type[Store] = cls
        if cls is Store:  # the backends register themselves (flows/core/ledger/store.py imports SQLite's)
            refuse_mistyped_url(location)
            scheme = "postgresql" if is_postgres_url(location) else "sqlite"
            if scheme not in _BACKENDS:  # psycopg costs ~0.15 s CPU: imported for a postgresql:// ledger only
                import_module(f"flows.core.ledger.store_{'pg' if scheme == 'postgresql' else scheme}")
            backend = _BACKENDS[scheme]
        return object.__new__(backend)

    def __init_subclass__(cls, scheme: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if scheme:
            _BACKENDS[scheme] = cls

    # what each backend provides ------------------------------------------------------
    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        raise NotImplementedError

    def frame(self, sql: str, params: Sequence[Any], columns: list[str], page: int = READ_PAGE) -> pd.DataFrame:
        """The query's rows as a DataFrame with ``columns``, ``page`` rows at a time."""
        import pandas as pd  # here: a command that reads rows (``hitflow status``) loads no pandas (~0.35 s)

        parts = [pd.DataFrame.from_records(chunk, columns=columns) for chunk in self._row_pages(sql, params, page)]
        if not parts:
            return pd.DataFrame(columns=columns)
        return parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)

    def _row_pages(self, sql: str, params: Sequence[Any], page: int) -> Iterator[list[tuple[Any, ...]]]:
        raise NotImplementedError

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """One statement; on its own it commits at once, inside :meth:`transaction` with the block."""
        raise NotImplementedError

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        raise NotImplementedError

    def table(self, name: str) -> Any:
        """The table's row API (sqlite-utils' subset); each write commits unless in :meth:`transaction`."""
        raise NotImplementedError

    def transaction(self) -> AbstractContextManager[None]:
        """Everything in the block commits together or not at all (a kill -9 keeps none of it)."""
        raise NotImplementedError

    def immediate(self) -> AbstractContextManager[None]:
        """A write transaction no other ``immediate`` block of any process interleaves with."""
        raise NotImplementedError

    def insert_raw(self, table: str, rows: list[dict[str, Any]], conflict: str = "ABORT") -> None:
        """Rows inserted in the open transaction, ``conflict`` as SQLite's ``INSERT OR <conflict>``."""
        raise NotImplementedError

    def campaign_lock(self, campaign: str) -> AbstractContextManager[None]:
        """Hold the campaign's lock for the block (CampaignBusyError if a live holder has it; a dead one's is taken)."""
        raise NotImplementedError

    def live_holder(self, campaign: str, others_only: bool = True) -> str | None:
        """``host:pid`` of a live process running the campaign (other than this one with ``others_only``), if any."""
        raise NotImplementedError

    def applied_migrations(self) -> list[str]:
        """The schema's migrations applied to this ledger, in order (the schema version)."""
        raise NotImplementedError

    def table_names(self) -> list[str]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def shown(self) -> str:
        return shown_location(self.location)

    # the ledger's rules, the same on every backend --------------------------------------
    def ledger_entry(self, key: str) -> dict[str, Any] | None:
        rows = self.rows("SELECT * FROM ledger WHERE idem_key = ?", [key])
        return rows[0] if rows else None

    def intend(self, campaign: str, batch: int, operation: str, key: str, params: dict[str, Any]) -> dict[str, Any]:
        """Write the intended call (once); returns the entry, which may already be settled."""
        existing = self.ledger_entry(key)
        if existing:
            return existing
        with self.transaction():
            self.insert_raw("ledger", [_intent(campaign, batch, operation, key, params, time.time())], "IGNORE")
        entry = self.ledger_entry(key)
        assert entry is not None
        return entry

    def _entries(self, keys: list[str]) -> Iterator[dict[str, Any]]:
        for at in range(0, len(keys), IN_CHUNK):
            chunk = keys[at:at + IN_CHUNK]
            yield from self.rows(f"SELECT * FROM ledger WHERE idem_key IN ({','.join('?' * len(chunk))})", chunk)

    def intend_all(self, campaign: str, batch: int, calls: list[tuple[str, str, dict[str, Any]]]
                   ) -> dict[str, dict[str, Any]]:
        """``intend`` for many ``(operation, key, params)`` in one transaction; entries by key."""
        known = {r["idem_key"]: r for r in self._entries([key for _, key, _ in calls])}
        now = time.time()
        fresh = [_intent(campaign, batch, op, key, params, now) for op, key, params in calls if key not in known]
        if fresh:
            with self.transaction():
                self.insert_raw("ledger", fresh, "IGNORE")
            known.update({r["idem_key"]: {**r, "made_now": True} for r in fresh})  # no earlier run made these
        return known

    def settle_all(self, outcomes: list[tuple[str, str, Any]]) -> None:
        """``settle`` for many ``(key, status, result)`` in one transaction."""
        now = time.time()
        with self.transaction():
            self.executemany(
                "UPDATE ledger SET status = ?, result = ?, error = '', updated_at = ? WHERE idem_key = ?",
                [(status, json.dumps(result, default=str) if result is not None else "", now, key)
                 for key, status, result in outcomes])

    def settle(self, key: str, status: str, result: Any = None, error: str = "") -> None:
        self.execute("UPDATE ledger SET status = ?, result = ?, error = ?, updated_at = ? WHERE idem_key = ?",
                     [status, json.dumps(result, default=str) if result is not None else "", error,
                      time.time(), key])

    def recorded_config(self, campaign: str) -> dict[str, Any]:
        """What the ledger recorded of the campaign's run (target, platform, out_root, plan); {} without one."""
        rows = self.rows("SELECT config_json FROM campaigns WHERE name = ?", [campaign])
        return json.loads(rows[0]["config_json"] or "{}") if rows else {}

    # batches ---------------------------------------------------------------------------
    def batch_status(self, campaign: str, batch: int) -> str:
        rows = self.rows("SELECT status FROM batches WHERE campaign = ? AND batch = ?", [campaign, batch])
        return (rows[0]["status"] if rows else None) or "planned"

    def set_batch(self, campaign: str, batch: int, **fields: Any) -> None:
        self.table("batches").upsert({"campaign": campaign, "batch": batch, "updated_at": time.time(), **fields},
                                     pk=("campaign", "batch"))


def refuse_mistyped_url(location: str | Path) -> None:
    """A PostgreSQL URI missing its ``//`` refused in one line that does not echo it."""
    from flows.core.errors import ConfigError

    if mistyped_postgres_url(location):
        raise ConfigError(f"the ledger {MISTYPED_ADVICE}")


def existing_store(location: str | Path) -> Store:
    """The existing ledger at ``location`` for a command that only reads stored campaigns; never created."""
    from flows.core.errors import ConfigError

    if is_postgres_url(location):
        return Store(location)  # the database must exist already: hitflow never creates one
    refuse_mistyped_url(location)
    path = Path(location)
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
    if head and not is_hitflow_ledger(path):  # another program's database is never migrated into a ledger
        raise ConfigError(f"{path} is an SQLite file but not a hitflow ledger: {again}")
    return Store(path)


def is_hitflow_ledger(path: Path) -> bool:
    """Whether the SQLite file at ``path`` holds hitflow's schema, read without writing to it."""
    import sqlite3

    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
            kinds = dict(conn.execute("SELECT name, type FROM sqlite_master WHERE name IN "
                                      "('_sqlite_migrations', 'campaigns')").fetchall())
            if kinds != {"_sqlite_migrations": "table", "campaigns": "table"}:
                return False
            return conn.execute("SELECT 1 FROM _sqlite_migrations WHERE migration_set = ? LIMIT 1",
                                [migrations.name]).fetchone() is not None
    except sqlite3.Error:
        return False
