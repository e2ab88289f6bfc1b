"""A campaign run without Prefect (``hitflow run --no-prefect`` and each Prefect flow)."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flows.campaigns.batch_review import stop_failing_workers
from flows.campaigns.identity import CANCELLED, Intent, claim_campaign, stored_campaign
from flows.campaigns.task_kinds import kind_of, load_campaign
from flows.campaigns.task_pages import task_page
from flows.core.config.config import CampaignConfig
from flows.core.errors import BatchHeld, BatchOpen, ConfigError, PlatformError
from flows.core.ledger.store import DEFAULT_DB, Store
from flows.core.outputs.output_location import credentials_to_fsspec, is_output_url, shown_output, staging_root
from flows.core.outputs.output_mirror import check_writable, mirror, pull_missing
from flows.core.run.free_memory import own_objects_collected, release_free_memory
from flows.core.run.run_context import Run, Session
from flows.driver.campaign import Caller, call_directly, run_batches
from flows.driver.provenance import run_provenance, write_provenance
from flows.driver.sim_marketplace import (
    claim_marketplace,
    hand_known_answers,
    marketplace_file,
    new_state_file_kept_if_claimed,
)
from flows.platforms.batch_window import detaches
from flows.platforms.registry import open_session, platform_for
from flows.platforms.targets import crowd_file_used, crowd_item_truth, sim_item_truth, sim_state_path

# Modules a campaign's steps import on first use, imported under Prefect while its server starts.
STEP_MODULES = ("flows.campaigns.report",)
# What a run under Prefect imports on first use besides (engines, artifacts, pause, simulator).
FLOW_MODULES = ("prefect.flow_engine", "prefect.task_engine", "fastapi.encoders", "prefect.artifacts",
                "flows.review.review_pause", *STEP_MODULES, "flows.sim.service.server")


def open_run_folder(db: str | Path, name: str, platform: str, out_root: str | Path, intent: Intent) -> None:
    """Where every route's run starts: its output folder (a URL probed) checked and what it holds of campaign
    ``name`` fetched, before the ledger opens; then the campaign claimed (``intent``: what the operator allowed)."""
    check_writable(str(out_root), name)
    pull_missing(str(out_root), name)
    claim_campaign(db, name, platform, out_root, intent)


def ended_status(db: str | Path, name: str) -> str:
    """"done" or "cancelled" when campaign ``name`` has nothing left to run, else ""; makes no ledger."""
    status = str((stored_campaign(db, name) or {}).get("status", ""))
    return status if status in ("done", CANCELLED) else ""


@own_objects_collected()  # the collector's full passes walk the run's objects, not the caller's
def run_campaign(config_path: str | Path, target: str = "sim", endpoint_url: str = "",
                 db_path: str | Path = DEFAULT_DB, out_root: str | Path = "runs", limit: int | None = None,
                 scale: int = 1, live: bool = False, seed: int = 1, crowd: str | Path | None = None,
                 progress: Any = print, call: Caller = call_directly, platform: str = "mturk",
                 task_url: str = "", invitees: tuple[str, ...] = (), sim_state: str | Path = "",
                 detach: str = "", campaign_name: str = "", resume_cancelled: bool = False,
                 replace_outputs: bool = False) -> dict[str, Any]:
    """Run (or resume) a campaign to the end and write its outputs; a summary, or ``{"open"|"held": ...}``."""
    cfg = named(load_campaign(config_path, platform), campaign_name)
    out_root = credentials_to_fsspec(out_root) if isinstance(out_root, str) else out_root  # kept out of notes
    open_run_folder(db_path, cfg.name, platform, out_root,
                    Intent(resume_cancelled=resume_cancelled, replace_outputs=replace_outputs))
    store = Store(db_path)  # only now: a run refused above leaves no ledger behind
    crowd_path = Path(crowd) if crowd else cfg.sim_crowd
    state = marketplace_file(store, cfg, target, endpoint_url, sim_state, sim_state_path(db_path, seed, crowd_path))
    endpoint = endpoint_url or cfg.endpoint_url
    with new_state_file_kept_if_claimed(state), open_session(
            target, endpoint, live, seed, crowd_path, platform, state, cfg.sim_start) as session:
        task_url = task_url or cfg.task_url
        run = session_run(cfg, store, session, progress, platform, task_url, invitees,
                          {"out_dir": str(out_root), "seed": seed, "crowd_file": str(crowd_path or ""),
                           "invitees": list(invitees), "detach": detach})
        if (stopped := batches_or_stop(run, call, limit, scale, task_url, out_root)) is not None:
            return stopped
        truth = session.truth() if session.truth else None
        asked = ask_platform_for_outputs(run)
        items = latent_items(run, truth)  # asked now: the embedded simulator goes with its session
    return outputs_after_session(run, out_root, truth, asked, items)


def session_run(cfg: CampaignConfig, store: Store, session: Session, progress: Any, platform: str, task_url: str,
                invitees: tuple[str, ...], notes: dict[str, Any]) -> Run:
    """The campaign's Run over the session's client, target (said first) and clock, ``notes`` saying
    :func:`live_route`; the marketplace claimed and the requester's known answers handed to the simulator."""
    progress(f"target: {session.target.label}{platform_for(platform).TARGET_NOTE}")
    run = Run(cfg, store, session.client, session.target, progress, session.wait, platform=platform,
              notes={**notes, "live_route": live_route(session.target.kind, platform, task_url, invitees)},
              clock=session.clock, page=task_page, new_work=stop_failing_workers)
    claim_marketplace(run)
    hand_known_answers(run)
    return run


def batches_or_stop(run: Run, call: Caller, limit: int | None, scale: int, task_url: str,
                    out_root: str | Path) -> dict[str, Any] | None:
    """Runs the campaign's batches: None when all ended, else :func:`run_campaign`'s open or held result."""
    from flows.campaigns.review_data import ReviewPending

    try:
        with task_server_for(run, task_url):
            run_batches(run, call, limit, scale)
    except ReviewPending:
        waiting_report(run, out_root)
        raise
    except BatchOpen as exc:
        return {"open": str(exc), "batch": exc.batch, "filled": exc.filled, "places": exc.places,
                "out_dir": staging_root(out_root) / run.cfg.name, "target": run.target.label}
    except BatchHeld as exc:  # a stop for a person, not a failure: a Prefect flow run ends Completed
        return {"held": str(exc), "batch": exc.batch, "out_dir": staging_root(out_root) / run.cfg.name,
                "target": run.target.label}
    return None


def waiting_report(run: Run, out_root: str | Path) -> None:
    """The outputs and report of the work so far while a batch waits for review, marked so."""
    summary = export_outputs(run, out_root, None, platform_asked=True)
    where = summary.get("out_url") or summary["out_dir"]
    run.progress(f"the report of the work so far, marked waiting for review: {where}/report.html")


def outputs_after_session(run: Run, out_root: str | Path, truth: Any, asked: bool,
                          items: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The outputs of a run whose platform session has closed, and the summary :func:`run_campaign` returns."""
    # The embedded simulator's marketplace went with its session: hand its pages back before the outputs.
    gc.collect()
    release_free_memory()
    summary = write_campaign_outputs(run, out_root, truth, platform_asked=asked, items=items)
    summary["target"] = run.target.label
    return summary


def ask_platform_for_outputs(run: Run) -> bool:
    """What the caption outputs need from the platform, asked while the session is open; True when asked."""
    if not kind_of(run.cfg).extra.get("asks_platform_for_outputs"):
        return False
    platform_for(run.platform).record_test_scores(run)
    return True


def named(cfg: CampaignConfig, name: str) -> CampaignConfig:
    """The config as campaign ``name`` (its own ledger rows, HIT tokens and output folder)."""
    return dataclasses.replace(cfg, name=name) if name and name != cfg.name else cfg


def check_task_server(run: Run, task_url: str) -> None:
    """Links go out only to a task server that answers, serves this campaign and signs with our secret."""
    from flows.core.site_secrets import task_secret
    from flows.platforms.clock_line import call
    from flows.taskserver.task_units import secret_fingerprint

    try:
        health = json.loads(call("GET", f"{task_url}/health", None, 10))  # within 10 s and 1 MiB
        health = health if isinstance(health, dict) else {}
    except (OSError, ValueError, RecursionError, PlatformError) as exc:
        raise ConfigError(f"no task server answers at {task_url}/health ({type(exc).__name__}); start it with "
                          f"`hitflow serve --campaign {run.cfg.path} --db {run.store.shown()}` before publishing"
                          ) from exc
    if run.cfg.name not in health.get("campaigns", []):
        raise ConfigError(f"the task server at {task_url} does not serve {run.cfg.name} (it serves "
                          f"{', '.join(health.get('campaigns', [])) or 'nothing'}); restart it with "
                          f"--campaign {run.cfg.path}")
    if health.get("signs_with", "") != secret_fingerprint(task_secret(run.store.location)):
        raise ConfigError(f"the task server at {task_url} signs with another secret than the ledger "
                          f"{run.store.shown()}, so it would refuse this run's links: give `hitflow serve` the same "
                          "--db, or the same HITFLOW_TASK_SECRET to both")


def latent_items(run: Run, truth: Any) -> list[dict[str, Any]] | None:
    """The simulated crowd's latent answer per choice of a custom page (scoring its answers), or None."""
    if truth is None or run.cfg.task != "custom" or run.cfg.study is not None or run.target.kind != "sim":
        return None
    if run.notes.get("crowd"):  # the links route's invitees: an in-process crowd (flows/platforms/links/batches.py)
        return crowd_item_truth(run.notes["crowd"])
    return sim_item_truth(run.target, run.cfg.name)


def write_campaign_outputs(run: Run, out_root: str | Path, truth: Any, platform_asked: bool = False,
                           items: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The dataset (or judgements), flags and report, then the campaign is done (``items``: :func:`latent_items`)."""
    summary = export_outputs(run, out_root, truth, platform_asked, items)
    run.store.table("campaigns").update(run.cfg.name, {"status": "done"})
    # What the outputs freed goes back to the system now, not when the process ends.
    gc.collect()
    release_free_memory()
    return summary


def export_outputs(run: Run, out_root: str | Path, truth: Any, platform_asked: bool = False,
                   items: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The outputs of what the ledger holds so far, written locally and copied to a URL ``out_root``."""
    summary = _write_outputs(run, staging_root(out_root), truth, platform_asked, items)
    if is_output_url(out_root):
        mirror(str(out_root), run.cfg.name)
        summary["out_url"] = f"{shown_output(out_root).rstrip('/')}/{run.cfg.name}/"
    return summary


def _write_outputs(run: Run, out_root: Path, truth: Any, platform_asked: bool,
                   items: list[dict[str, Any]] | None) -> dict[str, Any]:
    crowd = crowd_file_used(Path(run.notes["crowd_file"]) if run.notes.get("crowd_file") else run.cfg.sim_crowd)
    run.notes["provenance"] = run_provenance(run, crowd)  # the reports' header shows it
    items = items if items is not None else latent_items(run, truth)
    kind = kind_of(run.cfg)
    summary = kind.outputs(run, out_root / run.cfg.name, truth, platform_asked, items)
    summary["done"] = summary.get(kind.done_key, 0)  # what came in, whatever the kind calls it
    write_provenance(out_root / run.cfg.name, run.notes["provenance"])
    return summary


def live_route(target_kind: str, platform: str, task_url: str, invitees: tuple[str, ...] = ()) -> bool:
    """Real people on the other end: not the simulator (nor, on links, only the simulator's crowd)."""
    return platform_for(platform).is_live(target_kind, task_url, invitees)


@contextmanager
def task_server_for(run: Run, task_url: str) -> Iterator[None]:
    """The task server the platform's participants need: the given one, or one started here."""
    serves_pages = platform_for(run.platform).SERVES_PAGES
    if not serves_pages or task_url:
        run.notes["task_url"] = task_url.rstrip("/")
        if serves_pages:
            check_task_server(run, run.notes["task_url"])
        yield
        return
    if detaches(run):
        raise ConfigError(f"{run.cfg.name} leaves its batches open for people to come back to, so its links need a "
                          "task server that outlives this run: start `hitflow serve --campaign "
                          f"{run.cfg.path}` (see deploy/) and pass --task-url URL or set [target] task_url")
    from flows.taskserver.task_server import TaskSite
    from flows.taskserver.task_server_thread import TaskServer

    simulated = run.target.kind == "sim"  # the crowd opens the links itself
    rehearsal = platform_for(run.platform).rehearsal_site(run) if simulated and not run.notes.get("live_route") else {}
    site = TaskSite(run.store.location, {run.cfg.name: run.cfg}, run.cfg.prolific.completion_base, **rehearsal)
    server = _listening(TaskServer, site, rehearsal_port(run) if simulated else 0)
    try:
        run.notes["task_url"] = server.url
        run.notes["simulated_people"] = simulated
        run.progress(f"task server: {server.url}")
        yield
    finally:
        server.stop()


REHEARSAL_PORTS = (20000, 32000)  # below Linux's ephemeral range (32768-60999), which clients' sockets take


def rehearsal_port(run: Run) -> int:
    """A simulated run's task server port, the same for its ledger and campaign on every run."""
    key = int.from_bytes(hashlib.sha256(f"{run.store.location}|{run.cfg.name}".encode()).digest()[:4], "big")
    return REHEARSAL_PORTS[0] + key % (REHEARSAL_PORTS[1] - REHEARSAL_PORTS[0])


def _listening(server_class: Any, site: Any, port: int) -> Any:
    """A started task server on ``port``, or on any free port when that one is taken (or 0)."""
    if port:
        with contextlib.suppress(OSError):
            return server_class(site, port=port).start()
    return server_class(site).start()
