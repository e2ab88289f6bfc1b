"""MTurk's fee table (2017-01-17 API era), for estimates and the simulator alike."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

CENT = Decimal("0.01")


def money(value: Any) -> Decimal:
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def mturk_fee(reward: Decimal, max_assignments: int) -> Decimal:
    """20% commission, 20% more for HITs with 10 or more assignments, at least $0.01."""
    rate = Decimal("0.20") + (Decimal("0.20") if max_assignments >= 10 else Decimal("0"))
    return max(CENT, money(reward * rate))
