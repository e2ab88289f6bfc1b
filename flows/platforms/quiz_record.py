"""The control quiz as a campaign stores it, read by the routes that serve it and by the campaign that judges its
takers again: its record (flows/answers/control_quiz.py writes it into the campaign's config) and the assignment ids
its takers' answers are kept under (``quiz:<worker>`` for those who passed, ``quiz-failed:<worker>`` for the rest)."""

from __future__ import annotations

from typing import Any

from flows.core.ledger.store import Store

KEPT, FAILED = "quiz:", "quiz-failed:"


def stored_quiz(store: Store, campaign: str) -> dict[str, Any]:
    return store.recorded_config(campaign).get("quiz") or {}
