"""A URL that may carry a credential obeys one rule wherever it is given: an option of any command, or the
config's ``[target] endpoint_url`` / ``task_url``. A user, a password, a query or a fragment is refused before
anything is stored or sent, in one line that never shows the URL, and so is a URL that is not plainly
http(s) (``HTTPS://u:PW@``, ``https:\\\\u:PW@``, ``http:/u:PW@``: argparse's message quoted them)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from flows.cli.main import main
from tests.small_configs import small_vizwiz

PW = "S3ntinelPw81"
SPELLINGS = [f"HTTPS://u:{PW}@127.0.0.1:9/", f"Https://u:{PW}@127.0.0.1:9/", f"https:\\\\u:{PW}@127.0.0.1:9/",
             f"http:/u:{PW}@127.0.0.1:9/", f"http://[u:{PW}]@127.0.0.1:9/", f"http://u:{PW}@127.0.0.1:9/",
             f"https://127.0.0.1:9/?token={PW}", f"http://{PW}@127.0.0.1:9/", f"HTTP://127.0.0.1:9/#{PW}"]


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stop:  # argparse's refusal of an option
        return int(stop.code or 0)


@pytest.mark.parametrize("url", SPELLINGS)
@pytest.mark.parametrize("command", ["deploy", "run", "serve-schedules", "cancel", "reconcile"])
def test_no_option_error_echoes_a_credential(command: str, url: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    target = ["c"] if command in ("cancel", "reconcile") else [str(small_vizwiz(tmp_path, items=5))]
    rc = _exit_code([command, *target, "--endpoint-url", url, "--db", str(tmp_path / "l.db")])
    shown = capsys.readouterr()
    assert rc == 2 and "--endpoint-url" in shown.err and len(shown.err.strip().splitlines()) <= 2
    assert PW not in shown.out + shown.err


@pytest.mark.parametrize("key", ["endpoint_url", "task_url"])
@pytest.mark.parametrize("url", [f"https://u:{PW}@tasks.example.org/", f"http://[u:{PW}]@127.0.0.1:9/",
                                 f"https://tasks.example.org/?sig={PW}", f"HTTPS://u:{PW}@tasks.example.org/"])
@pytest.mark.parametrize("dry_run", [True, False])
def test_a_config_url_with_a_credential_is_refused_before_anything_is_stored(
        key: str, url: str, dry_run: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = small_vizwiz(tmp_path, items=5, edits={'endpoint_url = ""': f'{key} = "{url}"'})
    db = tmp_path / "l.db"
    rc = main(["run", str(config), "--db", str(db), "--out", str(tmp_path / "out"), "--no-prefect",
               *(["--dry-run"] if dry_run else []), "--platform", "prolific"])
    shown = capsys.readouterr()
    assert rc == 2 and f"[target].{key}" in shown.err and len(shown.err.strip().splitlines()) == 1
    assert PW not in shown.out + shown.err
    if db.exists():  # nothing of the config reached the ledger
        with sqlite3.connect(db) as conn:
            assert not any(PW in str(row) for row in conn.execute("SELECT * FROM campaigns"))


def test_status_never_shows_a_credential_a_ledger_from_before_kept(tmp_path: Path) -> None:
    """A ledger written before the config's URLs were checked may hold one: `status` names the URL to resume
    with, without it."""
    import json

    from flows.core.ledger.store import Store
    from flows.driver.campaign_status import campaign_status, format_status

    store = Store(tmp_path / "h.db")
    store.table("campaigns").insert({"name": "c", "config_path": "c.toml", "target": "mturk", "created_at": 0.0,
                                     "status": "cancelled", "config_json": json.dumps(
                                         {"batches": 1, "platform": "mturk", "target_kind": "mturk",
                                          "endpoint_url": f"https://u:{PW}@mturk.example.org/"})})
    shown = format_status(campaign_status(store, "c", now=0.0))
    assert "--endpoint-url https://mturk.example.org" in shown and PW not in shown
