"""Rows found by key without a join. Pure: keys in (tuples of text), positions and arrays out."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def positions(table: Iterable[tuple[object, ...]], keys: Iterable[tuple[object, ...]]) -> np.ndarray:
    """Each key's position among ``table``'s keys (each once there), -1 where absent."""
    where = {key: at for at, key in enumerate(table)}
    return np.array([where.get(key, -1) for key in keys], dtype=np.intp)


def values_at(values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``values`` at positions ``at``, NaN at -1 (as a left merge fills a row without a match)."""
    if (at >= 0).all():
        return values[at]
    kind = object if values.dtype == object else float
    return np.where(at >= 0, values[at].astype(kind), np.nan) if len(values) else np.full(len(at), np.nan, kind)
