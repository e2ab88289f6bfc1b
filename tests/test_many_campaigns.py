"""Many campaigns at once on Prefect: two workers on one work pool of a real ``prefect server``
run two campaigns at the same time, each under its campaign lock in the one ledger; a second
run of a campaign that is running waits for it, and a run past Prefect is refused by the lock."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from flows.core.errors import CampaignBusyError
from flows.core.ledger.store import Store
from flows.sim.service.pacing import Pacing
from tests.prefect_server import prefect_cli, stop_group
from tests.small_configs import small_vizwiz

POOL = "hitflow-many"


def campaign_config(tmp_path: Path, name: str) -> Path:
    """The VizWiz demo config on its first 20 images in two batches (4 HITs), under another campaign name:
    what is tested is two campaigns at once and a third run waiting, not a campaign's size (each flow
    run's process and its outputs cost CPU; the simulator's latency below keeps the runs overlapping)."""
    return small_vizwiz(tmp_path, name, items=20, edits={"batches = 5 ": "batches = 2 "})


def deploy(configs: list[Path], sim_url: str, db: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``hitflow deploy --whole`` for each config: the CLI's own entry point, in this process (whose client
    ``on_prefect_server`` points at the session's server), as test_deploy runs it; a process of its own
    for each spent ~2.4 s of CPU importing Prefect and hitflow, which this process has loaded already."""
    from flows.cli.main import main

    for config in configs:
        code = main(["deploy", str(config), "--whole", "--endpoint-url", sim_url, "--db", str(db), "--out", str(out),
                     "--pool", POOL])
        output = capsys.readouterr().out
        assert code == 0 and "registered" in output, output


def held_locks(db: Path) -> dict[str, str]:
    if not db.exists():
        return {}
    return {r["campaign"]: r["holder"] for r in Store(db).rows("SELECT campaign, holder FROM locks")}


def wait_for(what: str, check: Any, timeout: float) -> Any:
    deadline = time.time() + timeout
    while not (found := check()):
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)
    return found


@pytest.mark.slow
@pytest.mark.prefect
def test_two_campaigns_run_at_once_on_two_workers(sim, tmp_path: Path, prefect_worker_server: dict[str, str],
                                                   on_prefect_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    # each campaign lasts tens of seconds, so the two overlap even when a loaded machine starts the second
    # worker's flow-run process late (at 25 ms a call the first could finish before the second began);
    # a 20-image campaign makes fewer calls than the 50-image one this waited 120 ms a call for
    sim.httpd.pacing = Pacing(latency_ms=300)
    db, out = tmp_path / "h.db", tmp_path / "out"
    settings = {"PREFECT_WORKER_QUERY_SECONDS": "1", "PREFECT_WORKER_PREFETCH_SECONDS": "1"}
    env = {**prefect_worker_server, **settings}  # the xdist worker's server; the pool and names are this test's
    deploy([campaign_config(tmp_path, name) for name in ("alpha", "beta")], sim.url, db, out, capsys)
    worker_env = {**env, "PREFECT_LOGGING_LEVEL": "INFO"}  # the log names each run a worker submits
    start = prefect_cli("worker", "start", "--pool", POOL, "--limit", "1", "--name")
    worker_logs = {w: (tmp_path / f"{w}.log").open("w") for w in ("w1", "w2")}
    workers = [subprocess.Popen([*start, w], env=worker_env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True) for w, log in worker_logs.items()]
    try:
        with temporary_settings({PREFECT_API_URL: env["PREFECT_API_URL"]}), \
                get_client(sync_client=True) as client:
            deployments = {d.name: d for d in client.read_deployments()}
            # each flow run: the engine as hitflow starts it on a process pool (flows/cli/flow_run_process.py)
            assert all(deployments[n].job_variables["command"].endswith(" -m flows.cli.flow_run_process")
                       for n in ("alpha", "beta"))
            runs = {n: client.create_flow_run_from_deployment(deployments[n].id).id for n in ("alpha", "beta")}
            wait_for("alpha to hold its lock", lambda: "alpha" in held_locks(db), 90)
            # a run that bypasses Prefect's queue meets the lock and is refused
            with pytest.raises(CampaignBusyError, match="alpha is being run by"), \
                    Store(db).campaign_lock("alpha"):
                pass
            # both campaigns are running at the same moment, each holding its own lock in the one ledger
            locks = wait_for("both campaigns to hold their locks",
                             lambda: (h := held_locks(db)).keys() >= {"alpha", "beta"} and h, 120)
            assert locks["alpha"] != locks["beta"]
            # seen at once: the latency that kept them overlapping would only stretch the rest (~40 s of
            # each run's wall, during which the server, both workers and the runs poll one another)
            sim.httpd.pacing.latency_ms = 0
            runs["alpha again"] = client.create_flow_run_from_deployment(deployments["alpha"].id).id
            final = wait_for("every run to finish", lambda: (
                fr := {n: client.read_flow_run(i) for n, i in runs.items()}) and all(
                r.state and r.state.is_final() for r in fr.values()) and fr, 240)
    finally:
        for proc in workers:  # with the flow-run processes each started
            stop_group(proc)
        for log in worker_logs.values():
            log.close()
    assert {n: r.state.type.value for n, r in final.items()} == dict.fromkeys(runs, "COMPLETED")
    # the second alpha run waited for the first: they never ran at the same time
    assert final["alpha again"].start_time >= final["alpha"].end_time
    logs = {w: (tmp_path / f"{w}.log").read_text() for w in ("w1", "w2")}
    took = {w: {n for n, i in runs.items() if f"submitting flow run '{i}'" in text} for w, text in logs.items()}
    assert {"alpha", "beta"} == {n for names in took.values() for n in names if n != "alpha again"}
    assert all(names - {"alpha again"} for names in took.values())  # one campaign on each worker
    # both campaigns finished in the one ledger; the second alpha run posted nothing more
    store = Store(db)
    done = {r["name"]: r["status"] for r in store.rows("SELECT name, status FROM campaigns")}
    assert done == {"alpha": "done", "beta": "done"}
    hits = {r["campaign"]: r["n"] for r in store.rows("SELECT campaign, COUNT(*) AS n FROM hits GROUP BY campaign")}
    assert hits == {"alpha": 4, "beta": 4} and len(sim.market.hits) == 8
    assert (out / "alpha" / "dataset.json").is_file() and (out / "beta" / "dataset.json").is_file()
