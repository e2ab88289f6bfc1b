"""What a person's decision sends on MTurk, each once, under the automatic steps' keys."""

from __future__ import annotations

import hashlib
from functools import partial
from typing import Any

from flows.core.decisions import Decision
from flows.core.errors import PlatformError
from flows.core.ledger.ledger_calls import Adopted, LedgeredCall, ledgered
from flows.core.run.run_context import Run
from flows.platforms.decision_steps import Sender, blocked_mode, new_block_key, sent, strike
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.qualifications import block_qualification


def _mturk_client(run: Run) -> Any:
    """boto3's MTurk client (untyped): the run's, which on this route is never Prolific's."""
    if run.client is None or not hasattr(run.client, "delete_worker_block"):  # Prolific's client is not boto3's
        raise PlatformError(f"{run.cfg.name} runs on {run.platform}: its session has no MTurk client")
    return run.client


def verdict_call(run: Run, action: str, assignment_id: str, feedback: str = "") -> LedgeredCall:
    """Approve or reject one assignment, under the one key a rule's and a reviewer's decision share."""
    send = (lambda: mturk.approve(run.client, assignment_id)) if action == "approve" else \
        (lambda: mturk.reject(run.client, assignment_id, feedback))
    return LedgeredCall(f"{action.capitalize()}Assignment", f"{run.cfg.name}:{action}:{assignment_id}",
                        {"AssignmentId": assignment_id}, lambda: {"outcome": send()})


def _mturk_verdict(run: Run, d: Decision) -> tuple[str, str]:
    call = verdict_call(run, d.action, d.assignment_id, d.reason)
    return call.key, str(ledgered(run.store, run.cfg.name, d.batch, call)["outcome"])


def block(run: Run, worker_id: str, reason: str) -> dict[str, Any]:
    """A soft block (the campaign's excluded qualification) or a hard one; one made already is adopted."""
    mode = run.cfg.gating.block_mode
    made = mturk.exclude_worker(run.client, worker_id, mode, block_qualification(run) if mode == "soft" else "", reason)
    return {"mode": mode} if made else Adopted({"mode": mode})


def _mturk_block(run: Run, d: Decision) -> tuple[str, str]:
    mode, key = run.cfg.gating.block_mode, new_block_key(run, d)
    sent(run, d, "ExcludeWorker", key, {"WorkerId": d.worker_id, "mode": mode},
         partial(block, run, d.worker_id, f"review: {d.reason or 'blocked by a reviewer'}"))
    return key, mode


def _mturk_unblock(run: Run, d: Decision) -> tuple[str, str]:
    """Lift a block in force; a worker not (yet) blocked is only marked kept, so block_batch spares them."""
    mode = blocked_mode(run, d)
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

    sent(run, d, "IncludeWorker", key, {"WorkerId": d.worker_id, "mode": mode}, lift)
    return key, f"unblocked ({mode})"


def _mturk_bonus(run: Run, d: Decision) -> tuple[str, str]:
    key = f"{run.cfg.name}:bonus:{d.idem_key}"

    def pay() -> dict[str, str]:
        mturk.bonus(run.client, d.worker_id, d.assignment_id, d.amount, d.reason or "thank you",
                    hashlib.sha256(d.idem_key.encode()).hexdigest()[:64])
        return {"sent": d.amount}

    sent(run, d, "SendBonus", key, {"WorkerId": d.worker_id, "AssignmentId": d.assignment_id,
                                                   "BonusAmount": d.amount}, pay)
    return key, f"bonus {d.amount} sent"


MTURK_SENDERS: dict[str, Sender] = {"approve": _mturk_verdict, "reject": _mturk_verdict, "strike_caption": strike,
                                    "block": _mturk_block, "unblock": _mturk_unblock, "bonus": _mturk_bonus}
