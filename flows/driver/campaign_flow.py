"""The campaign as a Prefect flow: one coarse task per batch step (not per HIT)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
# A first start migrates a fresh Prefect database; on a 2-core machine that can pass the 20 s default.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
if os.environ.get("PREFECT_HOME"):  # Prefect creates its home without parents and then fails to start
    Path(os.environ["PREFECT_HOME"]).expanduser().mkdir(parents=True, exist_ok=True)

from flows.core.run.heap_owner import flow_run_imports

with flow_run_imports():  # in a flow run's own process: its imports without collections, then frozen
    from prefect import flow

    from flows.campaigns.batch_review import block_batch
    from flows.campaigns.campaign_plan import Run
    from flows.campaigns.identity import CANCELLED, Intent
    from flows.campaigns.review_data import ReviewPending
    from flows.campaigns.run_log import quiet_stop_echoes, quiet_stops_logging_config
    from flows.core.config.config import load_config
    from flows.core.errors import BatchHeld, BatchOpen, ConfigError
    from flows.core.ledger.store import DEFAULT_DB, Store
    from flows.driver.batch_artifacts import artifacts_sent, publish_batch_artifacts
    from flows.driver.campaign import StepFn, every_batch_done, run_next_batch
    from flows.driver.campaign_run import (
        ended_status,
        open_run_folder,
        run_campaign,
        session_run,
        task_server_for,
        waiting_report,
        write_campaign_outputs,
    )
    from flows.driver.deployed_runs import (
        NEXT_BATCH_FLOW,
        WHOLE_FLOW,
        ended_line,
        pause_own_deployment,
        refuse_cancelled_deployment_run,
    )
    from flows.driver.schedule_wait import note_scheduled_run
    from flows.platforms.registry import open_session
    from flows.platforms.targets import simulator_server


def progress_line(line: str) -> None:
    """hitflow's progress lines on stdout and in the flow run's logs (sent only to the API)."""
    sys.stdout.write(line + "\n")  # not print(): inside a flow Prefect's log_prints patches it
    sys.stdout.flush()
    _api_logger().info(line)


def _api_logger() -> logging.Logger:
    logger = logging.getLogger("hitflow.progress")
    if not logger.handlers:
        from prefect.logging.handlers import APILogHandler

        logger.addHandler(APILogHandler())
        logger.setLevel(logging.INFO)
        logger.propagate = False  # not on the console a second time
    return logger


def prefect_call(name: str, fn: StepFn, run: Run, batch: int) -> dict[str, Any]:
    from prefect import task
    from prefect.cache_policies import NO_CACHE
    from prefect.utilities.annotations import quote

    def step_fn(run: Run, batch: int) -> dict[str, Any]:
        try:
            return fn(run, batch)
        except (BatchOpen, ReviewPending, BatchHeld) as exc:  # waiting, not failing: the task completes, the run stops
            return {"stopped": exc}

    step = task(name=name, cache_policy=NO_CACHE)(step_fn)
    result = step(quote(run), batch)  # type: ignore[call-overload]  # quote() keeps Prefect out of Run
    if isinstance(result, dict) and isinstance(result.get("stopped"), BatchOpen | ReviewPending | BatchHeld):
        raise result["stopped"]
    if fn is block_batch:
        publish_batch_artifacts(run, batch)
    return result


def campaign_flow_fn(config_path: str, target: str = "sim", endpoint_url: str = "",
                     db_path: str = str(DEFAULT_DB), out_root: str = "runs", limit: int | None = None,
                     scale: int = 1, live: bool = False, seed: int = 1, crowd: str | None = None,
                     platform: str = "mturk", task_url: str = "", invitees: tuple[str, ...] = (),
                     sim_state: str = "", detach: str = "", campaign_name: str = "", resume_cancelled: bool = False,
                     replace_outputs: bool = False) -> dict[str, Any]:
    from flows.review.review_pause import wait_for_review

    if not resume_cancelled:  # no --resume-cancelled reaches a deployment's run: its refusal says what does
        refuse_cancelled_deployment_run(db_path, campaign_name or load_config(config_path).name, config_path)
    while True:  # a batch waiting for review pauses the run (between tasks); then its gate is run again
        try:
            with artifacts_sent():  # the batches' artifacts are sent beside the run (flows/driver/batch_artifacts.py)
                summary = run_campaign(config_path, target, endpoint_url, db_path, out_root, limit, scale, live,
                                       seed, crowd, progress=progress_line, call=prefect_call, platform=platform,
                                       task_url=task_url, invitees=invitees, sim_state=sim_state, detach=detach,
                                       campaign_name=campaign_name, resume_cancelled=resume_cancelled,
                                       replace_outputs=replace_outputs)
            break
        except ReviewPending as waiting:
            wait_for_review(waiting, db_path)
    if "open" in summary:  # the flow run ends Completed; the next run (or the schedule) collects
        return {"out_dir": str(summary["out_dir"]), "open": summary["open"], "target": summary["target"]}
    if "held" in summary:  # Completed too: a person releases the batch (--release-hold), then runs again
        _api_logger().info(summary["held"])  # in Prefect's UI; the CLI prints it on the console once
        return {"out_dir": str(summary["out_dir"]), "held": summary["held"], "target": summary["target"]}
    done = summary.get("done")  # captions, judgements or responses: the task kind's count
    return {"out_dir": str(summary["out_dir"]), "done": done, "target": summary["target"]}


whole_campaign = flow(name=WHOLE_FLOW, log_prints=True)(campaign_flow_fn)


def next_batch_fn(config_path: str, target: str = "sim", endpoint_url: str = "", db_path: str = str(DEFAULT_DB),
                  out_root: str = "runs", live: bool = False, platform: str = "mturk", task_url: str = "",
                  detach: str = "", resume_cancelled: bool = False) -> dict[str, Any]:
    """Advance one campaign by one batch (publish, collect, QC, decide, block) and stop. A batch
    still open on a live route is looked at and left (``open``); the schedule's next run
    looks again, so no run and no worker waits for people. ``resume_cancelled``: a cancelled
    campaign runs again on purpose (one run's parameter: flows/driver/deployed_runs.py)."""
    from flows.campaigns.task_kinds import load_campaign  # its Prolific figures from its page, as a run plans
    quiet_stop_echoes()
    cfg = load_campaign(config_path, platform)
    ended = ended_status(db_path, cfg.name)
    if ended and not (ended == CANCELLED and resume_cancelled):
        pause_own_deployment()  # nothing left to advance: no empty run, no rewritten report
        progress_line(ended_line(cfg.name, ended))
        return {"advanced_batch": None, "done": True, "ended": ended}
    open_run_folder(db_path, cfg.name, platform, out_root, Intent(resume_cancelled=resume_cancelled))
    store, endpoint = Store(db_path), endpoint_url or cfg.endpoint_url
    note_scheduled_run(store, cfg.name, cfg.schedule_interval_s, cfg.schedule_cron)  # status: waiting, not stopped
    with open_session(target, endpoint, live, platform=platform, sim_start=cfg.sim_start) as session:
        task_url = task_url or cfg.task_url
        run = session_run(cfg, store, session, progress_line, platform, task_url, (),
                          {"out_dir": out_root, "detach": detach})
        try:
            with task_server_for(run, task_url), artifacts_sent():
                batch = run_next_batch(run, prefect_call)
        except BatchOpen as exc:
            progress_line(str(exc))
            return {"advanced_batch": exc.batch, "done": False, "open": str(exc)}
        except ReviewPending as exc:  # the schedule's next run looks again; the person has until the deadline
            waiting_report(run, out_root)
            progress_line(str(exc))
            return {"advanced_batch": exc.batch, "done": False, "review": str(exc)}
        except BatchHeld as exc:  # as review: the run ends Completed; a person releases it with --release-hold
            progress_line(str(exc))
            return {"advanced_batch": exc.batch, "done": False, "held": str(exc)}
        finished = batch is None or every_batch_done(run)  # the last batch advanced: finished now, not a run later
        if finished:
            run.store.table("campaigns").update(cfg.name, {"status": "collected"})
            write_campaign_outputs(run, out_root, session.truth() if session.truth else None)
            pause_own_deployment()
            progress_line(ended_line(cfg.name, "done"))
    return {"advanced_batch": batch, "done": finished}


next_batch = flow(name=NEXT_BATCH_FLOW, log_prints=True)(next_batch_fn)


def serve_schedule(config_path: str, endpoint_url: str, db_path: str, out_root: str = "runs",
                   platform: str = "mturk", task_url: str = "", detach: str = "", target: str = "sim",
                   live: bool = False) -> None:
    """Serve the next-batch flow on the campaign's schedule (blocks; Ctrl-C stops it)."""
    cfg = load_config(config_path)
    if not (cfg.schedule_interval_s or cfg.schedule_cron):
        raise ConfigError(f"{cfg.path}: no [schedule] interval_s or cron; add one to serve it on a schedule")
    if not os.environ.get("PREFECT_API_URL"):
        raise ConfigError("schedules need a Prefect server (the ephemeral one does not schedule): run "
                          "`prefect server start`, then set PREFECT_API_URL=http://127.0.0.1:4200/api")
    timing: dict[str, Any] = ({"interval": cfg.schedule_interval_s} if cfg.schedule_interval_s
                              else {"cron": cfg.schedule_cron})
    with contextlib.ExitStack() as stack:
        logs = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hitflow-logging-")))
        # each flow run's own process reads it as it starts: a run stopped with the server says so only here
        stack.enter_context(_env("PREFECT_LOGGING_SETTINGS_PATH", str(quiet_stops_logging_config(logs))))
        if not endpoint_url and target == "sim":  # a simulator that lives as long as the schedule is served
            endpoint_url = stack.enter_context(simulator_server(speed=3600))
        print(f"target: {'simulator' if target == 'sim' else target} at {endpoint_url or 'its default URL'}; "
              f"serving {cfg.name} on {platform} every {cfg.schedule_interval_s or cfg.schedule_cron} "
              "(one batch per run)")
        params = {"config_path": str(config_path), "endpoint_url": endpoint_url, "db_path": db_path,
                  "out_root": out_root, "platform": platform, "task_url": task_url, "detach": detach,
                  "target": target, "live": live}
        runner = _runner_stopping_on_sigterm(cfg.name)
        runner.add_flow(next_batch, name=cfg.name, parameters=params,
                        concurrency_limit=1, **timing)
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C, or SIGTERM below
            asyncio.run(runner.start())
        ended = ended_status(db_path, cfg.name)
        print(f"stopped serving; {cfg.name} is {ended}" if ended else
              "stopped serving; a batch stopped half-way resumes from the ledger on the next run")


@contextlib.contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    """``name`` set to ``value`` for the block (the serving process's children inherit it), then as it was."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def _runner_stopping_on_sigterm(name: str) -> Any:
    """Prefect's runner leaving at once on SIGTERM; every step's intent is in the ledger."""
    from prefect.runner import Runner

    class _Runner(Runner):
        stop_task: asyncio.Task[None] | None = None

        def handle_sigterm(self, *args: Any, **kwargs: Any) -> None:
            print("SIGTERM: stopping the flow run in progress and leaving", flush=True)
            if self.started and self.stop_task is None:  # no run submitted while the children stop (astop is later)
                self.stopping = True
                if poller := getattr(self, "_scheduled_run_poller", None):
                    poller.stopping = True
            stop_children(FLOW_RUN_GRACE_S)
            if not self.started or self.stop_task is not None:  # still starting, or a second SIGTERM
                raise KeyboardInterrupt
            # the handler runs on the loop's own thread; astop() pauses polling and ends start()
            self.stop_task = asyncio.get_running_loop().create_task(self.astop())

    return _Runner(name=name, pause_on_shutdown=True)


FLOW_RUN_GRACE_S = 10.0


def stop_children(grace_s: float) -> None:
    """SIGTERM to the flow runs this process started, then SIGKILL to any left after ``grace_s``."""
    import multiprocessing
    import time

    children = multiprocessing.active_children()
    for child in children:
        child.terminate()
    deadline = time.monotonic() + grace_s
    for child in children:
        child.join(max(0.0, deadline - time.monotonic()))
        if child.is_alive():
            child.kill()
            child.join(5)
