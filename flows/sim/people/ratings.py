"""Ratings of what the simulator cannot perceive: a latent score per item."""

from __future__ import annotations

import random
import zlib


def numeric_scale(options: list[str]) -> list[float] | None:
    """The options as numbers when they are a rating scale (three or more numbers); else None."""
    try:
        values = [float(o) for o in options if o != ""]
    except ValueError:
        return None
    return values if len(set(values)) >= 3 else None


def latent_position(item: str, field: str) -> float:
    """The item's true score as a share of the scale (0 = its low end), the same for every worker."""
    rng = random.Random(zlib.crc32(f"{item}|{field}|rating".encode()))
    return min(1.0, (rng.random() + rng.random()) / 2 + 0.08)


def rated_position(item: str, field: str, worker_id: str, careful: bool, rng: random.Random) -> float:
    """Where on the scale this worker puts the item: its latent score, their bias, honest noise."""
    bias = random.Random(f"{worker_id}|bias").uniform(-0.06, 0.06)
    noise = rng.gauss(0.0, 0.1 if careful else 0.2)
    return min(1.0, max(0.0, latent_position(item, field) + bias + noise))


def nearest(options: list[str], scale: list[float], position: float) -> str:
    """The option closest to ``position`` of the way from the scale's low end to its high end."""
    low, high = min(scale), max(scale)
    target = low + position * (high - low)
    numbered = [(o, float(o)) for o in options if o != ""]
    return min(numbered, key=lambda p: abs(p[1] - target))[0]


# A number's error around its truth as a share of the field's range (modelling choices).
CAREFUL_SPREAD, CARELESS_SPREAD, LEAN = 0.04, 0.2, 0.03
# A typed number the item shows is copied, with a slip by whether the worker takes care.
TYPED_SLIP = {True: 0.03, False: 0.3}


def answered_number(truth: float, low: float | None, high: float | None, worker_id: str, careful: bool,
                    rng: random.Random) -> float:
    """The number a worker gives for ``truth``: with their lean and an error spread by their care, in bounds."""
    scale = (high - low) if low is not None and high is not None and high > low else max(abs(truth), 10.0)
    lean = random.Random(f"{worker_id}|lean").uniform(-LEAN, LEAN) * scale
    value = truth + lean + rng.gauss(0.0, (CAREFUL_SPREAD if careful else CARELESS_SPREAD) * scale)
    if low is not None:
        value = max(low, value)
    return min(high, value) if high is not None else value


def truth_option(options: list[str], scale: list[float], item: str, field: str) -> str:
    return nearest(options, scale, latent_position(item, field))
