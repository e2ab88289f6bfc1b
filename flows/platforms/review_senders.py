"""What a person's decision sends, per platform: MTurk calls, Prolific calls, nothing for links.

Each sender takes the run and a checked :class:`flows.review.review_actions.Decision` and returns
``(ledger key, outcome)``. The keys are the ones the automatic steps use (``<campaign>:approve:<id>``,
``<campaign>:reject:<id>``, ``<campaign>:block:<worker>``), so a decision a person made is settled
in the ledger before decide_batch or block_batch reach it, and they send nothing more.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from flows.campaigns.campaign_plan import block_qualification
from flows.core.errors import InputFormatError, PlatformError
from flows.core.ledger_calls import LedgeredCall, ledgered
from flows.core.run_context import Run
from flows.platforms.mturk import adapter as mturk
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific.batches import blocklist_group, exclude_participants, prolific_client

if TYPE_CHECKING:
    from flows.review.review_actions import Decision

Sender = Callable[[Run, "Decision"], tuple[str, str]]


def _strike(run: Run, d: Decision) -> tuple[str, str]:
    return "", "struck from the dataset"  # the dataset's own verdict: nothing goes to the platform


def _sent(run: Run, d: Decision, operation: str, key: str, params: dict[str, Any],
          send: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The decision's platform call, made once under ``key`` (the automatic step's key)."""
    return ledgered(run.store, run.cfg.name, d.batch, LedgeredCall(operation, key, params, send))


def _new_block_key(run: Run, d: Decision) -> str:
    key = f"{run.cfg.name}:block:{d.worker_id}"
    return f"{key}:{d.idem_key}" if run.store.ledger_entry(key) else key  # blocked, unblocked since: a new block


def _blocked_mode(run: Run, d: Decision) -> str:
    blocked = run.store.rows("SELECT mode FROM blocks WHERE campaign = ? AND worker_id = ?",
                             [run.cfg.name, d.worker_id])
    return str(blocked[0]["mode"]) if blocked else ""


# MTurk ------------------------------------------------------------------------------------
def _mturk_client(run: Run) -> Any:
    """boto3's MTurk client (untyped): the run's, which on this route is never Prolific's."""
    if run.client is None or isinstance(run.client, prolific.ProlificClient):
        raise PlatformError(f"{run.cfg.name} runs on {run.platform}: its session has no MTurk client")
    return run.client


def _mturk_approve(run: Run, d: Decision) -> tuple[str, str]:
    key = f"{run.cfg.name}:approve:{d.assignment_id}"
    result = _sent(run, d, "ApproveAssignment", key, {"AssignmentId": d.assignment_id},
                           lambda: {"outcome": mturk.approve(run.client, d.assignment_id)})
    return key, str(result["outcome"])


def _mturk_reject(run: Run, d: Decision) -> tuple[str, str]:
    key = f"{run.cfg.name}:reject:{d.assignment_id}"
    result = _sent(run, d, "RejectAssignment", key, {"AssignmentId": d.assignment_id},
                           lambda: {"outcome": mturk.reject(run.client, d.assignment_id, d.reason)})
    return key, str(result["outcome"])


def _mturk_block(run: Run, d: Decision) -> tuple[str, str]:
    mode, key = run.cfg.gating.block_mode, _new_block_key(run, d)
    qual_id = block_qualification(run) if mode == "soft" else ""

    def exclude() -> dict[str, str]:
        mturk.exclude_worker(run.client, d.worker_id, mode, qual_id, f"review: {d.reason or 'blocked by a reviewer'}")
        return {"mode": mode}

    _sent(run, d, "ExcludeWorker", key, {"WorkerId": d.worker_id, "mode": mode}, exclude)
    return key, mode


def _mturk_unblock(run: Run, d: Decision) -> tuple[str, str]:
    """Lift a block in force; a worker not (yet) blocked is only marked kept, so block_batch spares them."""
    mode = _blocked_mode(run, d)
    if not mode:
        return "", "kept (not blocked)"
    key = f"{run.cfg.name}:unblock:{d.worker_id}:{d.idem_key}"

    def lift() -> dict[str, str]:
        client = _mturk_client(run)
        if mode == "hard":
            client.delete_worker_block(WorkerId=d.worker_id, Reason=f"review: {d.reason or 'unblocked'}")
        elif mode == "soft":
            client.disassociate_qualification_from_worker(
                WorkerId=d.worker_id, QualificationTypeId=block_qualification(run), Reason="unblocked by review")
        return {"mode": mode}

    _sent(run, d, "IncludeWorker", key, {"WorkerId": d.worker_id, "mode": mode}, lift)
    return key, f"unblocked ({mode})"


def _mturk_bonus(run: Run, d: Decision) -> tuple[str, str]:
    key = f"{run.cfg.name}:bonus:{d.idem_key}"

    def pay() -> dict[str, str]:
        mturk.bonus(run.client, d.worker_id, d.assignment_id, d.amount, d.reason or "thank you",
                    hashlib.sha256(d.idem_key.encode()).hexdigest()[:64])
        return {"sent": d.amount}

    _sent(run, d, "SendBonus", key, {"WorkerId": d.worker_id, "AssignmentId": d.assignment_id,
                                                   "BonusAmount": d.amount}, pay)
    return key, f"bonus {d.amount} sent"


# Prolific ---------------------------------------------------------------------------------
def _submission(run: Run, d: Decision) -> dict[str, Any]:
    """The submission as last recorded; a verdict needs one that is still AWAITING REVIEW."""
    rows = run.store.rows("SELECT study_id, participant_id, status FROM platform_submissions "
                          "WHERE campaign = ? AND submission_id = ?", [run.cfg.name, d.assignment_id])
    if not rows:
        raise InputFormatError(f"submission {d.assignment_id} is not one Prolific reported for {run.cfg.name}")
    return rows[0]


def _settled_on_prolific(run: Run, d: Decision, status: str) -> None:
    """The store follows Prolific at once, so the batch's bulk approval leaves this submission out."""
    for table, key in (("platform_submissions", "submission_id"), ("assignments", "assignment_id")):
        run.store.db.execute(f"UPDATE {table} SET status = ? WHERE {key} = ?", [status, d.assignment_id])


def _prolific_verdict(run: Run, d: Decision) -> tuple[str, str]:
    sub = _submission(run, d)
    key = f"{run.cfg.name}:{d.action}:{d.assignment_id}"
    if sub["status"] != "AWAITING REVIEW" and not run.store.ledger_entry(key):
        raise InputFormatError(f"submission {d.assignment_id} is {sub['status']} on Prolific; nothing to {d.action}")

    def send() -> dict[str, str]:
        if d.action == "approve":
            prolific.approve(prolific_client(run), sub["study_id"], [d.assignment_id])
            return {"outcome": "APPROVED"}
        prolific.reject(prolific_client(run), d.assignment_id, d.category, d.reason)
        return {"outcome": "REJECTED"}

    operation = "ApproveSubmission" if d.action == "approve" else "RejectSubmission"
    result = _sent(run, d, operation, key, {"category": d.category}, send)
    _settled_on_prolific(run, d, str(result["outcome"]))
    return key, str(result["outcome"])


def _prolific_block(run: Run, d: Decision) -> tuple[str, str]:
    key = _new_block_key(run, d)

    def exclude() -> dict[str, str]:
        exclude_participants(run, [d.worker_id])
        return {"mode": "blocklist"}

    _sent(run, d, "ExcludeWorker", key, {"WorkerId": d.worker_id, "mode": "blocklist"}, exclude)
    return key, "blocklist"


def _prolific_unblock(run: Run, d: Decision) -> tuple[str, str]:
    if not _blocked_mode(run, d):
        return "", "kept (not blocked)"
    raise InputFormatError(f"{d.worker_id} is in the blocklist group {blocklist_group(run)} on Prolific; hitflow "
                           "does not take people out of it: remove them in Prolific's participant groups page")


def _prolific_bonus(run: Run, d: Decision) -> tuple[str, str]:
    sub = _submission(run, d)
    key = f"{run.cfg.name}:bonus:{d.idem_key}"
    _sent(run, d, "SendBonus", key, {"participant_id": d.worker_id, "amount": d.amount},
                  lambda: {"bonus_id": prolific.pay_bonuses(prolific_client(run), sub["study_id"],
                                                            {d.worker_id: Decimal(d.amount)})})
    return key, f"bonus {d.amount} {run.cfg.prolific.currency} sent"


# self-hosted links: nobody to pay or refuse on a platform; the task server refuses anyone in blocks
def _links_verdict(run: Run, d: Decision) -> tuple[str, str]:
    return "", "self-hosted"


def _links_block(run: Run, d: Decision) -> tuple[str, str]:
    return "", "no more links"


def _links_unblock(run: Run, d: Decision) -> tuple[str, str]:
    return "", "unblocked (links)" if _blocked_mode(run, d) else "kept (not blocked)"


def _links_bonus(run: Run, d: Decision) -> tuple[str, str]:
    raise InputFormatError("invite links pay nobody through a platform; a bonus cannot be sent from here")


MTURK_SENDERS: dict[str, Sender] = {"approve": _mturk_approve, "reject": _mturk_reject, "strike_caption": _strike,
                                    "block": _mturk_block, "unblock": _mturk_unblock, "bonus": _mturk_bonus}
PROLIFIC_SENDERS: dict[str, Sender] = {"approve": _prolific_verdict, "reject": _prolific_verdict,
                                       "strike_caption": _strike, "block": _prolific_block,
                                       "unblock": _prolific_unblock, "bonus": _prolific_bonus}
LINKS_SENDERS: dict[str, Sender] = {"approve": _links_verdict, "reject": _links_verdict, "strike_caption": _strike,
                                    "block": _links_block, "unblock": _links_unblock, "bonus": _links_bonus}
