"""`hitflow ui --db postgresql://...` opens the PostgreSQL ledger as `run` does: no SQLite
files under ./postgresql:/..., and the URL's password never reaches the page or the terminal."""

from __future__ import annotations

import argparse

import pytest

from flows.cli import main as cli
from flows.review import overview_app


def test_ui_opens_a_postgresql_ledger_without_its_password(pg_url, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PGPASSWORD", raising=False)
    served: list[overview_app.OverviewSite] = []
    monkeypatch.setattr(overview_app, "serve_overview", lambda site, port: served.append(site))
    args = argparse.Namespace(db=pg_url, out=str(tmp_path / "runs"), port=0, reviewer="", command="ui")
    cli.cmd_ui(args)
    assert not any(p.name.startswith("postgresql:") for p in tmp_path.iterdir())
    assert served and isinstance(served[0].db_path, str)
    assert served[0].campaigns() == set() and served[0].db_path == pg_url


if __name__ == "__main__":
    pytest.main([__file__])
