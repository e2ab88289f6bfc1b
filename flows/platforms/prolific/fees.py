"""Prolific's service fee (a third of each reward), for estimates and the simulator alike."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def fee(amount: int) -> int:
    """The fee on one reward of ``amount`` minor units, rounded half up to a whole minor unit."""
    return int((Decimal(amount) / 3).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def cost_of(reward: int, places: int) -> tuple[int, int]:
    """(rewards, fees) in minor units for a study."""
    return reward * places, fee(reward) * places
