"""The campaign as a Prefect flow: one coarse task per batch step (not per HIT)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
# A first start migrates a fresh Prefect database; on a 2-core machine that can pass the 20 s default.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
if os.environ.get("PREFECT_HOME"):  # Prefect creates its home without parents and then fails to start
    Path(os.environ["PREFECT_HOME"]).expanduser().mkdir(parents=True, exist_ok=True)

from prefect import flow

from flows.campaign import Caller, StepFn, call_directly, run_batches
from flows.campaign_plan import Run
from flows.config import load_config
from flows.outputs import write_outputs
from flows.store import DEFAULT_DB, Store
from flows.targets import open_session


def run_campaign(config_path: str | Path, target: str = "sim", endpoint_url: str = "",
                 db_path: str | Path = DEFAULT_DB, out_root: str | Path = "runs", limit: int | None = None,
                 scale: int = 1, live: bool = False, seed: int = 1, crowd: str | Path | None = None,
                 progress: Any = print, call: Caller = call_directly) -> dict[str, Any]:
    """Run (or resume) a campaign to the end and write its outputs; returns a summary."""
    cfg = load_config(config_path)
    store = Store(db_path)
    with open_session(target, endpoint_url or cfg.endpoint_url, live, seed,
                      Path(crowd) if crowd else None) as session:
        progress(f"target: {session.target.label}")
        run = Run(cfg, store, session.client, session.target, progress, session.wait)
        run_batches(run, call, limit, scale)
        truth = session.truth() if session.truth else None
        summary = write_outputs(run, Path(out_root) / cfg.name, truth)
    summary["target"] = session.target.label
    return summary


def prefect_call(name: str, fn: StepFn, run: Run, batch: int) -> dict[str, Any]:
    from prefect import task
    from prefect.cache_policies import NO_CACHE
    from prefect.utilities.annotations import quote

    step = task(name=name, cache_policy=NO_CACHE)(fn)
    return step(quote(run), batch)  # type: ignore[call-overload]  # quote() keeps Prefect out of Run


def campaign_flow_fn(config_path: str, target: str = "sim", endpoint_url: str = "",
                     db_path: str = str(DEFAULT_DB), out_root: str = "runs", limit: int | None = None,
                     scale: int = 1, live: bool = False, seed: int = 1, crowd: str | None = None) -> dict[str, Any]:
    summary = run_campaign(config_path, target, endpoint_url, db_path, out_root, limit, scale, live, seed,
                           crowd, call=prefect_call)
    return {"out_dir": str(summary["out_dir"]), "captions": summary["captions"], "target": summary["target"]}


caption_campaign = flow(name="caption-campaign", log_prints=True)(campaign_flow_fn)


def campaign_flow() -> Any:
    """The Prefect flow object (the entrypoint of config/prefect.yaml's deployment)."""
    return caption_campaign
