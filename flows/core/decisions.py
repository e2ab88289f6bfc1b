"""A person's decision from the review page, shared by the review page and the senders."""

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
