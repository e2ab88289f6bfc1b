"""A schedule on a real Prefect server advances a campaign batch by batch, with nobody there."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from flows.campaigns.campaign_status import campaign_status
from flows.store import Store
from tests.prefect_server import prefect_server as real_prefect_server

ROOT = Path(__file__).resolve().parents[1]


def small_campaign(tmp_path: Path) -> Path:
    items = (ROOT / "config" / "items" / "vizwiz_demo_items.csv").read_text().splitlines()[:51]
    (tmp_path / "items.csv").write_text("\n".join(items) + "\n")
    text = (ROOT / "config" / "vizwiz_captions.toml").read_text()
    text = text.replace('items = "items/vizwiz_demo_items.csv"', 'items = "items.csv"')
    text = text.replace("interval_s = 3600", "interval_s = 3")
    (tmp_path / "c.toml").write_text(text)
    return tmp_path / "c.toml"


@pytest.fixture(scope="module")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A real Prefect server (the ephemeral one does not schedule), shared by this module's tests."""
    settings = {"PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "3", "PREFECT_RUNNER_POLL_FREQUENCY": "2"}
    with real_prefect_server(tmp_path_factory.mktemp("prefect"), **settings) as env:
        yield env


@pytest.mark.prefect
def test_schedule_runs_the_campaign_to_completion(sim, tmp_path: Path, prefect_server: dict[str, str]) -> None:
    env = prefect_server
    served = None
    try:
        db = tmp_path / "h.db"
        served = subprocess.Popen(
            [sys.executable, "-m", "flows.cli", "serve-schedules", str(small_campaign(tmp_path)), "--endpoint-url",
             sim.url, "--db", str(db), "--out", str(tmp_path / "out")],
            env=env, cwd=ROOT,
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
            # Status tells the truth: it never reports a HIT the platform lacks (while a batch is being
            # posted, 16 threads create HITs before their rows are stored), batches finish in order.
            assert sum(b["hits"] for b in report[0]["batches"]) <= len(sim.market.hits)
            assert [b["status"] == "blocked" for b in report[0]["batches"]] == [i < finished for i in range(5)]
            finished_seen.append(finished)
            if report[0]["status"] == "done":
                break
        assert report[0]["status"] == "done" and finished_seen[-1] == 5
        assert sum(b["hits"] for b in report[0]["batches"]) == len(sim.market.hits)  # at rest: every HIT
        assert finished_seen == sorted(finished_seen) and len(set(finished_seen)) > 2  # seen step by step
        assert (tmp_path / "out" / "vizwiz_captions" / "dataset.json").is_file()
    finally:
        if served is not None:
            served.terminate()
            served.wait(timeout=30)


def test_schedules_refuse_the_ephemeral_server(tmp_path: Path, capsys, monkeypatch) -> None:
    from flows.cli import main

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    assert main(["serve-schedules", str(small_campaign(tmp_path))]) == 2
    assert "prefect server start" in capsys.readouterr().err


@pytest.mark.prefect
@pytest.mark.skipif(not os.environ.get("HITFLOW_LONG_TESTS"), reason="a scheduled live campaign on a real Prefect "
                    "server takes about 2 minutes (every run is a fresh process); `make test-live-schedule` runs it")
def test_a_schedule_comes_back_to_a_live_prolific_campaign(tmp_path: Path, prefect_server: dict[str, str]) -> None:
    """Each scheduled run looks at the open study and leaves; people arrive in between, with only
    the task server up (the simulator on the wall clock, x600)."""
    from flows.config import load_config
    from flows.sim.server import SimServer
    from flows.taskserver.task_server import TaskSite
    from flows.taskserver.task_server_thread import TaskServer

    config = small_campaign(tmp_path)
    text = config.read_text().replace('name = "vizwiz_captions"', 'name = "vizwiz_live"')
    config.write_text(text.replace("batches = 5 ", "batches = 2 ").replace("[timing]", '[timing]\ndetach = "always"'))
    cfg, db = load_config(config), tmp_path / "h.db"
    served = None
    with SimServer(seed=2, speed=600, arrival_mean_s=45) as sim, \
            TaskServer(TaskSite(db, {cfg.name: cfg}, cfg.prolific.completion_base)) as task_server:
        try:
            served = subprocess.Popen(
                [sys.executable, "-m", "flows.cli", "serve-schedules", str(config), "--platform", "prolific",
                 "--endpoint-url", sim.url, "--task-url", task_server.url, "--db", str(db), "--out",
                 str(tmp_path / "out")], env=prefect_server, cwd=ROOT, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
            deadline = time.time() + 300
            while time.time() < deadline:
                time.sleep(1)
                report = campaign_status(Store(db), cfg.name) if db.exists() else []
                if report and report[0]["status"] == "done":
                    break
            assert report and report[0]["status"] == "done"
        finally:
            if served is not None:
                served.terminate()
                served.wait(timeout=30)
        store = Store(db)
        assert {sim.prolific.studies[r["study_id"]]["status"] for r in store.rows("SELECT study_id FROM studies")} \
            == {"COMPLETED"}
        on_platform = {k: v["status"] for k, v in sim.prolific.submissions.items()}
        assert {r["submission_id"]: r["status"] for r in store.rows("SELECT * FROM platform_submissions")} \
            == on_platform
        submitted = sorted(r["session_id"] for r in store.rows(
            "SELECT session_id FROM task_sessions WHERE submitted_at IS NOT NULL"))
        assert sorted(r["assignment_id"] for r in store.rows("SELECT assignment_id FROM assignments")) == submitted
    assert (tmp_path / "out" / cfg.name / "dataset.json").is_file()
