"""Prolific's submission statuses as its OpenAPI spells them, grouped for a batch."""

from __future__ import annotations

import hashlib
import json

from flows.core.ledger.store import Store
from flows.core.run.run_context import Run

FINISHED = ("AWAITING REVIEW", "APPROVED", "REJECTED")
UNPAID = ("RETURNED", "TIMED-OUT", "SCREENED OUT")
PENDING = ("ACTIVE", "RESERVED", "UNKNOWN")  # holding a place, not finished yet: wait for Prolific's word
SPELLINGS = {"TIME-OUT": "TIMED-OUT"}  # one name in the store for each status


def place_counts(statuses: list[str]) -> dict[str, int]:
    """A study's places as Prolific counts them: finished, pending, taken and unpaid."""
    canonical = [SPELLINGS.get(s, s) for s in statuses]
    finished = sum(s in FINISHED for s in canonical)
    pending = sum(s in PENDING for s in canonical)
    return {"finished": finished, "pending": pending, "taken": finished + pending,
            "unpaid": sum(s in UNPAID for s in canonical)}


def bulk_approve_key(store: Store, campaign: str, batch: int, submission_ids: list[str]) -> str:
    """The ledger key of a bulk approval: one per set of submissions."""
    key = f"{campaign}:b{batch}:bulk-approve"
    earlier = store.ledger_entry(key)
    if earlier is None or sorted(json.loads(earlier["params"] or "{}").get("submission_ids", [])) == \
            sorted(submission_ids):
        return key
    return f"{key}:{hashlib.sha256(' '.join(sorted(submission_ids)).encode()).hexdigest()[:16]}"


def rejection_message(run: Run, reasons: str) -> str:
    """Prolific wants at least 100 characters: the policy's feedback plus what the page asked for."""
    text = run.cfg.policy.reject_feedback.format(rules=reasons)
    return text if len(text) >= 100 else (
        f"{text} The task page explained these rules and checked them before submission; the submitted "
        "answers broke them, so this submission cannot be accepted.")
