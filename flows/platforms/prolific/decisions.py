"""What a person's decision sends on Prolific, each once, under the automatic steps' keys."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from flows.core.decisions import Decision
from flows.core.errors import InputFormatError
from flows.core.run.run_context import Run
from flows.platforms.decision_steps import Sender, blocked_mode, new_block_key, sent, strike
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific.batches import blocklist_group, exclude_participants, prolific_client


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
        run.store.execute(f"UPDATE {table} SET status = ? WHERE campaign = ? AND {key} = ?",
                          [status, run.cfg.name, d.assignment_id])


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
    result = sent(run, d, operation, key, {"category": d.category}, send)
    _settled_on_prolific(run, d, str(result["outcome"]))
    return key, str(result["outcome"])


def _prolific_block(run: Run, d: Decision) -> tuple[str, str]:
    key = new_block_key(run, d)

    def exclude() -> dict[str, str]:
        exclude_participants(run, [d.worker_id])
        return {"mode": "blocklist"}

    sent(run, d, "ExcludeWorker", key, {"WorkerId": d.worker_id, "mode": "blocklist"}, exclude)
    return key, "blocklist"


def _prolific_unblock(run: Run, d: Decision) -> tuple[str, str]:
    if not blocked_mode(run, d):
        return "", "kept (not blocked)"
    raise InputFormatError(f"{d.worker_id} is in the blocklist group {blocklist_group(run)} on Prolific; hitflow "
                           "does not take people out of it: remove them in Prolific's participant groups page")


def _prolific_bonus(run: Run, d: Decision) -> tuple[str, str]:
    sub = _submission(run, d)
    key = f"{run.cfg.name}:bonus:{d.idem_key}"
    sent(run, d, "SendBonus", key, {"participant_id": d.worker_id, "amount": d.amount},
                  lambda: {"bonus_id": prolific.pay_bonuses(prolific_client(run), sub["study_id"],
                                                            {d.worker_id: Decimal(d.amount)})})
    return key, f"bonus {d.amount} {run.cfg.prolific.currency} sent"


PROLIFIC_SENDERS: dict[str, Sender] = {"approve": _prolific_verdict, "reject": _prolific_verdict,
                                       "strike_caption": strike, "block": _prolific_block,
                                       "unblock": _prolific_unblock, "bonus": _prolific_bonus}
