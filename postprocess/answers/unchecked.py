"""The confidence no control item checks (pure): the model's own pulled toward the vote share, said unchecked, with
how many controls would check it. Why and how the weight was chosen: docs/explanation/answers-confidence.md."""

from __future__ import annotations

import numpy as np
import pandas as pd

from postprocess.answers.reliability import noise_floor

VOTE_WEIGHT = 0.2  # the least weight at which no tuning crowd's ECE15 was above its vote share's
CHECK_ECE = 0.05  # a calibration error the controls should be able to tell from chance
CHECK_SIZES = (20, 40, 80, 160, 320, 640, 1280, 2560)
UNCHECKED = "model, unchecked: no control items"  # the summary's controls_to_check: how many would check it


def vote_shares(answers: pd.DataFrame, labels: pd.DataFrame) -> np.ndarray:
    """Per answer (``item_id, field, label``), the share of its item's labels in that field (``labels``:
    ``item_id, field, label``, one a judgement) that equal it."""
    keys = ["item_id", "field"]
    given = labels.groupby(keys, sort=False).size()
    same = labels.groupby([*keys, "label"], sort=False).size()
    at = pd.MultiIndex.from_frame(answers[keys])
    hit = same.reindex(pd.MultiIndex.from_frame(answers[[*keys, "label"]])).fillna(0).to_numpy(dtype=float)
    return np.asarray(hit / np.maximum(given.reindex(at).fillna(0).to_numpy(dtype=float), 1.0))


def controls_to_check(confidence: np.ndarray) -> int | None:
    """The fewest controls (of CHECK_SIZES) on which a perfectly calibrated confidence, spread as this crowd's
    is, reads ECE15 below CHECK_ECE 19 times in 20 (the noise floor's 95th percentile): fewer cannot tell a
    calibration error of CHECK_ECE from chance. None where even the largest cannot."""
    conf = np.sort(np.asarray(confidence, dtype=float))
    if not len(conf):
        return None
    for n in CHECK_SIZES:
        spread = conf[np.linspace(0, len(conf) - 1, n).round().astype(int)]  # the crowd's quantiles, n of them
        if noise_floor(spread, draws=200)["ece_15"]["p95"] <= CHECK_ECE:
            return n
    return None


def pulled(own: np.ndarray, share: np.ndarray) -> np.ndarray:
    """The model's confidence ``own`` VOTE_WEIGHT of the way down to the vote ``share`` where that is lower, no
    lower than 0.5 where ``own`` was at least that (the answer still reads as its likeliest label)."""
    down = own - VOTE_WEIGHT * np.maximum(own - share, 0.0)
    return np.asarray(np.where(own >= 0.5, np.maximum(down, 0.5), down))


def unchecked(answers: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """``answers`` with :func:`vote_shares` weighed into ``confidence`` (the module; no lower than 0.5 where the
    model's was at least that, so the answer still reads as its likeliest label), ``confidence_source`` saying it
    is unchecked and ``attrs["controls_to_check"]`` (:func:`controls_to_check`)."""
    out = answers.copy()
    if out.empty:
        return out
    out["confidence"] = pulled(out["confidence"].to_numpy(dtype=float), vote_shares(out, labels))
    out["confidence_source"] = UNCHECKED
    out.attrs["controls_to_check"] = controls_to_check(out["confidence"].to_numpy(dtype=float))
    return out
