"""The fourth security round: every URL that can carry a secret (a PostgreSQL ledger in each form libpq and
SQLAlchemy take, an fsspec output URL, chained or with credentials in its query) is parsed in one place;
its secret goes where its library reads it and nowhere else: not a printed line, a folder name, the
ledger, a deployment's parameters or libpq's own error quoting the URL. A sentinel secret each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.db_url import deployable_ledger, is_postgres_url, password_to_environment, shown_location
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.core.outputs.output_location import (
    credentials_to_fsspec,
    deployable_locations,
    is_output_url,
    shown_output,
    staging_root,
    stored_output,
)

PW = "S3ntinel-PW-41x"  # a ledger password: it must show up nowhere but PGPASSWORD
LEDGER_FORMS = [
    f"postgresql://hf:{PW}@127.0.0.1:1/hfdb",
    f"postgresql://hf@127.0.0.1:1/hfdb?password={PW}",
    f"postgresql+psycopg://hf:{PW}@127.0.0.1:1/hfdb",
    f"  postgresql://hf:{PW}@127.0.0.1:1/hfdb",
    f"POSTGRES://hf:{PW}@127.0.0.1:1/hfdb",
    f"host=127.0.0.1 port=1 dbname=hfdb user=hf password={PW}",
    f"host=127.0.0.1 port=1 dbname=hfdb user=hf password='{PW}'",
    f"postgresql://hf:{PW}?x@127.0.0.1:1/hfdb",  # a raw '?' in the password, which libpq takes
    f"postgresql://hf:{PW}?=@127.0.0.1:1/hfdb",  # ... and one that looks like a query (bench-security found it)
    f"postgresql://hf:{PW}/?@127.0.0.1:1/hfdb",
    f"postgresql://hf:{PW}@x@127.0.0.1:1/hfdb",
    f"host=127.0.0.1 dbname=hfdb port=1 password='{PW}=\\' x=1",  # an unterminated quote: all of it may be secret
]


@pytest.fixture
def no_pgpassword(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGPASSWORD", "")
    monkeypatch.delenv("PGPASSWORD")  # absent now, and put back as it was after the test


@pytest.mark.parametrize("typed", LEDGER_FORMS)
def test_each_ledger_form_is_postgres_and_its_password_moves_to_pgpassword(typed: str, no_pgpassword: None) -> None:
    assert is_postgres_url(typed)
    used = password_to_environment(typed)
    assert PW not in used and PW not in shown_location(typed) and "***" in shown_location(typed)
    assert os.environ["PGPASSWORD"].startswith(PW)
    assert "hfdb" in used and "hfdb" in shown_location(typed)
    assert not used.startswith((" ", "postgresql+"))  # what libpq is given
    with pytest.raises(ConfigError, match="PGPASSWORD") as refused:
        deployable_ledger(typed)  # Prefect would store and show it
    assert PW not in str(refused.value)


@pytest.mark.parametrize("typed", [f"postgresql://hf:{PW}@127.0.0.1:notaport/hfdb",
                                   f"postgresql://hf:{PW}@127.0.0.1:1/hfdb?bogus_option=1",
                                   f"postgresql://hf@127.0.0.1:1/hfdb?password={PW}&bogus=1",
                                   f"host=127.0.0.1 port=1 password={PW} nonsense"])
def test_libpq_errors_never_quote_the_password(typed: str, no_pgpassword: None) -> None:
    with pytest.raises(ConfigError) as refused:
        Store(typed)
    assert PW not in str(refused.value) and "cannot open the PostgreSQL ledger" in str(refused.value)


def test_the_cli_opens_sqlalchemy_and_keyword_forms_as_postgres(pg_url: str, tmp_path: Path, no_pgpassword: None,
                                                                monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    Store(pg_url).table("campaigns").insert({"name": "c41", "status": "running", "created_at": 0.0,
                                             "config_path": "x.toml", "config_json": "{}", "target": "sim"})
    with_password = pg_url.replace("://hitflow@", f"://hitflow:{PW}@")  # the test server trusts any password
    for typed in (" " + with_password.replace("postgresql://", "postgresql+psycopg://"),
                  pg_url + f"?password={PW}"):
        assert main(["status", "--db", typed]) == 0
        shown = capsys.readouterr()
        assert "c41" in shown.out and PW not in shown.out + shown.err
    assert list(tmp_path.iterdir()) == []  # no SQLite file made of a URL taken for a path


SECRET = "S3ntinel-FS-41y"  # an output URL's credential


@pytest.mark.parametrize("typed", [f"memory://u:{SECRET}@/runs41",
                                   f"simplecache::memory://u:{SECRET}@/runs41",
                                   f"memory:///runs41?token={SECRET}",
                                   f"memory:///runs41?sig={SECRET}&sv=2024",
                                   f"  memory://u:{SECRET}@/runs41",
                                   f"memory://u:{SECRET}%3A%3A@/runs41"])
def test_output_url_credentials_leave_the_url(typed: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith("FSSPEC_MEMORY_")]:
        monkeypatch.delenv(name)
    assert is_output_url(typed)
    assert SECRET not in shown_output(typed)
    with pytest.raises(ConfigError, match="must not carry credentials") as refused:
        deployable_locations("runs/h.db", typed)
    assert SECRET not in str(refused.value)
    used = credentials_to_fsspec(typed)
    assert SECRET not in used and "runs41" in used
    assert SECRET not in str(staging_root(typed)) and SECRET not in stored_output(typed)
    assert "memory" in str(staging_root(typed)) and not str(staging_root(typed)).startswith(("simplecache", "memory"))
    assert any(SECRET in v for k, v in os.environ.items() if k.startswith("FSSPEC_MEMORY_"))


def test_a_double_colon_in_a_password_is_refused_without_showing_it() -> None:
    typed = f"simplecache::memory://u:{SECRET}::@/runs41"  # '::' splits fsspec's chain inside the password
    with pytest.raises(ConfigError, match="%3A") as refused:
        credentials_to_fsspec(typed)
    assert SECRET not in str(refused.value) and SECRET not in shown_output(typed)


def test_a_chained_url_is_a_url_not_a_folder() -> None:
    assert is_output_url("simplecache::s3://bucket/runs") and is_output_url("zip://a::file:///x.zip")
    assert credentials_to_fsspec("file:///mnt/runs") == "file:///mnt/runs"
    assert credentials_to_fsspec(f"file:///mnt/runs?token={SECRET}") == "file:///mnt/runs"
    assert not is_output_url("runs/simplecache") and not is_output_url("C:/runs")
