"""A campaign moves between Prefect workers through the PostgreSQL ledger: a real ``prefect server``
(the test session's, tests/conftest.py's ``prefect_worker_server``), two process workers on one pool,
each in its own folder with its own HOME and PREFECT_HOME (they share only the PostgreSQL database,
the output folder and the session's spelling cache; the simulator is one process beside them, as
docs/postgres.md says to run it). Its first batch is advanced by the next-batch flow in the test's process;
then the schedule runs one batch per run on the workers; the worker running batch 2 is killed with -9 in the
middle of it, and a later run on the other worker resumes from the ledger: no HIT twice, no answer lost, and
the same dataset as an uninterrupted run.

The workers' waits are shortened through Prefect's settings (cited below); the killed run is
marked Crashed in Prefect as its zombie-flow automation would, which frees the deployment's one slot.

The same two workers first run tests/many_campaigns.py's two campaigns at once (each worker's start, a
process importing Prefect's CLI and worker, ~2.5 s of CPU, paid once for both)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from bench.chaos import platform_view
from flows.core.ledger.store import Store
from flows.core.outputs.spelling_cache import cache_dir
from flows.driver.campaign_run import run_campaign
from flows.sim.service.pacing import Pacing
from flows.sim.service.server import SimServer
from tests.many_campaigns import two_campaigns_run_at_once_on_two_workers
from tests.prefect_server import prefect_cli, stop_group
from tests.small_configs import small_vizwiz
from tests.unseen_figures import figures_unseen

POOL = "hitflow-moving"
# Its own name: the session's Prefect server is shared, and test_prefect_flow deploys vizwiz_captions-next-batch there.
CAMPAIGN = "moving_captions"
COLUMNS = ["image_id", "worker_id", "caption", "is_precanned", "is_rejected", "batch"]  # not ids: they differ per run
# Two batches of the demo's first 20 images (2 HITs each: a batch is what moves, not its size), a run
# scheduled every 15 s. `hitflow deploy` allows one run at a
# time: a run due while another holds the slot waits (AwaitingConcurrencySlot) and is proposed again
# later (server/deployments.py, concurrency_slot_wait_seconds: 30 s on the session's server); a run is
# due every 15 s anyway, so the campaign goes on as soon as the slot is free. Every 2 s piled up dozens
# of waiting runs that the workers proposed again and again, keeping the Prefect server busy on a
# loaded machine. The session's server makes the schedule's runs every 3 s (tests/prefect_server.py,
# WORKER_SERVER_SETTINGS). Not shortened: server/concurrency.py, initial_deployment_lease_duration (300,
# at least 30), the slot's lease until the flow run's engine renews it. At 30 s a run whose process
# took longer to start on a loaded machine lost its slot ("slot lost during provisioning") and a second
# run started beside it. The engine renews it for 300 s at a time (flow_engine.py,
# maintain_concurrency_lease(lease_id, 300)): see crash_in_prefect() for a killed run.
EDITS = {"batches = 5": "batches = 2", "interval_s = 3600": "interval_s = 15"}
# Prefect 3.8's waits, shortened (each default is in prefect/settings/models/ under the path named):
WORKER = {
    # worker.py, query_seconds and prefetch_seconds (10 each): how often a worker asks for runs
    "PREFECT_WORKER_QUERY_SECONDS": "2", "PREFECT_WORKER_PREFETCH_SECONDS": "2",
}


def dataset(folder: Path) -> Counter[tuple[str, ...]]:
    frame = pd.read_csv(folder / CAMPAIGN / "dataset.csv", keep_default_na=False)
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


def prefect_run_id(pid: int) -> str:
    """The Prefect flow run a process worker started as ``pid`` (its PREFECT__FLOW_RUN_ID)."""
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return next(v.split(b"=", 1)[1].decode() for v in environ if v.startswith(b"PREFECT__FLOW_RUN_ID="))


def wait_for(what: str, check: Any, timeout: float, every_s: float = 0.2) -> Any:
    """``check()`` once it is truthy. The timeouts are generous: on a 2-core machine loaded by other
    work, Prefect's server answers 503 for a while and each flow run's process starts slowly."""
    deadline = time.time() + timeout
    while not (found := check()):
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(every_s)
    return found


def mid_batch(store: Store) -> tuple[int, str] | None:
    """(batch, holder) while a run holds the campaign with batch 2's HITs posted and not yet decided."""
    holder = store.live_holder(CAMPAIGN)
    rows = store.rows(f"SELECT batch, status FROM batches WHERE campaign = '{CAMPAIGN}' AND batch = 2 "
                      "AND status IN ('published', 'collected', 'qc_done')")
    # the holder's host:pid, once the run has written it beside the advisory lock it took
    return (rows[0]["batch"], holder) if holder and ":" in holder and rows else None


def uninterrupted_run(config: Path, folder: Path) -> int:
    """The same campaign run once, start to end, on its own simulator: the HITs it posted."""
    with SimServer(seed=3) as clean_sim:
        run_campaign(config, endpoint_url=clean_sim.url, db_path=folder / "clean.db", out_root=folder,
                     progress=lambda _line: None)
        return len(clean_sim.market.hits)


def crash_in_prefect(api_url: str, flow_run_id: str) -> None:
    """Mark the killed flow run Crashed, as Prefect's zombie-flow automation would (docs.prefect.io/
    v3/advanced/detect-zombie-flows: heartbeats, PREFECT_FLOWS_HEARTBEAT_FREQUENCY >= 30, and a
    proactive trigger), which frees the deployment's slot (server/orchestration/core_policy.py,
    ReleaseFlowConcurrencySlots). Left alone, the slot frees when the run's lease ends, up to 300 s
    after the kill. The automation itself is not used: on this 2-core machine at load 17-23 its
    event pipeline lagged so far that it fired on a live run (a heartbeat processed late) and not
    within 8 minutes on the killed one. What is tested is hitflow's side: the next run resumes."""
    request = urllib.request.Request(
        f"{api_url}/flow_runs/{flow_run_id}/set_state", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"state": {"type": "CRASHED", "message": "its worker was killed"}, "force": True}).encode())
    urllib.request.urlopen(request, timeout=120).read()


def start_worker(home: Path, env: dict[str, str]) -> subprocess.Popen[Any]:
    """A process worker on the pool, in its own folder with its own HOME and Prefect home. Its flow runs spell
    from the session's spelling cache (``HITFLOW_CACHE_DIR``): in a HOME of their own, the first run on each
    worker built the index (~3 s of CPU) that this process has on disk; it is a cache, not the worker's state.
    Its flow runs draw no report figure (``figures_unseen``): the test reads their datasets, ledgers and logs."""
    home.mkdir()
    return subprocess.Popen(
        prefect_cli("worker", "start", "--pool", POOL, "--type", "process", "--limit", "1", "--name", home.name),
        env=figures_unseen({**env, **WORKER, "HOME": str(home), "PREFECT_HOME": str(home / ".prefect"),
                            "HITFLOW_CACHE_DIR": str(cache_dir())}), cwd=home,
        stdout=(home / "worker.log").open("w"), stderr=subprocess.STDOUT, start_new_session=True)


def deploy(config: Path, sim_url: str, pg_url: str, out: Path) -> None:
    """``hitflow deploy``: the CLI's own entry point, in this process (whose client ``on_prefect_server``
    points at the session's server), as test_deploy runs it; a process of its own spent ~2.3 s of CPU
    importing Prefect and hitflow, which this process has loaded."""
    from flows.cli.main import main

    assert main(["deploy", str(config), "--endpoint-url", sim_url, "--db", pg_url, "--out", str(out),
                 "--pool", POOL]) == 0


def undeploy() -> None:
    """Its 15-s schedule would make runs on the session's server for the rest of the session."""
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    with get_client(sync_client=True) as client, contextlib.suppress(ObjectNotFound):  # a deploy that failed
        client.delete_deployment(client.read_deployment_by_name(f"hitflow-next-batch/{CAMPAIGN}").id)


@pytest.mark.slow
@pytest.mark.prefect
def test_two_campaigns_at_once_then_one_killed_on_one_worker_finishes_on_the_other(
        sim: SimServer, pg_url: str, tmp_path: Path, prefect_worker_server: dict[str, str], on_prefect_server: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """One pair of workers for two scenarios: tests/many_campaigns.py's two campaigns at once (on the
    ``sim`` fixture's simulator and an SQLite ledger), then this module's campaign that moves when the worker
    running it is killed (the kill ends the pair's use)."""
    config = small_vizwiz(tmp_path, CAMPAIGN, edits=EDITS, items=20)
    clean = ThreadPoolExecutor(1).submit(uninterrupted_run, config, tmp_path / "clean")  # while it deploys
    out, started, env = tmp_path / "out", time.monotonic(), prefect_worker_server
    workers = {name: start_worker(tmp_path / name, env) for name in ("w1", "w2")}  # while it deploys

    def worker_of(pid: int) -> str:
        return next((n for n, w in workers.items() if w.pid in ancestors(pid)), "")

    try:
        two_campaigns_run_at_once_on_two_workers(sim, tmp_path / "many", POOL, worker_of, capsys)
        print(f"two campaigns at once were done at {time.monotonic() - started:.0f} s")
        with SimServer(seed=3) as moving_sim:
            batch, killed, hits = moved_campaign(moving_sim, workers, config, pg_url, out, env, started)
        clean_hits = clean.result(timeout=300)
    finally:
        for proc in workers.values():
            stop_group(proc)
        undeploy()
    other = next(n for n in workers if n != killed)
    resumed = (tmp_path / other / "worker.log").read_text()
    assert f"batch {batch}: QC over" in resumed  # it finished the batch the other was killed in
    assert hits == clean_hits  # no HIT posted twice
    assert dataset(out) == dataset(tmp_path / "clean")  # the same dataset as the uninterrupted run
    assert batch == 2 and killed in workers


def moved_campaign(sim: SimServer, workers: dict[str, subprocess.Popen[Any]], config: Path, pg_url: str, out: Path,
                   env: dict[str, str], started: float) -> tuple[int, str, int]:
    """The campaign's first batch advanced by the next-batch flow in this process, then the campaign deployed on a
    15-s schedule, the worker running its next batch killed with its flow run in the middle of it (batch 2), and
    the campaign finished by the other: (the batch, the killed worker's name, the HITs posted). A worker's run of
    batch 1 cost a flow run's process (~3 s of CPU) and a schedule's interval of waiting; what moves is batch 2."""
    from flows.driver.campaign_flow import next_batch

    store = Store(pg_url)
    assert next_batch(config_path=str(config), endpoint_url=sim.url, db_path=pg_url, out_root=str(out)) == {
        "advanced_batch": 1, "done": False}
    sim.httpd.pacing = Pacing(latency_ms=100)  # a batch lasts seconds, so the kill lands inside one
    deploy(config, sim.url, pg_url, out)
    print(f"the campaign deployed at {time.monotonic() - started:.0f} s")
    batch, holder = wait_for("a run in the middle of batch 2", lambda: mid_batch(store), 600)
    flow_run = int(holder.rsplit(":", 1)[1])
    killed = next(n for n, w in workers.items() if w.pid in ancestors(flow_run))
    run_id = prefect_run_id(flow_run)
    os.killpg(workers[killed].pid, signal.SIGKILL)  # the worker, and with it ...
    os.kill(flow_run, signal.SIGKILL)  # ... the flow run it started, mid-batch
    workers[killed].wait(30)
    crash_in_prefect(env["PREFECT_API_URL"], run_id)
    sim.httpd.pacing.latency_ms = 0  # the kill landed inside the batch: the resumed run need not be slow
    print(f"killed {killed} and its flow run in batch {batch} at {time.monotonic() - started:.0f} s")
    wait_for("the other worker to finish the campaign", lambda: store.rows(
        f"SELECT 1 FROM campaigns WHERE name = '{CAMPAIGN}' AND status = 'done'"), 600, every_s=1)  # no window to catch
    print(f"the campaign was done at {time.monotonic() - started:.0f} s")
    hits = store.rows(f"SELECT batch, hit_index FROM hits WHERE campaign = '{CAMPAIGN}'")
    assert len(sim.market.hits) == len(hits)  # no HIT posted twice (and as many as the uninterrupted run: the caller)
    assert len({(h["batch"], h["hit_index"]) for h in hits}) == len(hits)
    submitted = {a["AssignmentId"] for a in platform_view(sim.url)["assignments"]}
    kept = {r["assignment_id"] for r in store.rows(  # stored with its answers, and decided and sent
        "SELECT assignment_id FROM assignments a WHERE EXISTS (SELECT 1 FROM answers x WHERE x.assignment_id = "
        "a.assignment_id) AND assignment_id IN (SELECT assignment_id FROM decisions WHERE applied != '')")}
    assert submitted and not submitted - kept  # no answer lost
    return batch, killed, len(hits)
