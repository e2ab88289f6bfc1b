"""The confidence no control item checks (pure)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from postprocess.answers.reliability import noise_floor

SHRINK = 0.5  # the most weight on the field's mean vote share, approached as an item's labels grow
HALF_LABELS = 3.0  # the labels at which an item's weight is half SHRINK (fewer labels: a coarser vote share)
CHECK_ECE = 0.05  # a calibration error the controls should be able to tell from chance
CHECK_SIZES = (20, 40, 80, 160, 320, 640, 1280, 2560)
UNCHECKED = "model, unchecked: no control items"  # the summary's controls_to_check: how many would check it


def vote_shares(answers: pd.DataFrame, labels: pd.DataFrame) -> np.ndarray:
    """Per answer (``item_id, field, label``), the share of its item's ``labels`` in that field equal to it."""
    keys = ["item_id", "field"]
    given = labels.groupby(keys, sort=False).size()
    same = labels.groupby([*keys, "label"], sort=False).size()
    at = pd.MultiIndex.from_frame(answers[keys])
    hit = same.reindex(pd.MultiIndex.from_frame(answers[[*keys, "label"]])).fillna(0).to_numpy(dtype=float)
    return np.asarray(hit / np.maximum(given.reindex(at).fillna(0).to_numpy(dtype=float), 1.0))


def controls_to_check(confidence: np.ndarray) -> int | None:
    """The fewest controls that would check this crowd's confidence (ECE15 under CHECK_ECE), or None."""
    conf = np.sort(np.asarray(confidence, dtype=float))
    if not len(conf):
        return None
    for n in CHECK_SIZES:
        spread = conf[np.linspace(0, len(conf) - 1, n).round().astype(int)]  # the crowd's quantiles, n of them
        if noise_floor(spread, draws=200)["ece_15"]["p95"] <= CHECK_ECE:
            return n
    return None


def shrunk(own: np.ndarray, share: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """One field's ``own`` confidence moved down toward its answers' mean vote ``share``, never under 0.5 if over."""
    n = np.asarray(labels, dtype=float)
    weight = SHRINK * n / (n + HALF_LABELS)
    moved = np.minimum(own, (1 - weight) * own + weight * float(np.mean(share)))
    return np.asarray(np.where(own >= 0.5, np.maximum(moved, 0.5), moved))


def unchecked(answers: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """``answers`` with ``confidence`` :func:`shrunk`, ``confidence_source`` and ``controls_to_check``."""
    out = answers.copy()
    if out.empty:
        return out
    own, share = out["confidence"].to_numpy(dtype=float), vote_shares(out, labels)
    counts, confidence = out["judgements"].to_numpy(), own.copy()
    for rows in out.groupby("field", sort=False).indices.values():
        confidence[rows] = shrunk(own[rows], share[rows], counts[rows])
    out["confidence"] = confidence
    out["confidence_source"] = UNCHECKED
    out.attrs["controls_to_check"] = controls_to_check(confidence)
    return out
