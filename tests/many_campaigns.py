"""Many campaigns at once on Prefect: two workers on one work pool of a real ``prefect server``
run two campaigns at the same time, each under its campaign lock in the one ledger; a second
run of a campaign that is running waits for it, and a run past Prefect is refused by the lock.

The scenario is :func:`two_campaigns_run_at_once_on_two_workers`, run by tests/test_moving_campaign.py's
test on the two process workers it then kills one of: each worker's start (a process importing Prefect's
CLI and worker, ~2.5 s of CPU) is paid once for both scenarios."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flows.core.errors import CampaignBusyError
from flows.core.ledger.store import Store
from flows.sim.service.pacing import Pacing
from flows.sim.service.server import SimServer
from tests.small_configs import small_vizwiz


def campaign_config(tmp_path: Path, name: str) -> Path:
    """The VizWiz demo config on its first 20 images in two batches (4 HITs), under another campaign name:
    what is tested is two campaigns at once and a third run waiting, not a campaign's size (each flow
    run's process and its outputs cost CPU; the simulator's latency below keeps the runs overlapping)."""
    return small_vizwiz(tmp_path, name, items=20, edits={"batches = 5 ": "batches = 2 "})


def deploy(configs: list[Path], sim_url: str, db: Path, out: Path, pool: str,
           capsys: pytest.CaptureFixture[str]) -> None:
    """``hitflow deploy --whole`` for each config: the CLI's own entry point, in this process (whose client
    ``on_prefect_server`` points at the session's server), as test_deploy runs it; a process of its own
    for each spent ~2.4 s of CPU importing Prefect and hitflow, which this process has loaded already."""
    from flows.cli.main import main

    for config in configs:
        code = main(["deploy", str(config), "--whole", "--endpoint-url", sim_url, "--db", str(db), "--out", str(out),
                     "--pool", pool])
        output = capsys.readouterr().out
        assert code == 0 and "registered" in output, output


def held_locks(db: Path) -> dict[str, str]:
    if not db.exists():
        return {}
    return {r["campaign"]: r["holder"] for r in Store(db).rows("SELECT campaign, holder FROM locks")}


def wait_for(what: str, check: Any, timeout: float, every_s: float = 0.3) -> Any:
    deadline = time.time() + timeout
    while not (found := check()):
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(every_s)
    return found


def two_campaigns_run_at_once_on_two_workers(sim: SimServer, tmp_path: Path, pool: str,
                                             worker_of: Callable[[int], str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """alpha and beta deployed whole on ``pool``, whose two process workers (limit 1 each, running) are told
    apart by ``worker_of``: the name of the worker that started a process (its pid), "" for none."""
    from prefect.client.orchestration import get_client

    # each campaign lasts tens of seconds, so the two overlap even when a loaded machine starts the second
    # worker's flow-run process late (at 25 ms a call the first could finish before the second began);
    # a 20-image campaign makes fewer calls than the 50-image one this waited 120 ms a call for
    sim.httpd.pacing = Pacing(latency_ms=300)
    db, out = tmp_path / "h.db", tmp_path / "out"
    tmp_path.mkdir(exist_ok=True)
    deploy([campaign_config(tmp_path, name) for name in ("alpha", "beta")], sim.url, db, out, pool, capsys)
    with get_client(sync_client=True) as client:  # the session's server (``on_prefect_server``)
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
        # one campaign on each worker: the worker that started each holder (its host:pid)
        took = {n: worker_of(int(locks[n].rsplit(":", 1)[1])) for n in ("alpha", "beta")}
        # seen at once: the latency that kept them overlapping would only stretch the rest (~40 s of
        # each run's wall, during which the server, both workers and the runs poll one another)
        sim.httpd.pacing.latency_ms = 0
        runs["alpha again"] = client.create_flow_run_from_deployment(deployments["alpha"].id).id
        final = wait_for("every run to finish", lambda: (
            fr := {n: client.read_flow_run(i) for n, i in runs.items()}) and all(
            r.state and r.state.is_final() for r in fr.values()) and fr, 240, every_s=1)  # 3 API calls a look
    assert {n: r.state.type.value for n, r in final.items()} == dict.fromkeys(runs, "COMPLETED")
    # the second alpha run waited for the first: they never ran at the same time
    assert final["alpha again"].start_time >= final["alpha"].end_time
    assert all(took.values()) and took["alpha"] != took["beta"], took  # each under a worker, not the same one
    # both campaigns finished in the one ledger; the second alpha run posted nothing more
    store = Store(db)
    done = {r["name"]: r["status"] for r in store.rows("SELECT name, status FROM campaigns")}
    assert done == {"alpha": "done", "beta": "done"}
    hits = {r["campaign"]: r["n"] for r in store.rows("SELECT campaign, COUNT(*) AS n FROM hits GROUP BY campaign")}
    assert hits == {"alpha": 4, "beta": 4} and len(sim.market.hits) == 8
    assert (out / "alpha" / "dataset.json").is_file() and (out / "beta" / "dataset.json").is_file()
