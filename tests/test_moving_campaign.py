"""A campaign moves between Prefect workers through the PostgreSQL ledger: a real ``prefect server``,
two process workers on one pool, each in its own folder with its own HOME and PREFECT_HOME (they
share only the PostgreSQL database and the output folder; the simulator is one process beside
them, as docs/postgres.md says to run it). The schedule runs one batch per run; the worker running
a batch is killed with -9 in the middle of it, and a later run on the other worker resumes from
the ledger: no HIT twice, no answer lost, and the same dataset as an uninterrupted run.

Prefect's own waits are shortened through its settings (each cited below) and its zombie-flow
automation marks the killed run Crashed, which frees the deployment's one slot for the next run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from prefect.automations import AutomationCore
from prefect.client.schemas.objects import StateType
from prefect.events.actions import ChangeFlowRunState
from prefect.events.schemas.automations import EventTrigger, Posture
from prefect.events.schemas.events import ResourceSpecification

from bench.chaos import platform_view
from flows.core.store import Store
from flows.driver.campaign_run import run_campaign
from flows.sim.pacing import Pacing
from flows.sim.server import SimServer
from tests.prefect_server import prefect_server, stop_group
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
POOL = "hitflow-moving"
COLUMNS = ["image_id", "worker_id", "caption", "is_precanned", "is_rejected", "batch"]  # not ids: they differ per run
# Two batches of the 50-image demo, a run scheduled every 2 s (at most one at a time: `hitflow deploy`
# sets the deployment's concurrency limit to 1).
EDITS = {"batches = 5": "batches = 2", "interval_s = 3600": "interval_s = 2"}
# Prefect 3.8's waits, shortened (each default is in prefect/settings/models/ under the path named):
SERVER = {
    # server/services.py, scheduler.loop_seconds (60): how often the schedule's runs are made
    "PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "2",
    # server/deployments.py, concurrency_slot_wait_seconds (30): a run refused the deployment's one
    # slot is scheduled again this much later (server/orchestration/core_policy.py, AwaitingConcurrencySlot)
    "PREFECT_SERVER_DEPLOYMENTS_CONCURRENCY_SLOT_WAIT_SECONDS": "1",
    # server/concurrency.py, initial_deployment_lease_duration (300, at least 30): the slot's lease
    # until the flow run's engine renews it. The engine renews it for 300 s at a time (flow_engine.py,
    # maintain_concurrency_lease(lease_id, 300)), so a run killed after it started holds the slot
    # for up to 300 s unless it is marked Crashed first: the zombie automation below does that.
    "PREFECT_SERVER_CONCURRENCY_INITIAL_DEPLOYMENT_LEASE_DURATION": "30",
    # server/services.py, repossessor.loop_seconds (15): how often expired leases are revoked
    "PREFECT_SERVER_SERVICES_REPOSSESSOR_LOOP_SECONDS": "2",
}
WORKER = {
    # worker.py, query_seconds and prefetch_seconds (10 each): how often a worker asks for runs
    "PREFECT_WORKER_QUERY_SECONDS": "1", "PREFECT_WORKER_PREFETCH_SECONDS": "1",
    # flows.py, heartbeat_frequency (180, at least 30): a flow run's heartbeat events; a process
    # worker's flow runs inherit its environment (workers/process.py)
    "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": "30",
}
# A run whose heartbeats stop for this long is marked Crashed, which frees its concurrency slot
# (core_policy.py, ReleaseFlowConcurrencySlots). Prefect's "How to detect and respond to zombie flows"
# (docs.prefect.io/v3/advanced/detect-zombie-flows) gives the automation, with 90 s; 30 s heartbeats
# leave 15 s of slack here, and proactive triggers are evaluated every 5 s (server/events/triggers.py).
ZOMBIE_AFTER_S = 45


def dataset(folder: Path) -> Counter[tuple[str, ...]]:
    frame = pd.read_csv(folder / "vizwiz_captions" / "dataset.csv", keep_default_na=False)
    return Counter(map(tuple, frame[COLUMNS].astype(str).values.tolist()))


def ancestors(pid: int) -> list[int]:
    """``pid`` and its parents, from /proc."""
    chain = [pid]
    while pid > 1:
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            break
        chain.append(pid)
    return chain


def wait_for(what: str, check: Any, timeout: float) -> Any:
    """``check()`` once it is truthy. The timeouts are generous: on a 2-core machine loaded by other
    work, Prefect's server answers 503 for a while and each flow run's process starts slowly."""
    deadline = time.time() + timeout
    while not (found := check()):
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)
    return found


def mid_batch(store: Store) -> tuple[int, str] | None:
    """(batch, holder) while a run holds the campaign with batch 2's HITs posted and not yet decided."""
    holder = store.live_holder("vizwiz_captions")
    rows = store.rows("SELECT batch, status FROM batches WHERE campaign = 'vizwiz_captions' AND batch = 2 "
                      "AND status IN ('published', 'collected', 'qc_done')")
    return (rows[0]["batch"], holder) if holder and rows else None


def uninterrupted_run(config: Path, folder: Path) -> int:
    """The same campaign run once, start to end, on its own simulator: the HITs it posted."""
    with SimServer(seed=3) as clean_sim:
        run_campaign(config, endpoint_url=clean_sim.url, db_path=folder / "clean.db", out_root=folder,
                     progress=lambda _line: None)
        return len(clean_sim.market.hits)


def crash_zombie_runs(api_url: str) -> None:
    """Prefect's automation for zombie flow runs (the docs page cited at ZOMBIE_AFTER_S): a run with
    no heartbeat and no final state for that long is marked Crashed. An operator adds it once per
    Prefect server (docs/postgres.md); without it a killed worker's run frees the slot after 300 s."""
    automation = AutomationCore(
        name="crash zombie flow runs",
        trigger=EventTrigger(
            after={"prefect.flow-run.heartbeat"},
            expect={"prefect.flow-run.heartbeat", "prefect.flow-run.Completed", "prefect.flow-run.Failed",
                    "prefect.flow-run.Cancelled", "prefect.flow-run.Crashed"},
            match=ResourceSpecification({"prefect.resource.id": ["prefect.flow-run.*"]}),
            for_each={"prefect.resource.id"}, posture=Posture.Proactive, threshold=1,
            within=timedelta(seconds=ZOMBIE_AFTER_S)),
        actions=[ChangeFlowRunState(state=StateType.CRASHED, message="no heartbeat: its worker is gone")])
    request = urllib.request.Request(f"{api_url}/automations/", method="POST",
                                     data=json.dumps(automation.model_dump(mode="json")).encode(),
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=60).read()


def start_worker(home: Path, env: dict[str, str]) -> subprocess.Popen[Any]:
    """A process worker on the pool, in its own folder with its own HOME and Prefect home."""
    home.mkdir()
    return subprocess.Popen(
        [sys.executable, "-m", "prefect", "worker", "start", "--pool", POOL, "--type", "process", "--limit", "1",
         "--name", home.name],
        env={**env, **WORKER, "HOME": str(home), "PREFECT_HOME": str(home / ".prefect")}, cwd=home,
        stdout=(home / "worker.log").open("w"), stderr=subprocess.STDOUT, start_new_session=True)


@pytest.mark.slow
@pytest.mark.prefect
def test_a_campaign_killed_on_one_worker_finishes_on_the_other(pg_url: str, tmp_path: Path) -> None:
    config = small_vizwiz(tmp_path, edits=EDITS)
    clean = ThreadPoolExecutor(1).submit(uninterrupted_run, config, tmp_path / "clean")  # while Prefect starts
    out, started = tmp_path / "out", time.monotonic()
    with SimServer(seed=3) as sim, prefect_server(tmp_path / "prefect", **SERVER) as env:
        sim.httpd.pacing = Pacing(latency_ms=40)  # a batch lasts seconds, so the kill lands inside one
        crash_zombie_runs(env["PREFECT_API_URL"])
        workers = {name: start_worker(tmp_path / name, env) for name in ("w1", "w2")}  # while it deploys
        store = Store(pg_url)
        try:
            deployed = subprocess.run([sys.executable, "-m", "flows.cli", "deploy", str(config), "--endpoint-url",
                                       sim.url, "--db", pg_url, "--out", str(out), "--pool", POOL], env=env,
                                      cwd=ROOT, capture_output=True, text=True, timeout=300)
            assert deployed.returncode == 0, deployed.stdout + deployed.stderr
            batch, holder = wait_for("a run in the middle of batch 2", lambda: mid_batch(store), 600)
            flow_run = int(holder.rsplit(":", 1)[1])
            killed = next(n for n, w in workers.items() if w.pid in ancestors(flow_run))
            os.killpg(workers[killed].pid, signal.SIGKILL)  # the worker, and with it ...
            os.kill(flow_run, signal.SIGKILL)  # ... the flow run it started, mid-batch
            workers[killed].wait(30)
            print(f"killed {killed} and its flow run in batch {batch} at {time.monotonic() - started:.0f} s")
            wait_for("the other worker to finish the campaign", lambda: store.rows(
                "SELECT 1 FROM campaigns WHERE name = 'vizwiz_captions' AND status = 'done'"), 600)
            print(f"the campaign was done at {time.monotonic() - started:.0f} s")
        finally:
            for proc in workers.values():
                stop_group(proc)
        other = next(n for n in workers if n != killed)
        resumed = (tmp_path / other / "worker.log").read_text()
        assert f"batch {batch}: QC over" in resumed  # it finished the batch the other was killed in
        hits = store.rows("SELECT batch, hit_index FROM hits WHERE campaign = 'vizwiz_captions'")
        assert len(sim.market.hits) == len(hits) == clean.result(timeout=300)  # no HIT posted twice
        assert len({(h["batch"], h["hit_index"]) for h in hits}) == len(hits)
        submitted = {a["AssignmentId"] for a in platform_view(sim.url)["assignments"]}
        kept = {r["assignment_id"] for r in store.rows(  # stored with its answers, and decided and sent
            "SELECT assignment_id FROM assignments a WHERE EXISTS (SELECT 1 FROM answers x WHERE x.assignment_id = "
            "a.assignment_id) AND assignment_id IN (SELECT assignment_id FROM decisions WHERE applied != '')")}
        assert submitted and not submitted - kept  # no answer lost
    assert dataset(out) == dataset(tmp_path / "clean")  # the same dataset as the uninterrupted run
    assert batch == 2 and killed in workers
