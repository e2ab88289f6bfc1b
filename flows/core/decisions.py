"""A person's decision from the review page, as every layer reads it.

The review page (flows/review/) makes and checks them; each platform's ``REVIEW_SENDERS`` sends
them (flows/platforms/<name>/decisions.py). In the core so both sides import it, neither the other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Decision:
    """One POST from the page, already parsed."""

    action: str
    batch: int
    worker_id: str
    assignment_id: str = ""
    image_id: str = ""
    reason: str = ""
    category: str = ""
    amount: str = ""
    reviewer: str = ""
    idem_key: str = ""
