"""PostgreSQL for the tests: one throwaway server per test session (so one per xdist worker), one
new database per test. Where no server can start the PostgreSQL tests skip with the reason (fail
under CI=true: `make pg-deps` installs Debian's postgresql there)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.throwaway_pg import PgServer, PgUnavailable, throwaway_server


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    # Not under pytest's tmp_path: its folders are private to root, and the server runs as postgres.
    try:
        with throwaway_server() as server:
            yield server
    except PgUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"no PostgreSQL server could start: {exc}")
        print(f"\n*** POSTGRESQL TESTS SKIPPED: {exc} ***")
        pytest.skip(str(exc))


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """A new database on the session's PostgreSQL server, for this test alone."""
    return pg_server.new_database()


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store contract test keeps its ledger: an SQLite file, or a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "h.db")
    return str(request.getfixturevalue("pg_url"))
