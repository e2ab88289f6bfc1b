"""Prolific (its REST API through httpx): a batch is one study on hitflow's task server."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.errors import ConfigError
from flows.core.run.run_context import Run, Session, Target
from flows.platforms import targets
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific import batches as prolific_batches
from flows.platforms.prolific import extend as prolific_extend
from flows.platforms.prolific import operations as prolific_operations
from flows.platforms.prolific.decisions import PROLIFIC_SENDERS
from flows.platforms.prolific.dry_run import NO_GATE_TEST, prolific_plan
from flows.platforms.prolific.estimate import (
    prolific_assignment_cost,
    prolific_estimate,
    prolific_place_cost,
    time_lines,  # noqa: F401  (the protocol's)
    took_lines,  # noqa: F401  (the protocol's)
)
from flows.platforms.prolific.facts import LABEL, NAME, SENDS_DECISIONS, WHOLE_MINUTES, WORDS  # noqa: F401  (the protocol's facts)
from flows.platforms.prolific.grounds import PROLIFIC_GROUNDS, STATED_ON_PAGE  # noqa: F401  (the protocol's)
from flows.platforms.prolific.screening import screened_group
from flows.platforms.prolific.statuses import UNPAID

TARGET_NOTE = " (Prolific API)"
PUBLISH_STEP = "publish study"
COLLECT_STEP = "collect submissions"
SERVES_PAGES = True
INVITES_PEOPLE = False
# Prolific's rejection categories (its API refuses any other) and its minimum message length
REVIEW_CATEGORIES = ("TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
                     "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER")
MIN_REASON_CHARS = 100
REJECTION_GROUNDS: dict[str, str] | None = PROLIFIC_GROUNDS  # its valid grounds only (grounds.py)
REVIEW_SENDERS = PROLIFIC_SENDERS
BLOCK_MODE = "blocklist"
EXTENDS_UNITS = True  # more places on the batch's study, steered by the task server (extend.py)
TOPS_UP_CAPTIONS = True  # a short image's unit gets more places, steered by the task server as for adaptive overlap
SETTLED_UNPAID = UNPAID  # returned, timed out, screened out: Prolific settled them, no verdict can be sent

extend_units = prolific_extend.extend_units
posted_units = prolific_extend.posted_units
collect = prolific_batches.collect_study
reconcile = prolific_operations.reconcile
refresh = prolific_operations.refresh
cancel_plan = prolific_operations.cancel_plan
cancel = prolific_operations.cancel
estimate = prolific_estimate
place_cost = prolific_place_cost
assignment_cost = prolific_assignment_cost
dry_run = prolific_plan


def publish(run: Run, batch: int) -> dict[str, Any]:
    """The batch's study; with a control quiz, only for those who passed its screening study (run first, once)."""
    return prolific_batches.publish_study(run, batch, screened_group(run))


def decide(run: Run, batch: int, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """Approve in bulk, reject one by one, leave unpaid what Prolific says was not finished."""
    applied = prolific_batches.apply_decisions(run, batch, decisions)
    run.progress(f"batch {batch}: on Prolific {applied['approved']} approved, {applied['rejected']} rejected, "
                 f"{applied['unpaid']} not paid (not finished), {applied['completed_without_response']} completed "
                 "without a response")
    return {"prolific": applied}


def block_mode(cfg: CampaignConfig) -> str:
    return BLOCK_MODE


def block(run: Run, worker_id: str, reason: str) -> dict[str, Any]:
    prolific_batches.exclude_participants(run, [worker_id])  # made-up ids (never reported by Prolific) are left out
    return {"mode": BLOCK_MODE}


def gate_test_cost(cfg: CampaignConfig) -> Decimal:
    return Decimal("0.00")  # no qualification test runs on Prolific (its dry run says so): filters screen


def gate_test(cfg: CampaignConfig) -> None:
    """No test runs here: a campaign gated on one is refused before anything is planned (as its dry run says)."""
    if cfg.gating.qualification_key is not None:
        raise ConfigError(f"{cfg.path}: {NO_GATE_TEST}; nothing was posted")


def record_test_scores(run: Run) -> int:
    return 0  # Prolific scores no test of hitflow's


def is_live(target_kind: str, task_url: str, invitees: tuple[str, ...]) -> bool:
    return target_kind != "sim"


def rehearsal_site(run: Run) -> dict[str, Any]:
    return {}  # its participants come from inside the simulator, on its clock: the platform's times are kept


def check_target(target: str, endpoint_url: str, live: bool) -> None:
    """Prolific's API on the simulator (``sim``), or Prolific itself (``prolific``, only with ``live``)."""
    if target == "sim":
        targets.check_target(target, endpoint_url, live)
        return
    if target != "prolific":
        raise ConfigError(f"with --platform prolific the target is sim (default) or prolific, not {target!r}")
    if not live:
        raise ConfigError("--target prolific publishes real studies and pays real participants; pass --live "
                          "to confirm (the budget and hourly-pay checks still apply). Prolific has no sandbox: "
                          "rehearse with --target sim")


@contextmanager
def open_session(target: str, endpoint_url: str, live: bool, seed: int | None, crowd: Path | None,
                 sim_state: Path | None, sim_start: float | None = None) -> Iterator[Session]:
    """Prolific's API on the simulator (``sim``), or Prolific itself (``prolific``, only with ``live``)."""
    check_target(target, endpoint_url, live)
    if target == "prolific":
        url = endpoint_url or prolific.PROLIFIC_URL
        yield Session(Target("prolific", url), prolific.make_client(url, simulator=False), time.sleep, None)
        return
    with targets.simulator(endpoint_url, seed, crowd, sim_state, sim_start) as t:
        # its truth: the crowd and the panel's newcomers, under their Prolific ids
        yield Session(Target("sim", t.endpoint_url, t.state), prolific.make_client(t.endpoint_url, simulator=True),
                      targets.sim_wait(t), partial(targets.sim_ground_truth, t, query="platform=prolific"),
                      targets.sim_clock(t))
