"""Does an answer's confidence mean what it says? Expected calibration error, reliability tables and the worst bin.
Pure: arrays in, numbers and DataFrames out. ``confidence`` is each answer's confidence in [0, 1], ``correct`` whether
the answer is right (0 or 1)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

BINS = 6
FINE_BINS = 15
EQUAL_MASS_BINS = 15  # at most this many equal-mass bins
MIN_BIN_ITEMS = 20  # an equal-mass bin holds at least this many items (fewer items: fewer bins)
WORST_MIN_ITEMS = 50  # a bin is read for the worst bin from this many items
FLOOR_DRAWS = 400  # outcomes drawn per noise floor: its 95th percentile within about +-0.003 on 150 items
RELIABILITY_COLUMNS = ["bin", "items", "confidence", "accuracy"]


def _bin_of(confidence: np.ndarray, bins: int) -> np.ndarray:
    return np.minimum(np.floor(confidence * bins).astype(int), bins - 1)


def _arrays(confidence: Any, correct: Any) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)


def _ece_of(conf: np.ndarray, right: np.ndarray, which: np.ndarray) -> float:
    """ECE over the bins ``which`` assigns (one bin number per item)."""
    total = 0.0
    for b in np.unique(which):
        inside = which == b
        total += inside.sum() / len(conf) * abs(conf[inside].mean() - right[inside].mean())
    return float(total)


def ece(confidence: Any, correct: Any, bins: int = BINS) -> float:
    """Expected calibration error over ``bins`` equal-width bins of [0, 1] (the module); NaN without items."""
    conf, right = _arrays(confidence, correct)
    return _ece_of(conf, right, _bin_of(conf, bins)) if len(conf) else float("nan")


def _table(conf: np.ndarray, right: np.ndarray, which: np.ndarray, names: list[str]) -> pd.DataFrame:
    rows = [{"bin": names[b], "items": int((which == b).sum()), "confidence": float(conf[which == b].mean()),
             "accuracy": float(right[which == b].mean())} for b in np.unique(which)]
    return pd.DataFrame(rows, columns=RELIABILITY_COLUMNS)


def reliability(confidence: Any, correct: Any, bins: int = BINS) -> pd.DataFrame:
    """One row per non-empty equal-width bin: ``bin``, ``items``, ``confidence``, ``accuracy``, lowest first."""
    conf, right = _arrays(confidence, correct)
    names = [f"{b / bins:.2f}-{(b + 1) / bins:.2f}" for b in range(bins)]
    return _table(conf, right, _bin_of(conf, bins), names)


def equal_mass_bins(confidence: Any) -> np.ndarray:
    """Each item's equal-mass bin (0 lowest), at most ``EQUAL_MASS_BINS``, equal confidences together."""
    conf = np.asarray(confidence, dtype=float)
    count = int(np.clip(len(conf) // MIN_BIN_ITEMS, 1, EQUAL_MASS_BINS))
    first = np.searchsorted(np.sort(conf), conf, side="left")  # its rank; equal confidences: the first's
    return np.minimum(first * count // max(len(conf), 1), count - 1)


def equal_mass(confidence: Any, correct: Any) -> pd.DataFrame:
    """:func:`reliability`'s rows over equal-mass bins; ``bin`` names the confidences it spans."""
    conf, right = _arrays(confidence, correct)
    which = equal_mass_bins(conf)
    names = {int(b): _span(conf[which == b].min(), conf[which == b].max()) for b in np.unique(which)}
    return _table(conf, right, which, [names.get(b, "") for b in range(int(which.max(initial=0)) + 1)])


def _span(low: float, high: float) -> str:
    """``low-high`` to three places, or as many more (up to six) as tell them apart."""
    places = next((d for d in range(3, 7) if f"{low:.{d}f}" != f"{high:.{d}f}"), 3)
    return f"{low:.{places}f}-{high:.{places}f}"


def ece_equal_mass(confidence: Any, correct: Any) -> float:
    conf, right = _arrays(confidence, correct)
    return _ece_of(conf, right, equal_mass_bins(conf)) if len(conf) else float("nan")


def worst_bin(table: pd.DataFrame, min_items: int = WORST_MIN_ITEMS) -> dict[str, Any] | None:
    """The reliability ``table``'s bin of ``min_items`` items furthest off, with ``off``; None if none."""
    big = table[table["items"] >= min_items]
    if big.empty:
        return None
    off = big["confidence"] - big["accuracy"]
    at = off.abs().idxmax()
    return {"bin": big.at[at, "bin"], "items": int(big.at[at, "items"]), "off": round(float(off[at]), 4)}


def scored(confidence: Any, correct: Any) -> dict[str, Any]:
    """What a person reads: items, accuracy, confidence, ``ece``, ``ece_15``, ``ece_equal_mass``, ``worst_bin``,
    tables."""
    conf, right = _arrays(confidence, correct)
    if not len(conf):
        return {"items": 0, "accuracy": None, "mean_confidence": None, "ece": None, "ece_15": None,
                "ece_equal_mass": None, "ece_bins": _BIN_WORDS, "binning": _BINNING, "worst_bin": None,
                "reliability": [], "reliability_equal_mass": []}
    fine, mass = reliability(conf, right, FINE_BINS), equal_mass(conf, right)
    worst = [w for w in (worst_bin(fine), worst_bin(mass)) if w is not None]
    rounding = {"confidence": 4, "accuracy": 4}
    return {"items": len(conf), "accuracy": round(float(right.mean()), 4),
            "mean_confidence": round(float(conf.mean()), 4), "ece": round(ece(conf, right), 4),
            "ece_15": round(ece(conf, right, FINE_BINS), 4), "ece_equal_mass": round(ece_equal_mass(conf, right), 4),
            "ece_bins": _BIN_WORDS, "binning": _BINNING,
            "worst_bin": max(worst, key=lambda w: abs(w["off"])) if worst else None,
            "reliability": fine.round(rounding).to_dict("records"),
            "reliability_equal_mass": mass.round(rounding).to_dict("records")}


def noise_floor(confidence: Any, draws: int = FLOOR_DRAWS) -> dict[str, dict[str, float]]:
    """``mean`` and ``p95`` of ``ece``, ``ece_15`` and ``worst_bin`` for a perfectly calibrated confidence."""
    conf = np.clip(np.asarray(confidence, dtype=float), 0.0, 1.0)
    if not len(conf):
        return {k: {"mean": float("nan"), "p95": float("nan")} for k in ("ece", "ece_15", "worst_bin")}
    right = (np.random.default_rng(0).random((draws, len(conf))) < conf).astype(float)
    ece6, ece15, worst15 = _drawn(conf, right, _bin_of(conf, BINS))[0], *_drawn(conf, right, _bin_of(conf, FINE_BINS))
    worst = np.maximum(worst15, _drawn(conf, right, equal_mass_bins(conf))[1])
    return {k: {"mean": round(float(v.mean()), 4), "p95": round(float(np.quantile(v, 0.95)), 4)}
            for k, v in (("ece", ece6), ("ece_15", ece15), ("worst_bin", worst))}


def _drawn(conf: np.ndarray, right: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``right`` (draws x items): the ECE over ``which``'s bins and the worst bin's gap."""
    bins = np.unique(which, return_inverse=True)[1]
    members = np.zeros((len(conf), bins.max() + 1))
    members[np.arange(len(conf)), bins] = 1.0
    size, stated = members.sum(axis=0), conf @ members
    gap = np.abs(stated - right @ members)  # draws x bins: |sum of confidence - number right|
    big = size >= WORST_MIN_ITEMS
    worst = (gap[:, big] / size[big]).max(axis=1) if big.any() else np.zeros(len(right))
    return gap.sum(axis=1) / len(conf), worst


_BIN_WORDS = f"{BINS} equal-width bins of [0, 1]"
_BINNING = (f"ece: {BINS} equal-width bins of [0, 1]; ece_15 and reliability: {FINE_BINS}; ece_equal_mass and "
            f"reliability_equal_mass: up to {EQUAL_MASS_BINS} bins of equal counts, at least {MIN_BIN_ITEMS} items "
            f"each; worst_bin: of those bins holding at least {WORST_MIN_ITEMS} items, off = confidence - accuracy")


def accuracy(answers: pd.DataFrame, truth: pd.DataFrame) -> float:
    """Share of ``answers`` (``item_id, field, label``) equal to ``truth`` (``item_id, field, answer``)."""
    both = answers.astype({"item_id": str, "field": str}).merge(
        truth.astype({"item_id": str, "field": str}), on=["item_id", "field"])
    return float((both["label"].astype(str) == both["answer"].astype(str)).mean()) if len(both) else float("nan")
