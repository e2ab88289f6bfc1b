"""The fifth security round: every libpq keyword a connection string may start with (``sslrootcert=``,
``sslcert=``, ``requiressl=``, ``keepalives=``...) makes it a PostgreSQL ledger, and a URI missing its
``//`` (``postgresql:/...``, ``postgresql:...``) is refused in one line; neither is taken for an SQLite
file's name, and neither prints the password (each once did both). A sentinel password each."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.db_url import (
    _KEYWORDS,
    is_postgres_url,
    mistyped_postgres_url,
    password_to_environment,
    shown_location,
)

PW = "S3ntinel-PW-55x"
# libpq-connect.html#LIBPQ-PARAMKEYWORDS (PostgreSQL 18), written out here as the page lists them
LIBPQ_KEYWORDS = [
    "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth", "channel_binding",
    "connect_timeout", "client_encoding", "options", "application_name", "fallback_application_name",
    "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
    "replication", "gssencmode", "sslmode", "requiressl", "sslnegotiation", "sslcompression", "sslcert",
    "sslkey", "sslpassword", "sslcertmode", "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer",
    "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service",
    "target_session_attrs", "load_balance_hosts", "oauth_issuer", "oauth_client_id", "oauth_client_secret",
    "oauth_scope",
]
TYPOS = [f"postgresql:/hf:{PW}@127.0.0.1:1/hfdb", f"postgresql:hf:{PW}@127.0.0.1:1/hfdb",
         f"postgres:/hf:{PW}@h/db", f"POSTGRESQL+psycopg:/hf:{PW}@h/db", f" postgresql:{PW}"]


def test_every_libpq_keyword_is_known() -> None:
    assert set(LIBPQ_KEYWORDS) <= set(_KEYWORDS)


@pytest.mark.parametrize("keyword", LIBPQ_KEYWORDS)
def test_a_string_starting_with_any_keyword_is_a_postgres_ledger(keyword: str) -> None:
    typed = f"{keyword}=1 host=127.0.0.1 port=1 password={PW}"
    assert is_postgres_url(typed) and not mistyped_postgres_url(typed)
    assert PW not in shown_location(typed) and PW not in password_to_environment(typed)


def test_another_word_before_a_keyword_is_still_a_connection_string() -> None:
    typed = f"sslrootcrt=/ca.pem host=127.0.0.1 password={PW}"  # a misspelt keyword: refused
    assert mistyped_postgres_url(typed) and not is_postgres_url(typed) and PW not in shown_location(typed)
    assert not is_postgres_url("results=v2.db") and not is_postgres_url("runs/hitflow.db")


@pytest.mark.parametrize("typed", ["sslrootcert=/ca.pem", "sslcert=/c.pem", "requiressl=1", "keepalives=1"])
@pytest.mark.parametrize("command", ["status", "ui"])
def test_the_cli_opens_them_as_postgres_without_the_password(typed: str, command: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "2")
    code = main([command, "--db", f"{typed} host=127.0.0.1 port=1 dbname=hfdb password={PW}"])
    err = capsys.readouterr().err
    assert code != 0 and "PostgreSQL ledger" in err and PW not in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # no SQLite file of that name


@pytest.mark.parametrize("typed", TYPOS)
@pytest.mark.parametrize("command", [["status"], ["ui"], ["run", "config/vizwiz_captions.toml", "--dry-run"]])
def test_a_uri_missing_its_slashes_is_refused_in_one_line(typed: str, command: list[str], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    assert mistyped_postgres_url(typed) and not is_postgres_url(typed)
    config = Path(__file__).resolve().parents[1] / "config"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config").symlink_to(config)
    try:
        code = main([*command, "--db", typed])
    except SystemExit as exc:  # argparse's refusal of run's --db
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "two slashes after the colon" in err and PW not in err and len(err.splitlines()) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["config"]  # no file made of it


# a full-width colon (a CJK keyboard), a Cyrillic "о", a zero-width space: the scheme unread, the password
# still before "@" (each made folders named with the password, or echoed it, before)
LOOKALIKES = [f"postgresql\uff1a//hf:{PW}@127.0.0.1:1/hfdb", f"p\u043estgresql://hf:{PW}@127.0.0.1:1/hfdb",
              f"post\u200bgresql://hf:{PW}@127.0.0.1:1/hfdb", f"backup//hf:{PW}@127.0.0.1:1/hfdb"]


@pytest.mark.parametrize("typed", LOOKALIKES)
def test_a_url_with_a_lookalike_scheme_is_refused_unshown(typed: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as refused:
        main(["run", "config/none.toml", "--dry-run", "--db", typed])
    err = capsys.readouterr().err.strip()
    assert refused.value.code == 2 and PW not in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--sim-state", "--out"])
def test_a_database_url_given_for_a_file_or_folder_is_refused_unshown(option: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as refused:
        main(["run", "config/none.toml", "--dry-run", option, f"postgresql://hf:{PW}@127.0.0.1:1/hfdb"])
    err = capsys.readouterr().err.strip()
    assert refused.value.code == 2 and PW not in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
