"""A schedule on a real Prefect server advances a campaign batch by batch, with nobody there."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from flows.campaign_status import campaign_status
from flows.store import Store

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def small_campaign(tmp_path: Path) -> Path:
    items = (ROOT / "config" / "items" / "vizwiz_demo_items.csv").read_text().splitlines()[:51]
    (tmp_path / "items.csv").write_text("\n".join(items) + "\n")
    text = (ROOT / "config" / "vizwiz_captions.toml").read_text()
    text = text.replace('items = "items/vizwiz_demo_items.csv"', 'items = "items.csv"')
    text = text.replace("interval_s = 3600", "interval_s = 3")
    (tmp_path / "c.toml").write_text(text)
    return tmp_path / "c.toml"


@pytest.mark.prefect
def test_schedule_runs_the_campaign_to_completion(sim, tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_UI_ENABLED": "false", "PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "3",
           "PREFECT_RUNNER_POLL_FREQUENCY": "2", "PREFECT_LOGGING_LEVEL": "WARNING"}
    server = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--port", str(port)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    served = None
    try:
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2)
                break
            except OSError:
                assert time.time() < deadline, "the Prefect server did not start"
                time.sleep(1)
        db = tmp_path / "h.db"
        served = subprocess.Popen(
            [sys.executable, "-m", "flows.cli", "serve-schedules", str(small_campaign(tmp_path)), "--endpoint-url",
             sim.url, "--db", str(db), "--out", str(tmp_path / "out")],
            env={**env, "PREFECT_API_URL": f"http://127.0.0.1:{port}/api"}, cwd=ROOT,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        finished_seen: list[int] = []
        deadline = time.time() + 240
        while time.time() < deadline:
            time.sleep(1)
            if not db.exists():
                continue
            report = campaign_status(Store(db), "vizwiz_captions")
            if not report:
                continue
            finished = sum(b["status"] == "blocked" for b in report[0]["batches"])
            # Status tells the truth: HITs on the platform equal HITs it reports, batches finish in order.
            assert sum(b["hits"] for b in report[0]["batches"]) == len(sim.market.hits)
            assert [b["status"] == "blocked" for b in report[0]["batches"]] == [i < finished for i in range(5)]
            finished_seen.append(finished)
            if report[0]["status"] == "done":
                break
        assert report[0]["status"] == "done" and finished_seen[-1] == 5
        assert finished_seen == sorted(finished_seen) and len(set(finished_seen)) > 2  # seen step by step
        assert (tmp_path / "out" / "vizwiz_captions" / "dataset.json").is_file()
    finally:
        for proc in (served, server):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)


def test_schedules_refuse_the_ephemeral_server(tmp_path: Path, capsys, monkeypatch) -> None:
    from flows.cli import main

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    assert main(["serve-schedules", str(small_campaign(tmp_path))]) == 2
    assert "prefect server start" in capsys.readouterr().err
