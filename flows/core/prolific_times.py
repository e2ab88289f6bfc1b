"""Prolific's own rule for a study's times (a base module for the config and the plans)."""

from __future__ import annotations

import math


def prolific_min_maximum(estimated_minutes: float) -> int:
    """Prolific's minimum maximum time, 2 + X + 2 sqrt(X) minutes, rounded up to a whole minute."""
    return math.ceil(2 + estimated_minutes + 2 * math.sqrt(estimated_minutes))
