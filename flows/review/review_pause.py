"""Under Prefect a batch that waits for review pauses its flow run instead of stopping it."""

from __future__ import annotations

import math
import os
import time
from typing import Any
from uuid import UUID

from prefect.input import RunInput
from pydantic import Field

from flows.campaigns.campaign_plan import Run
from flows.campaigns.review_data import ReviewPending, campaign_queue, platform_now
from flows.campaigns.review_rows import PAUSE_OPERATION, paused_runs
from flows.core.db_url import shown_location
from flows.core.ledger.store import Store
from flows.core.run.prefect_api import TEMPORARY_API_ENV

POLL_S = 5  # how often a paused run asks Prefect whether it has been resumed
SIM_SLICE_S = 30  # the simulator's clock is virtual: pause this many real seconds, then look at it again
LONGEST_PAUSE_S = 86400  # a queue with no known deadline is looked at again daily


class ReviewDone(RunInput):
    """What resumes a campaign paused for review (the form Prefect's UI shows on Resume)."""

    reviewer: str = Field(description="who reviewed the batch's queue")
    note: str = Field("", description="anything worth keeping with the run")


def pause_seconds(pending: ReviewPending) -> int:
    """The pause's timeout: the time to the review deadline, in short slices on a virtual clock."""
    if pending.wait_s is None:
        return LONGEST_PAUSE_S
    wait = max(1, math.ceil(pending.wait_s))
    return min(wait, SIM_SLICE_S if pending.virtual_clock else LONGEST_PAUSE_S)


def wait_for_review(pending: ReviewPending, db_path: str) -> ReviewDone | None:
    """Pause the current flow run until resumed (the input) or timed out (None); else ``pending`` again."""
    from prefect import pause_flow_run
    from prefect.context import FlowRunContext
    from prefect.exceptions import FlowPauseTimeout

    context = FlowRunContext.get()
    if context is None or context.flow_run is None or pending.embedded:
        raise pending
    run_id = str(context.flow_run.id)
    store = Store(db_path)
    key = record_pause(store, pending, run_id)
    timeout = pause_seconds(pending)
    print(f"batch {pending.batch}: flow run {run_id} paused for review (up to {timeout} s, then the gate "
             f"is checked again); resume it from Prefect's UI or by clearing the queue with "
             f"`hitflow review {pending.campaign} --db {shown_location(db_path)}`")
    try:
        done: ReviewDone | None = pause_flow_run(wait_for_input=ReviewDone, timeout=timeout, poll_interval=POLL_S)
    except FlowPauseTimeout:
        resume_after_timeout(UUID(run_id))
        done = None
    store.settle(key, "resumed", {"flow_run_id": run_id, "by": done.reviewer if done else "timeout",
                                  "note": done.note if done else ""})
    print(f"batch {pending.batch}: " + (f"resumed by {done.reviewer}" if done else "pause timed out")
             + "; checking the review queue again")
    return done


def record_pause(store: Store, pending: ReviewPending, run_id: str) -> str:
    """The ledger's note of the paused run (one per run and batch; a re-pause marks it paused again)."""
    from prefect.settings import PREFECT_API_URL

    key = f"{pending.campaign}:review-pause:{pending.batch}:{run_id}"
    url = PREFECT_API_URL.value() or ""  # a temporary server (core/run/prefect_api.py) ends with its run: not kept
    params = {"flow_run_id": run_id, "api_url": "" if url == os.environ.get(TEMPORARY_API_ENV) else url}
    store.intend(pending.campaign, pending.batch, PAUSE_OPERATION, key, params)
    store.settle(key, "paused", params)
    return key


def resume_after_timeout(run_id: UUID) -> None:
    """A timed-out pause leaves the run Paused on the server; the flow goes on, so the run is Running again."""
    from prefect.client.orchestration import get_client
    from prefect.states import Running

    with get_client(sync_client=True) as client:
        client.set_flow_run_state(run_id, Running(), force=True)  # past the pause's expiry: no orchestration


def resume_if_cleared(run: Run, reviewer: str) -> list[str]:
    """Resume each paused run of the campaign whose batch has nothing open left; the ids resumed."""
    waiting = paused_runs(run.store, run.cfg.name)
    if not waiting:
        return []
    queue = campaign_queue(run.store, run.cfg.name, run.cfg.policy, run.cfg.review, platform_now(run))
    open_batches = set(queue.loc[queue["decided"] == "", "batch"].astype(int))
    resumed = []
    for paused in waiting:
        if paused["batch"] in open_batches:
            continue
        outcome = resume_paused_run(paused, ReviewDone(reviewer=reviewer))
        with run.store.transaction():  # the review side's note, kept only while the ledger still says paused
            run.store.execute("UPDATE ledger SET status = ?, updated_at = ? WHERE idem_key = ? AND status = 'paused'",
                              ["resume_sent" if outcome == "resumed" else outcome, time.time(), paused["key"]])
        if outcome == "resumed":
            resumed.append(paused["flow_run_id"])
    return resumed


def resume_paused_run(paused: dict[str, Any], done: ReviewDone) -> str:
    """Resume one run with the typed input: "resumed", or "gone" when it is no longer paused."""
    import contextlib

    from prefect.exceptions import FlowPauseTimeout, NotPausedError
    from prefect.flow_runs import resume_flow_run
    from prefect.settings import PREFECT_API_URL, temporary_settings

    # The run's own server, unless this process was pointed at one.
    url = "" if os.environ.get("PREFECT_API_URL") else paused.get("api_url", "")
    with temporary_settings({PREFECT_API_URL: url}) if url else contextlib.nullcontext():
        try:
            resume_flow_run(UUID(paused["flow_run_id"]), run_input=done.model_dump(include={"reviewer", "note"}))
        except (NotPausedError, FlowPauseTimeout):
            return "gone"  # resumed from the UI, timed out, or ended meanwhile
    return "resumed"
