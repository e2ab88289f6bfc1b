"""A schedule on a real Prefect server advances a campaign batch by batch, with nobody there."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from flows.core.ledger.store import Store
from flows.core.outputs.output_location import staging_root
from flows.driver.campaign_run import run_campaign
from flows.driver.campaign_status import campaign_status
from flows.sim.service.pacing import Pacing
from flows.sim.service.server import SimServer
from tests.prefect_server import group_gone, group_members, process_group
from tests.small_configs import small_vizwiz
from tests.unseen_figures import figures_unseen

ROOT = Path(__file__).resolve().parents[1]


def small_campaign(tmp_path: Path, name: str = "vizwiz_captions") -> Path:
    """The demo's first 20 images in two batches (4 HITs), a run every 3 s. Each scheduled run is a process
    of its own (~2-3 s of CPU): two batches are the fewest that show a batch after another (a third only cost
    its run's process). A batch's size is not what is tested: more HITs a batch only cost CPU."""
    return small_vizwiz(tmp_path, name, edits={"interval_s = 3600": "interval_s = 3", "batches = 5 ": "batches = 2 "},
                        items=20)


@pytest.fixture
def prefect_server(prefect_worker_server: dict[str, str]) -> dict[str, str]:
    """A real Prefect server (the ephemeral one does not schedule): the xdist worker's, whose
    scheduler looks every 3 s (tests/prefect_server.py's WORKER_SERVER_SETTINGS)."""
    return prefect_worker_server


def serve_schedules(config: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "flows.cli", "serve-schedules", str(config), *args]


@pytest.mark.slow
@pytest.mark.prefect
def test_schedule_runs_the_campaign_to_completion(sim, tmp_path: Path, prefect_server: dict[str, str]) -> None:
    """Its outputs go to a file:// URL (another host's folder): the files a run without Prefect puts there. Its
    scheduled runs draw no report figure (``figures_unseen``), as that run draws none here: the same files."""
    db, url, staging = tmp_path / "h.db", f"file://{tmp_path / 'other-host'}", tmp_path / "staging"
    # a name of its own: the worker's Prefect server may hold test_prefect_flow's vizwiz_captions-next-batch
    config = small_campaign(tmp_path, "vizwiz_scheduled")
    # the first batch lasts seconds (~20 platform calls), so a poll sees it under way before it is done
    sim.httpd.pacing = Pacing(latency_ms=100)
    command = serve_schedules(config, "--endpoint-url", sim.url, "--db", str(db), "--out", url)
    with deleted_if_failing(prefect_server, "vizwiz_scheduled"), \
            (tmp_path / "served.out").open("w") as said, \
            process_group(command, env=figures_unseen({**prefect_server, "HITFLOW_STAGING": str(staging)}), cwd=ROOT,
                          stdout=said, stderr=subprocess.STDOUT):
        finished_seen: list[int] = []
        deadline = time.time() + 420  # one flow-run process per batch: slow on a loaded 2-core machine
        while time.time() < deadline:
            time.sleep(1 if finished_seen else 0.2)  # often until the campaign is first seen (its first batch)
            if not db.exists():
                continue
            report = campaign_status(Store(db), "vizwiz_scheduled")
            if not report:
                continue
            finished = sum(b["status"] == "blocked" for b in report[0]["batches"])
            # Status tells the truth: it never reports a HIT the platform lacks (while a batch is being
            # posted, 16 threads create HITs before their rows are stored), batches finish in order.
            assert sum(b["hits"] for b in report[0]["batches"]) <= len(sim.market.hits)
            assert [b["status"] == "blocked" for b in report[0]["batches"]] == [i < finished for i in range(2)]
            finished_seen.append(finished)
            if report[0]["status"] == "done":
                break
        assert report[0]["status"] == "done" and finished_seen[-1] == 2
        assert sum(b["hits"] for b in report[0]["batches"]) == len(sim.market.hits)  # at rest: every HIT
        assert finished_seen == sorted(finished_seen) and set(finished_seen) == {0, 1, 2}  # seen step by step
        at_url = tmp_path / "other-host" / "vizwiz_scheduled"
        assert (at_url / "dataset.json").is_file()
        # done: the run after the last batch pauses the schedule itself (on a loaded machine that run's
        # process starts many seconds later), so no more (empty) runs rewrite the report
        name = "deployments/name/hitflow-next-batch/vizwiz_scheduled"
        while not (deployment := prefect_api(prefect_server, "GET", name))["paused"] and time.time() < deadline:
            time.sleep(1)
        assert deployment["paused"] is True
        report_html = staging / staging_root(url).name / "vizwiz_scheduled" / "report.html"
        written = report_html.stat().st_mtime_ns
        time.sleep(9)  # three intervals of the schedule, three scheduler loops
        assert report_html.stat().st_mtime_ns == written
    served = (tmp_path / "served.out").read_text()
    # stopped (SIGTERM to its group) once the campaign is done: a quiet stop, in words
    assert "Crash detected" not in served and "stopped serving; vizwiz_scheduled is done" in served, served[-2000:]
    assert tree(at_url) == tree(report_html.parent)  # the run's local copy, byte for byte
    plain_url = f"file://{tmp_path / 'plain-host'}"
    with SimServer(seed=3) as plain_sim:  # the same campaign without Prefect, as one run
        run_campaign(config, endpoint_url=plain_sim.url, db_path=tmp_path / "plain.db", out_root=plain_url,
                     progress=lambda line: None)
    assert set(tree(at_url)) == set(tree(tmp_path / "plain-host" / "vizwiz_scheduled"))
    # hitflow's own step lines are in the flow runs' logs (what Prefect's UI shows): this deployment's
    # runs' logs, as the worker's server holds other tests' flow runs too
    runs = prefect_api(prefect_server, "POST", "flow_runs/filter",
                       {"deployments": {"id": {"any_": [deployment["id"]]}}})
    logs = prefect_api(prefect_server, "POST", "logs/filter",
                       {"logs": {"flow_run_id": {"any_": [r["id"] for r in runs]}}, "limit": 200})
    assert any(log["message"].startswith("batch 1: QC over") for log in logs)


@contextmanager
def deleted_if_failing(env: dict[str, str], campaign: str) -> Iterator[None]:
    """A failing test's deployment deleted: left with its 3-s schedule on the session's server, its runs
    piled up beside the next tests' (in a fresh-clone run where this one failed, the next one's SIGTERM
    wait failed too)."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            name = f"deployments/name/hitflow-next-batch/{campaign}"
            prefect_api(env, "DELETE", f"deployments/{prefect_api(env, 'GET', name)['id']}")
        raise


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def prefect_api(env: dict[str, str], method: str, path: str, body: object = None) -> Any:
    """One call to the server's REST API. A 503 is retried, as Prefect's own client does: the server
    answers it for a SQLite write that met another connection's commit (the scheduler inserts a 3-s
    schedule's runs every 3 s while a DELETE of that deployment removes them)."""
    import json
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"{env['PREFECT_API_URL']}/{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    for attempt in range(5):
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return json.loads(reply.read() or b"null")  # a DELETE answers 204, no body
        except urllib.error.HTTPError as error:
            if error.code != 503 or attempt == 4:
                raise
            time.sleep(1)


@pytest.mark.slow
@pytest.mark.prefect
def test_serve_schedules_stops_on_sigterm_while_a_batch_hangs(sim, tmp_path: Path,
                                                               prefect_server: dict[str, str]) -> None:
    """SIGTERM to `hitflow serve-schedules` alone (as `kill PID` sends it) while a scheduled run is
    stuck in a platform call: the flow run is stopped and the whole process group is gone within
    seconds, saying so without a traceback. Prefect's own handler waited for the run to finish
    (here: minutes of timeouts)."""
    sim.httpd.pacing.latency_ms = 600_000  # every MTurk call hangs; boto3 gives up after 10 x 30 s
    db, config = tmp_path / "h.db", small_campaign(tmp_path)
    # a deployment of its own: the worker's server may hold the test above's (paused when it was done)
    config.write_text(config.read_text().replace('name = "vizwiz_captions"', 'name = "vizwiz_sigterm"'))
    command = serve_schedules(config, "--endpoint-url", sim.url, "--db", str(db), "--out", str(tmp_path / "out"))
    log = tmp_path / "serve.log"
    with log.open("w") as out, process_group(command, env=prefect_server, cwd=ROOT, stdout=out,
                                              stderr=subprocess.STDOUT) as served:
        deadline = time.time() + 180
        while not (db.exists() and Store(db).table("items").count_where("campaign = 'vizwiz_sigterm'")):
            assert time.time() < deadline and served.poll() is None, "no scheduled run started"
            time.sleep(0.5)
        time.sleep(2)  # planned: the run is in (or about to make) its first, hanging, platform call
        assert len(group_members(served.pid)) > 1  # the flow run is a process of its own
        served.send_signal(signal.SIGTERM)
        started = time.monotonic()
        # the defect waited out boto3's retries (10 x 30 s); 120 s leaves room for a host loaded by two suites
        gone = group_gone(served, 120)
        took = time.monotonic() - started
        assert gone, f"serve-schedules' group still has {group_members(served.pid)} {took:.0f} s after SIGTERM"
        assert served.returncode == 0
    said = log.read_text()
    assert "SIGTERM: stopping the flow run in progress" in said and "stopped serving" in said
    assert "Traceback" not in said, said[-3000:]
    # the worker's server outlives the test: its 3-s schedule must not make runs beside other tests
    deployment = prefect_api(prefect_server, "GET",
                             "deployments/name/hitflow-next-batch/vizwiz_sigterm")
    prefect_api(prefect_server, "DELETE", f"deployments/{deployment['id']}")


def test_a_test_s_process_group_ends_even_when_it_ignores_sigterm() -> None:
    """The cleanup every test here relies on: a leader that ignores SIGTERM and a child it started
    are both gone when the block is left (before: terminate() and a wait that timed out, leaving both)."""
    script = ("import signal, subprocess, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
              "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); print('up', flush=True); "
              "time.sleep(600)")
    with process_group([sys.executable, "-c", script], grace_s=1, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None and proc.stdout.readline() == "up\n"
        time.sleep(0.3)
        assert len(group_members(proc.pid)) == 2
    assert group_members(proc.pid) == [] and proc.returncode == -signal.SIGKILL


def test_schedules_refuse_the_ephemeral_server(tmp_path: Path, capsys, monkeypatch) -> None:
    from flows.cli.main import main

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    assert main(["serve-schedules", str(small_campaign(tmp_path))]) == 2
    assert "prefect server start" in capsys.readouterr().err


@pytest.mark.prefect
@pytest.mark.skipif(not os.environ.get("HITFLOW_LONG_TESTS"), reason="a scheduled live campaign on a real Prefect "
                    "server takes about 2 minutes (every run is a fresh process); `make test-live-schedule` runs it")
def test_a_schedule_comes_back_to_a_live_prolific_campaign(tmp_path: Path, prefect_server: dict[str, str]) -> None:
    """Each scheduled run looks at the open study and leaves; people arrive in between, with only
    the task server up (the simulator on the wall clock, x600)."""
    from flows.core.config.config import load_config
    from flows.taskserver.task_server import TaskSite
    from flows.taskserver.task_server_thread import TaskServer

    config = small_campaign(tmp_path)
    text = config.read_text().replace('name = "vizwiz_captions"', 'name = "vizwiz_live"')
    config.write_text(text.replace("batches = 5 ", "batches = 2 ").replace("[timing]", '[timing]\ndetach = "always"'))
    cfg, db = load_config(config), tmp_path / "h.db"
    with SimServer(seed=2, speed=600, arrival_mean_s=45) as sim, \
            TaskServer(TaskSite(db, {cfg.name: cfg}, cfg.prolific.completion_base)) as task_server:
        command = serve_schedules(config, "--platform", "prolific", "--endpoint-url", sim.url, "--task-url",
                                  task_server.url, "--db", str(db), "--out", str(tmp_path / "out"))
        with process_group(command, env=prefect_server, cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL):
            deadline = time.time() + 300
            while time.time() < deadline:
                time.sleep(1)
                report = campaign_status(Store(db), cfg.name) if db.exists() else []
                if report and report[0]["status"] == "done":
                    break
            assert report and report[0]["status"] == "done"
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
