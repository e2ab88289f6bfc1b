"""A campaign run without Prefect: what ``hitflow run --no-prefect`` and each Prefect flow call.

Kept apart from flows/campaign_flow.py so that a run without Prefect never imports it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flows.campaign import Caller, call_directly, run_batches
from flows.campaign_plan import Run
from flows.config import load_config
from flows.outputs import write_outputs
from flows.store import DEFAULT_DB, Store
from flows.targets import open_session, sim_state_path


def run_campaign(config_path: str | Path, target: str = "sim", endpoint_url: str = "",
                 db_path: str | Path = DEFAULT_DB, out_root: str | Path = "runs", limit: int | None = None,
                 scale: int = 1, live: bool = False, seed: int = 1, crowd: str | Path | None = None,
                 progress: Any = print, call: Caller = call_directly, platform: str = "mturk",
                 task_url: str = "", invitees: tuple[str, ...] = (), sim_state: str | Path = "") -> dict[str, Any]:
    """Run (or resume) a campaign to the end and write its outputs; returns a summary.

    ``platform="prolific"``: one study per batch; the task server runs in-process unless
    ``task_url`` names the public address of a running ``hitflow serve``. The in-process
    simulator keeps its marketplace in ``sim_state`` (default: ``sim/`` next to the ledger)."""
    cfg = load_config(config_path)
    store = Store(db_path)
    crowd_path = Path(crowd) if crowd else cfg.sim_crowd
    with open_session(target, endpoint_url or cfg.endpoint_url, live, seed, crowd_path, platform,
                      Path(sim_state) if sim_state else sim_state_path(db_path, seed, crowd_path)) as session:
        progress(f"target: {session.target.label}" + (" (Prolific API)" if platform == "prolific" else ""))
        run = Run(cfg, store, session.client, session.target, progress, session.wait, platform=platform,
                  notes={"out_dir": str(out_root), "seed": seed, "invitees": list(invitees)})
        with task_server_for(run, task_url):
            run_batches(run, call, limit, scale)
        truth = session.truth() if session.truth else None
        if cfg.study is not None:
            from flows.study_outputs import write_study_outputs

            summary = write_study_outputs(run, Path(out_root) / cfg.name)
        elif cfg.task == "custom":
            from flows.custom_outputs import write_custom_outputs

            summary = write_custom_outputs(run, Path(out_root) / cfg.name, truth)
        else:
            summary = write_outputs(run, Path(out_root) / cfg.name, truth)
        store.table("campaigns").update(cfg.name, {"status": "done"})
    summary["target"] = session.target.label
    return summary


@contextmanager
def task_server_for(run: Run, task_url: str) -> Iterator[None]:
    """Prolific and self-hosted campaigns need hitflow's task server: the given one, or one started here."""
    if run.platform not in ("prolific", "links") or task_url:
        run.notes["task_url"] = task_url.rstrip("/")
        yield
        return
    from flows.task_server import TaskSite
    from flows.task_server_thread import TaskServer

    site = TaskSite(run.store.path, {run.cfg.name: run.cfg}, run.cfg.prolific.completion_base)
    with TaskServer(site) as server:
        run.notes["task_url"] = server.url
        run.notes["simulated_people"] = run.target.kind == "sim"  # the crowd opens the links itself
        run.progress(f"task server: {server.url}")
        yield
