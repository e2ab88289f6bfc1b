"""Bootstrap intervals of ``make bench-qc-real``'s held-out figures.

The five captions of an image are not independent (one spammer often pastes on several of
them, peers share a photo), so images are resampled with their captions (a cluster bootstrap),
not captions one by one. Percentile intervals; the seed makes the figures repeatable.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

RESAMPLES = 2000
CHUNK = 250  # resamples per matrix, to keep memory small


def per_image_counts(frame: pd.DataFrame, flagged: np.ndarray, tune: bool) -> np.ndarray:
    """Per image of one half (``tune``: the tuning half, else the held-out one): rejected flagged,
    rejected, accepted flagged, accepted (non-canned)."""
    rows = (frame["tune"].to_numpy() == tune) & ~frame["is_precanned"].to_numpy()
    rejected = frame["rejected"].to_numpy()[rows]
    hit = flagged[rows]
    parts = pd.DataFrame({"image": frame["image_id"].to_numpy()[rows], "rf": hit & rejected, "r": rejected,
                          "af": hit & ~rejected, "a": ~rejected})
    return parts.groupby("image")[["rf", "r", "af", "a"]].sum().to_numpy(dtype=np.float64)


def heldout_interval(frame: pd.DataFrame, flagged: np.ndarray, resamples: int = RESAMPLES,
                     seed: int = 0) -> dict[str, Any]:
    """Held-out recall and false flags with 95% intervals, and the share of resamples meeting both
    targets (recall >= 90%, false flags <= 3%)."""
    counts = per_image_counts(frame, flagged, tune=False)
    rng = np.random.default_rng(seed)
    n = len(counts)
    recall, false = [], []
    for start in range(0, resamples, CHUNK):
        size = min(CHUNK, resamples - start)
        weights = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(size)])
        totals = weights @ counts
        recall.append(totals[:, 0] / totals[:, 1])
        false.append(totals[:, 2] / totals[:, 3])
    r, f = np.concatenate(recall), np.concatenate(false)
    whole = counts.sum(axis=0)
    return {"recall": float(whole[0] / whole[1]), "false": float(whole[2] / whole[3]),
            "recall_ci": tuple(float(x) for x in np.percentile(r, [2.5, 97.5])),
            "false_ci": tuple(float(x) for x in np.percentile(f, [2.5, 97.5])),
            "meets_target": float(np.mean((r >= 0.9) & (f <= 0.03)))}
