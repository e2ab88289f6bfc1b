"""Who a newly posted HIT may go to, kept between posts (market.Marketplace.schedule)."""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import islice

from flows.sim.people.crowd_model import Worker

# The MTurk operations that cannot change who may take a new HIT; any other makes the pool start over.
KEEPS_ELIGIBLE = frozenset({"CreateHITType", "CreateHIT", "CreateHITWithHITType", "GetHIT", "ListHITs",
                            "ListReviewableHITs", "ListAssignmentsForHIT", "GetAssignment", "UpdateHITReviewStatus",
                            "GetAccountBalance", "GetQualificationType", "ListQualificationTypes"})


class EligiblePool:
    def __init__(self) -> None:
        self.forget()

    def forget(self) -> None:
        self._key: str | None = None
        self._pool: list[Worker] = []
        self._weights: list[float] = []
        self._seen = 0  # how many of the crowd (in arrival order) were checked
        self._now = -math.inf
        self._first_leaving = math.inf

    def workers(self, key: str, crowd: dict[str, Worker], now: float,
                eligible: Callable[[Worker], bool]) -> tuple[list[Worker], list[float]]:
        """The present workers of ``crowd`` that pass ``eligible`` (for ``key``), and their activity weights."""
        if key != self._key or not self._now <= now < self._first_leaving or len(crowd) < self._seen:
            self.forget()
            self._key = key
        fresh = [w for w in islice(crowd.values(), self._seen, None) if w.present(now) and eligible(w)]
        self._pool += fresh
        self._weights += [w.params["activity"] for w in fresh]
        self._first_leaving = min([self._first_leaving, *(w.leaves_at for w in fresh)])
        self._seen, self._now = len(crowd), now
        return list(self._pool), list(self._weights)
