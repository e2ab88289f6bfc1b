"""The control quiz as a campaign stores it."""

from __future__ import annotations

from typing import Any

from flows.core.ledger.store import Store

KEPT, FAILED = "quiz:", "quiz-failed:"


def stored_quiz(store: Store, campaign: str) -> dict[str, Any]:
    return store.recorded_config(campaign).get("quiz") or {}
