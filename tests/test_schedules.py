"""A schedule on a real Prefect server advances a campaign batch by batch, with nobody there."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from flows.operations import campaign_status
from flows.store import Store
from tests.prefect_server import prefect_server

ROOT = Path(__file__).resolve().parents[1]


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
    settings = {"PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "3", "PREFECT_RUNNER_POLL_FREQUENCY": "2"}
    with prefect_server(tmp_path / "prefect", **settings) as env:
        db = tmp_path / "h.db"
        served = subprocess.Popen(
            [sys.executable, "-m", "flows.cli", "serve-schedules", str(small_campaign(tmp_path)), "--endpoint-url",
             sim.url, "--db", str(db), "--out", str(tmp_path / "out")],
            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
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
        finally:
            served.terminate()
            served.wait(timeout=30)
    assert report[0]["status"] == "done" and finished_seen[-1] == 5
    assert finished_seen == sorted(finished_seen) and len(set(finished_seen)) > 2  # seen step by step
    assert (tmp_path / "out" / "vizwiz_captions" / "dataset.json").is_file()


def test_schedules_refuse_the_ephemeral_server(tmp_path: Path, capsys, monkeypatch) -> None:
    from flows.cli import main

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    assert main(["serve-schedules", str(small_campaign(tmp_path))]) == 2
    assert "prefect server start" in capsys.readouterr().err
