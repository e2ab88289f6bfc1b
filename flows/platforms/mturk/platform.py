"""MTurk (the 2017-01-17 Requester API through boto3): a HIT type a batch, a HIT a unit."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.ledger.ledger_calls import ledgered_all
from flows.core.run.run_context import Run, Session, Target
from flows.platforms import targets
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk import batch_collect, batch_publish, cancel_repost, extend, qualification_stage
from flows.platforms.mturk import operations as mturk_operations
from flows.platforms.mturk.decisions import MTURK_SENDERS, block, verdict_call  # noqa: F401  (block: the protocol's)
from flows.platforms.mturk.dry_run import mturk_plan
from flows.platforms.mturk.estimate import (
    mturk_estimate,
    time_lines,  # noqa: F401  (the protocol's)
    took_lines,  # noqa: F401  (the protocol's)
)
from flows.platforms.mturk.facts import LABEL, NAME, SENDS_DECISIONS, WHOLE_MINUTES, WORDS  # noqa: F401  (the protocol's facts)
from flows.platforms.mturk.qualifications import cost_per_assignment, qualification_test_cost

TARGET_NOTE = " (MTurk API)"
PUBLISH_STEP = "publish batch"
COLLECT_STEP = "collect submissions"
SERVES_PAGES = False  # the page travels inside the HIT (an HTMLQuestion)
INVITES_PEOPLE = False
REVIEW_CATEGORIES: tuple[str, ...] = ()
MIN_REASON_CHARS = 1
REJECTION_GROUNDS: dict[str, str] | None = None  # every reject rule of the policy rejects
STATED_ON_PAGE: tuple[str, ...] = ()
REVIEW_SENDERS = MTURK_SENDERS
# ListAssignmentsForHIT lists only Submitted, Approved, Rejected: nothing is settled unpaid.
EXTENDS_UNITS = True  # CreateAdditionalAssignmentsForHIT (extend.py)
TOPS_UP_CAPTIONS = True  # a short image's HIT gets more assignments (flows/captions/caption_kind.py)
SETTLED_UNPAID: tuple[str, ...] = ()
DONE = {"approve": "approved", "reject": "rejected"}  # an assignment's state once its decision is applied
# Decisions are one call each, overlapped on as many threads as posting.
DECIDE_THREADS = batch_publish.POST_THREADS

publish = batch_publish.publish_batch
extend_units = extend.extend_units
posted_units = extend.posted_units


def collect(run: Run, batch: int) -> dict[str, Any]:
    """Collect the batch, first posting again what a cancel closed short in a resumed cancelled campaign."""
    settled = cancel_repost.repost_closed_by_cancel(run, batch, run.cfg.assignments_per_image)
    return batch_collect.collect_batch(run, batch, settled=settled)


reconcile = mturk_operations.reconcile
refresh = mturk_operations.refresh
cancel_plan = mturk_operations.cancel_plan
cancel = mturk_operations.cancel
estimate = mturk_estimate
assignment_cost = cost_per_assignment
gate_test_cost = qualification_test_cost  # the paid test HIT (html_hit); MTurk scores its own Test for free
gate_test = qualification_stage.gate_test  # html_hit: the paid test HIT before the first batch
record_test_scores = qualification_stage.record_test_scores  # the MTurk-scored Test (mturk_test)
dry_run = mturk_plan
check_target = targets.check_target


@contextmanager
def open_session(target: str, endpoint_url: str, live: bool, seed: int | None, crowd: Path | None,
                 sim_state: Path | None, sim_start: float | None = None) -> Iterator[Session]:
    """MTurk's API: the simulator, or an MTurk-compatible endpoint confirmed with ``live``."""
    targets.check_target(target, endpoint_url, live)
    if target == "sim":
        with targets.simulator(endpoint_url, seed, crowd, sim_state, sim_start) as t:
            yield Session(t, mturk.make_client(t), targets.sim_wait(t), lambda: targets.sim_ground_truth(t),
                          targets.sim_clock(t))
        return
    t = Target("endpoint", endpoint_url)
    yield Session(t, mturk.make_client(t), time.sleep, None)


def decide(run: Run, batch: int, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """Every decision as one ledgered call on a thread pool; the platform's state after each stored."""
    store = run.store
    feedback = run.cfg.policy.reject_feedback
    calls = {d["assignment_id"]: verdict_call(run, d["action"], d["assignment_id"],
                                              feedback.format(rules=d["reasons"]) if d["action"] == "reject" else "")
             for d in decisions}
    results = ledgered_all(store, run.cfg.name, batch, calls.values(), DECIDE_THREADS)
    name = run.cfg.name
    outcomes = [(str(results[calls[d["assignment_id"]].key].get("outcome", DONE[d["action"]])), name,
                 d["assignment_id"]) for d in decisions]
    with store.transaction():
        store.executemany("UPDATE decisions SET applied = ? WHERE campaign = ? AND assignment_id = ?", outcomes)
        store.executemany("UPDATE assignments SET status = ? WHERE campaign = ? AND assignment_id = ?",
                          [(outcome.removeprefix("already ").title(), c, a) for outcome, c, a in outcomes])
    return {}


def block_mode(cfg: CampaignConfig) -> str:
    return cfg.gating.block_mode


def place_cost(cfg: CampaignConfig) -> str:
    return ""  # priced per HIT (assignment_cost), not per place


def is_live(target_kind: str, task_url: str, invitees: tuple[str, ...]) -> bool:
    return target_kind != "sim"


def rehearsal_site(run: Run) -> dict[str, Any]:
    return {}  # MTurk's simulated workers open no page of hitflow's task server
