"""A run's or a deployment's --task-url and --endpoint-url never carry credentials, as its --db and --out do
not: printed on the `target:` and `serve-schedules` lines and stored in the deployment's (and a flow run's)
parameters, a password there was shown to anyone who can read the Prefect server. Refused in one line that does
not show it, before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.cli.main import main

CONFIG = str(Path(__file__).resolve().parents[1] / "config" / "vizwiz_captions.toml")
PW = "S3ntinel75pw"


@pytest.mark.parametrize("command", ["deploy", "serve-schedules", "run"])
@pytest.mark.parametrize(("option", "url"), [
    ("--task-url", f"https://u:{PW}@tasks.example.org/x"), ("--endpoint-url", f"http://u:{PW}@127.0.0.1:9"),
    ("--endpoint-url", f"http://127.0.0.1:9/?token={PW}"), ("--task-url", f"https://tasks.example.org/#{PW}"),
    ("--task-url", f"https://{PW}@tasks.example.org/"),
])
def test_a_url_with_credentials_is_refused_unshown(command: str, option: str, url: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    try:  # refused by the option's own check (argparse's exit)
        rc = main([command, CONFIG, option, url, "--db", str(tmp_path / "l.db"), "--out", str(tmp_path / "out")])
    except SystemExit as stop:
        rc = int(stop.code or 0)
    shown = capsys.readouterr()
    assert rc == 2 and "must not carry credentials" in shown.err and option in shown.err
    assert PW not in shown.out + shown.err and not (tmp_path / "out").exists()
