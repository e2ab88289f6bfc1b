"""The sixth security round: no password in any spelling. ``hitflow run --db 'jdbc:postgresql://u:secret@h/db'``
printed the password in its first line and made seven paths named with it; ``pgsql://``,
``postgresql<TAB>://`` and misspelt schemes were taken for SQLite file names; ``deployable_ledger``
returned password-bearing paths for misspellings. Every spelling below is either a PostgreSQL location
libpq reads (its password masked) or refused in one line that does not show it; none becomes a path.
Also ``aggregate --skill-prior 1e-320`` (subnormal: it underflowed) is refused in one line."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.db_url import deployable_ledger, is_postgres_url, mistyped_postgres_url, scrubbed, shown_location
from flows.core.errors import ConfigError

PW = "S3ntinel-PW-68z"
LOOKALIKES = [
    f"jdbc:postgresql://hf:{PW}@127.0.0.1:1/hfdb", f"JDBC:PostgreSQL://hf:{PW}@127.0.0.1:1/hfdb",
    f"jdbc:postgresql://127.0.0.1:1/hfdb?user=hf&password={PW}", f"pgsql://hf:{PW}@127.0.0.1:1/hfdb",
    f"postgresql\t://hf:{PW}@127.0.0.1:1/hfdb", f"postgresql ://hf:{PW}@127.0.0.1:1/hfdb",
    f" Postgresql: //hf:{PW}@127.0.0.1:1/hfdb", f"postgressql://hf:{PW}@127.0.0.1:1/hfdb",
    f"postgresq://hf:{PW}@127.0.0.1:1/hfdb", f"postgre://hf:{PW}@127.0.0.1:1/hfdb",
    f"posgresql://hf:{PW}@127.0.0.1:1/hfdb", f"psql://hf:{PW}@127.0.0.1:1/hfdb", f"pg://hf:{PW}@127.0.0.1:1/hfdb",
    f"postgresql+psycopg\t://hf:{PW}@127.0.0.1:1/hfdb", f"pgsql:hf:{PW}@127.0.0.1:1/hfdb", f"hf:{PW}@127.0.0.1/hfdb",
    f"hots=127.0.0.1 pasword={PW}", f"host=127.0.0.1 port=1 pasword={PW}", f"passwd={PW}",
]
MASKED = [  # spellings libpq reads: the password goes to PGPASSWORD and is shown as ***
    f"postgres://hf:{PW}@127.0.0.1:1/hfdb", f"POSTGRESQL://hf:{PW}@127.0.0.1:1/hfdb",
    f"postgresql+psycopg://hf:{PW}@127.0.0.1:1/hfdb", f"\tpostgresql://hf:{PW}@127.0.0.1:1/hfdb ",
    f"host=127.0.0.1 port=1 dbname=hfdb password={PW}",
]
CONFIG = Path(__file__).resolve().parents[1] / "config"


@pytest.mark.parametrize("typed", LOOKALIKES + MASKED)
def test_no_spelling_shows_its_password_or_is_deployed_with_it(typed: str) -> None:
    assert is_postgres_url(typed) != mistyped_postgres_url(typed)  # each is one or the other, never a file name
    assert PW not in shown_location(typed)
    assert PW not in scrubbed(f"could not connect to {typed}: refused", typed)
    with pytest.raises(ConfigError) as refused:
        deployable_ledger(typed)  # Prefect would store and show it
    assert PW not in str(refused.value)


@pytest.mark.parametrize("typed", LOOKALIKES + MASKED)
@pytest.mark.parametrize("command", [["run", "config/vizwiz_captions.toml", "--dry-run", "--no-prefect"],
                                     ["status"]])
def test_the_cli_never_prints_logs_or_makes_a_path_of_it(typed: str, command: list[str], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch, capsys,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "2")
    monkeypatch.delenv("PGPASSWORD", raising=False)
    (tmp_path / "config").symlink_to(CONFIG)
    caplog.set_level(logging.DEBUG)
    try:
        code = main([*command, "--db", typed])
    except SystemExit as exc:  # argparse's refusal of run's --db
        code = exc.code
    shown = capsys.readouterr()
    assert PW not in shown.out + shown.err + caplog.text
    assert not any(PW in str(p) for p in tmp_path.rglob("*"))
    if typed in LOOKALIKES:
        assert code == 2 and "not shown: it may hold a password" in shown.err and len(shown.err.splitlines()) == 1
        assert [p.name for p in tmp_path.iterdir()] == ["config"]  # nothing made of it


@pytest.mark.parametrize("option", [["--skill-prior", "1e-320"], ["--skill-prior", "0.99999999999"],
                                    ["--skill-prior-weight", "1e-320"]])
def test_a_prior_that_underflows_is_refused_in_one_line(option: list[str], tmp_path: Path, capsys) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("item_id,worker_id,label\n" + "".join(f"i{i},w{w},{'ab'[(i + w) % 2]}\n"
                                                          for i in range(6) for w in range(3)))
    code = main(["aggregate", str(labels), "--out", str(tmp_path / "out"), "--method", "skill", *option])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "give" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
