"""The campaign as a real Prefect flow (the xdist worker's Prefect server): task names and outputs."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from flows.driver.batch_steps import STEP_NAMES as STEPS
from tests.small_configs import extensions, small_vizwiz

ROOT = Path(__file__).resolve().parents[1]


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def dataset(files: dict[str, bytes]) -> list[dict[str, object]]:
    """dataset.json's captions without the platform's assignment ids (the simulator draws new ones each run)."""
    captions = json.loads(files["dataset.json"])["annotations"]
    return [{k: v for k, v in c.items() if k != "assignment_id"} for c in captions]


@pytest.mark.slow
@pytest.mark.prefect
def test_prefect_flow_runs_coarse_tasks(sim, tmp_path: Path, on_prefect_server: str, monkeypatch) -> None:
    """Also: its outputs at a file:// URL (another host's folder) are the files a run without Prefect puts there."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId, FlowRunFilter, FlowRunFilterId

    from flows.driver.campaign_flow import whole_campaign  # here: a worker that runs no Prefect test never imports it
    from flows.driver.campaign_run import run_campaign
    from flows.sim.service.server import SimServer

    monkeypatch.setenv("HITFLOW_STAGING", str(tmp_path / "staging"))
    # the demo's first 10 images (its top-ups kept): two batches of one HIT, each a batch's six steps and the
    # top-ups' tasks; a batch more made the same tasks again
    config = str(small_vizwiz(tmp_path, items=10, top_ups=True, edits={"batches = 5 ": "batches = 2 "}))
    url, flow = f"file://{tmp_path / 'prefect-host'}", whole_campaign
    state = flow(config_path=config, endpoint_url=sim.url, db_path=str(tmp_path / "h.db"), out_root=url,
                 return_state=True)
    assert state.is_completed()
    result = state.result()
    # captions: 10 images x 5 and 5 for each assignment the demo's caption top-ups added (a HIT shows 5 images)
    assert result["done"] == 5 * (10 + extensions(tmp_path / "h.db"))
    assert Path(result["out_dir"], "report.html").is_file()
    at_url = tree(tmp_path / "prefect-host" / "vizwiz_captions")
    assert at_url == tree(Path(result["out_dir"]))  # the run's local copy, byte for byte
    with SimServer(seed=3) as plain_sim:  # the same simulator, the same campaign, without Prefect
        run_campaign(config, endpoint_url=plain_sim.url, db_path=tmp_path / "plain.db",
                     out_root=f"file://{tmp_path / 'plain-host'}", progress=lambda line: None)
    plain = tree(tmp_path / "plain-host" / "vizwiz_captions")
    assert set(at_url) == set(plain) and dataset(at_url) == dataset(plain)
    # the worker's server holds other tests' runs too: this flow run's own task runs and artifacts
    mine = state.state_details.flow_run_id
    wanted_steps = {"publish batch 1", "collect submissions 1", "run QC 1", "wait for review 1", "approve or reject 1",
                    "block flagged workers 2"}
    wanted_artifacts = {f"vizwiz-captions-batch-{b}" for b in range(1, 3)} | {"vizwiz-captions-batch-1-flags"}
    # Prefect 3 records task runs from the events the run sent, after the flow returns (a loaded host showed
    # 3 of 8 at once in test_adaptive_campaign): read until what is asked for is there or 60 s pass
    deadline = time.monotonic() + 60
    with get_client(sync_client=True) as client:
        while True:
            names = {t.name for t in client.read_task_runs(
                flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[mine])))}
            artifacts = {a.key: a for a in client.read_artifacts(
                artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[mine])), limit=50)}
            steps = {n.rsplit("-", 1)[0] for n in names}
            complete = wanted_steps <= steps and wanted_artifacts <= set(artifacts) and len(names) > 2 * len(STEPS)
            if complete or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    assert wanted_artifacts <= set(artifacts)
    summary = artifacts["vizwiz-captions-batch-1"]
    assert summary.type == "markdown" and "| posted |" in str(summary.data) and "| 1 HIT |" in str(summary.data)
    assert artifacts["vizwiz-captions-batch-1-flags"].type == "table"
    assert wanted_steps <= steps
    # six coarse steps per batch (review gate included), never per HIT; the demo's caption top-ups add a task
    # per round and their late work's steps again (at most 2 rounds a batch)
    assert any(n.startswith("top-up") for n in names)
    assert 2 * len(STEPS) == 12 < len(names) <= 2 * len(STEPS) * (1 + 2)


def test_deployment_entrypoint_resolves_to_the_flow() -> None:
    import importlib
    import inspect

    import yaml
    from prefect import Flow

    spec = yaml.safe_load((ROOT / "config" / "prefect.yaml").read_text())["deployments"][0]
    module, name = spec["entrypoint"].split(":")
    flow = getattr(importlib.import_module(module.removesuffix(".py").replace("/", ".")), name)
    assert isinstance(flow, Flow) and flow.name == "hitflow-campaign"
    assert set(spec["parameters"]) <= set(inspect.signature(flow.fn).parameters)
    assert (ROOT / spec["parameters"]["config_path"]).is_file()


@pytest.mark.prefect
def test_deploy_registers_a_scheduled_single_run_deployment(tmp_path: Path, on_prefect_server: str) -> None:
    from prefect.client.orchestration import get_client

    from flows.driver.deployments import deploy_schedule

    name = deploy_schedule(str(ROOT / "config" / "vizwiz_captions.toml"), "http://127.0.0.1:8765",
                           str(tmp_path / "h.db"), str(tmp_path))
    assert name == "hitflow-next-batch/vizwiz_captions"  # named for the campaign, as `prefect deployment run` takes it
    with get_client(sync_client=True) as client:
        deployment = client.read_deployment_by_name(name)
        pool = client.read_work_pool("hitflow-local")
        # the worker's server outlives the test: its hourly schedule must not make runs beside other tests
        client.delete_deployment(deployment.id)
    assert deployment.name == "vizwiz_captions" and pool.type == "process"
    assert deployment.parameters["endpoint_url"] == "http://127.0.0.1:8765"
    assert deployment.schedules and deployment.schedules[0].schedule.interval.total_seconds() == 3600
    assert deployment.global_concurrency_limit is not None and deployment.global_concurrency_limit.limit == 1
