"""Seeded percentile bootstrap over clusters (participants or items), the distinct ids as text, sorted.
Input: the sorted cluster ids (:func:`clusters`) and a statistic of an index array over them. Output: ``{"low", "high",
"level", "resamples", "seed", "over"}`` rounded to 4 places (None without a defined resample), undefined resamples
counted in ``undefined``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

RESAMPLES = 1000
SEED = 0
LEVEL = 0.95


def clusters(ids: pd.Series) -> tuple[list[str], np.ndarray]:
    """(the sorted distinct ids as text, each row's position in that list)."""
    text = ids.astype(str).to_numpy()
    names = sorted(set(text))
    position = {name: k for k, name in enumerate(names)}
    return names, np.fromiter((position[t] for t in text), dtype=np.int64, count=len(text))


def draws(n_clusters: int) -> np.ndarray:
    """``RESAMPLES x n_clusters`` cluster indices drawn with replacement (one generator, seeded ``SEED``)."""
    return np.random.default_rng(SEED).integers(0, n_clusters, size=(RESAMPLES, n_clusters))


def interval(values: np.ndarray, over: str) -> dict[str, Any]:
    """The percentile interval of the finite bootstrap ``values``."""
    finite = values[np.isfinite(values)]
    tail = (1 - LEVEL) / 2 * 100
    low, high = (round(float(v), 4) for v in np.percentile(finite, [tail, 100 - tail])) if len(finite) else (None, None)
    return {"low": low, "high": high, "level": LEVEL,
            "resamples": len(values), "undefined": int(len(values) - len(finite)), "seed": SEED, "over": over}


def bootstrap(n_clusters: int, statistic: Callable[[np.ndarray], float], over: str) -> dict[str, Any]:
    """The interval of ``statistic(indices)`` over cluster resamples (a loop; for costly fits)."""
    if n_clusters < 2:
        return interval(np.array([float("nan")]), over)
    return interval(np.array([statistic(row) for row in draws(n_clusters)], dtype=float), over)


def ratio_bootstrap(numerator: np.ndarray, denominator: np.ndarray, over: str) -> dict[str, Any]:
    """Interval of sum(numerator) / sum(denominator) over resampled clusters."""
    if len(numerator) < 2:
        return interval(np.array([float("nan")]), over)
    counts = resample_counts(len(numerator))
    with np.errstate(invalid="ignore", divide="ignore"):
        values = (counts @ numerator) / (counts @ denominator)
    return interval(values, over)


def resample_counts(n_clusters: int) -> np.ndarray:
    """``RESAMPLES x n_clusters``: how often each cluster was drawn (frequency weights)."""
    drawn = draws(n_clusters) + n_clusters * np.arange(RESAMPLES)[:, None]  # each resample its own bins
    return np.bincount(drawn.ravel(), minlength=RESAMPLES * n_clusters).reshape(RESAMPLES, n_clusters)
