"""Does an answer's confidence mean what it says? Its measure (expected calibration error and the
reliability table), the bound that keeps a confidence from claiming more than a few judgements can
show, and its calibration on control items (issue 56).

Pure: arrays and DataFrames in, arrays and DataFrames out.

- :func:`ece` and :func:`reliability`: the answers' confidence (each in [0, 1]) against whether each
  answer is right, in ``bins`` equal-width bins of [0, 1] (6 by default: [0, 1/6), [1/6, 2/6), ...,
  [5/6, 1], the last one closed). ECE = sum over bins of (items in the bin / all items) x |mean
  confidence in the bin - share right in the bin|; empty bins count 0.
- :func:`bounded`: no confidence above what ``n`` unanimous judgements by workers right ``BOUND_ACCURACY``
  of the time could show (so never 1.0 from one or two judgements, whatever the model says).
- :class:`Calibrator`: Platt scaling of the confidence (a logistic fit of "the answer is right" on the
  confidence's log-odds) on control items, with a prior that holds it at the identity (the model's own
  confidence) until the controls outweigh it: with a few controls it barely moves, with hundreds it is
  the controls' word. :func:`cross_fitted` gives each control the confidence a calibrator fitted on the
  *other* controls' folds gives it, so that no control item calibrates itself when the calibration is
  scored on the controls.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

BINS = 6
BOUND_ACCURACY = 0.95  # the bound credits no worker with more than this accuracy, whatever their record
PRIOR_STRENGTH = 4.0  # the calibrator's pull toward the identity, in controls' worth of log-likelihood
FOLDS = 5
EDGE = 1e-9  # confidences are kept this far from 0 and 1 before their log-odds are taken
RELIABILITY_COLUMNS = ["bin", "items", "confidence", "accuracy"]


def _bin_of(confidence: np.ndarray, bins: int) -> np.ndarray:
    return np.minimum(np.floor(confidence * bins).astype(int), bins - 1)


def ece(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series, bins: int = BINS) -> float:
    """Expected calibration error over ``bins`` equal-width bins of [0, 1] (see the module); NaN without items."""
    conf, right = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    if len(conf) == 0:
        return float("nan")
    which = _bin_of(conf, bins)
    total = 0.0
    for b in np.unique(which):
        inside = which == b
        total += inside.sum() / len(conf) * abs(conf[inside].mean() - right[inside].mean())
    return float(total)


def reliability(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series,
                bins: int = BINS) -> pd.DataFrame:
    """One row per non-empty bin: ``bin`` (e.g. ``0.83-1.00``), ``items``, mean ``confidence``, ``accuracy``
    (the share right), lowest bin first."""
    conf, right = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    which = _bin_of(conf, bins)
    rows = [{"bin": f"{b / bins:.2f}-{(b + 1) / bins:.2f}", "items": int((which == b).sum()),
             "confidence": float(conf[which == b].mean()), "accuracy": float(right[which == b].mean())}
            for b in np.unique(which)]
    return pd.DataFrame(rows, columns=RELIABILITY_COLUMNS)


def scored(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series, bins: int = BINS) -> dict[str, object]:
    """What a person reads: items, accuracy, mean confidence, ECE (its binning said) and the reliability rows."""
    conf, right = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    table = reliability(conf, right, bins).round({"confidence": 4, "accuracy": 4})
    return {"items": len(conf), "accuracy": round(float(right.mean()), 4) if len(conf) else None,
            "mean_confidence": round(float(conf.mean()), 4) if len(conf) else None,
            "ece": round(ece(conf, right, bins), 4) if len(conf) else None,
            "ece_bins": f"{bins} equal-width bins of [0, 1]", "reliability": table.to_dict("records")}


def bounded(confidence: np.ndarray, judgements: np.ndarray, n_labels: int) -> np.ndarray:
    """``confidence`` no higher than the probability of the answer after ``judgements`` unanimous labels by
    workers right BOUND_ACCURACY of the time (slips spread evenly over the ``n_labels`` - 1 others, the labels
    equally likely beforehand): 0.95 from one label, 0.9972 from two of two labels (binary)."""
    n = np.asarray(judgements, dtype=float)
    others = max(n_labels - 1, 1)
    slip = (1 - BOUND_ACCURACY) / others
    # log-odds of the answer against one other label, times the other labels' number, kept finite
    odds = np.exp(np.minimum(n * (np.log(BOUND_ACCURACY) - np.log(slip)), 700.0))
    return np.minimum(np.asarray(confidence, dtype=float), odds / (odds + others))


def _log_odds(confidence: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(confidence, dtype=float), EDGE, 1 - EDGE)
    return np.log(p) - np.log1p(-p)


class Calibrator(NamedTuple):
    """``calibrated = 1 / (1 + exp(-(slope * logit(confidence) + shift)))``; the identity is (1, 0)."""

    slope: float = 1.0
    shift: float = 0.0
    controls: int = 0

    def apply(self, confidence: np.ndarray | pd.Series) -> np.ndarray:
        return np.asarray(1 / (1 + np.exp(-(self.slope * _log_odds(np.asarray(confidence)) + self.shift))))


def fit(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series,
        strength: float = PRIOR_STRENGTH) -> Calibrator:
    """Platt scaling by Newton's method with a Gaussian prior centred on the identity: the penalty
    ``strength / 2 * ((slope - 1)^2 + shift^2)`` on the controls' log-likelihood. No controls: the identity."""
    x, y = _log_odds(np.asarray(confidence)), np.asarray(correct, dtype=float)
    if len(x) == 0:
        return Calibrator()
    w = np.array([1.0, 0.0])
    design = np.column_stack([x, np.ones_like(x)])
    for _ in range(100):
        p = 1 / (1 + np.exp(-(design @ w)))
        gradient = design.T @ (p - y) + strength * (w - [1.0, 0.0])
        hessian = (design * (p * (1 - p))[:, None]).T @ design + strength * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        step *= min(1.0, 2.0 / np.abs(step).max(initial=1e-300))  # damped: near-separable controls stay finite
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return Calibrator(float(w[0]), float(w[1]), len(x))


def fold_of(keys: pd.Series, folds: int = FOLDS) -> np.ndarray:
    """Each control's fold (0..folds-1), fixed by its key alone (its item id), not by row order or a seed."""
    hashed = pd.util.hash_pandas_object(keys.astype(str).reset_index(drop=True), index=False).to_numpy()
    return (hashed % np.uint64(folds)).astype(int)


def cross_fitted(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series, keys: pd.Series,
                 folds: int = FOLDS) -> np.ndarray:
    """Each control's calibrated confidence from a calibrator fitted on the controls of the other folds
    (``keys``: the controls' item ids, which fix the folds): the honest score of the calibration."""
    conf, right = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    fold = fold_of(keys, folds)
    out = np.empty(len(conf))
    for f in np.unique(fold):
        inside = fold == f
        out[inside] = fit(conf[~inside], right[~inside]).apply(conf[inside])
    return out


CHECKED_COLUMNS = ["item_id", "field", "label", "answer", "correct", "model_confidence", "confidence"]


def calibrate_answers(answers: pd.DataFrame, gold: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the answers of ordinary items, their confidence calibrated on the controls; the controls' rows).

    ``answers``: postprocess.answers.aggregation's rows of every item, control items' too; ``gold``: ``item_id, field,
    answer`` of the control items. The calibrator is fitted on every control whose field was answered, and
    applies to every ordinary item (none of which is a control); each control's own calibrated confidence
    (the ``confidence`` of the second frame, beside ``model_confidence``) is cross-fitted. A tie keeps its
    tied share; no calibrated confidence rises above what the item's judgements could show."""
    known = known_answers(answers, gold)
    pairs = answers[known != None].assign(answer=known[known != None])  # noqa: E711 (elementwise)
    ordinary = answers[~answers["item_id"].isin(set(gold["item_id"]))].reset_index(drop=True)
    if pairs.empty:
        return ordinary, pd.DataFrame(columns=CHECKED_COLUMNS)
    correct = (pairs["label"] == pairs["answer"]).to_numpy(dtype=float)
    model = pairs["confidence"].to_numpy(dtype=float)
    calibrator = fit(model, correct)
    crossed = bounded(cross_fitted(model, correct, pairs["item_id"]), pairs["judgements"].to_numpy(), 2)
    checked = pd.DataFrame({"item_id": pairs["item_id"].to_numpy(), "field": pairs["field"].to_numpy(),
                            "label": pairs["label"].to_numpy(), "answer": pairs["answer"].to_numpy(),
                            "correct": correct, "model_confidence": model, "confidence": crossed})
    untied = ordinary["note"] != "tie"
    calibrated = bounded(calibrator.apply(ordinary["confidence"]), ordinary["judgements"].to_numpy(), 2)
    ordinary["confidence"] = np.where(untied, calibrated, ordinary["confidence"])
    source = f"calibrated on {len(pairs)} control{'' if len(pairs) == 1 else 's'}"
    ordinary["confidence_source"] = np.where(untied, source, "model")
    return ordinary, checked


def known_answers(rows: pd.DataFrame, gold: pd.DataFrame) -> np.ndarray:
    """Each row's known answer (``gold``: ``item_id, field, answer``, each key once), None where it has none:
    a left merge on the keys, row for row, without its join (a dict of the keys; the merge cost ~2 ms a call,
    paid at every aggregation with controls, each round of a replay)."""
    held = gold[gold["answer"].notna()]
    where = dict(zip(zip(held["item_id"].to_numpy(), held["field"].to_numpy(), strict=True), held["answer"].to_numpy(),
                     strict=True))
    return np.array([where.get(key) for key in zip(rows["item_id"].to_numpy(), rows["field"].to_numpy(), strict=True)],
                    dtype=object)


def against(answers: pd.DataFrame, truth: pd.DataFrame, bins: int = BINS) -> dict[str, object]:
    """:func:`scored` of ``answers`` (``item_id, field, label, confidence``) against ``truth`` (``item_id, field,
    answer``: known or latent answers), over the items and fields both hold."""
    both = answers.astype({"item_id": str, "field": str}).merge(
        truth.astype({"item_id": str, "field": str}), on=["item_id", "field"])
    right = both["label"].astype(str).to_numpy() == both["answer"].astype(str).to_numpy()
    return scored(both["confidence"].astype(float), right, bins)


def as_reported(posterior: pd.DataFrame, n_labels: pd.Series, gold: pd.DataFrame | None = None) -> pd.DataFrame:
    """``posterior`` (postprocess.answers.skill_posterior.label_posterior's rows: ``item_id, field, label, confidence,
    judgements, margin``) with ``confidence`` as answers.csv reports it, so that adaptive overlap stops on the
    number the user reads (issue 56): :func:`bounded` by the item's judgements (``n_labels``: labels seen per
    field, at least 2), then, with ``gold`` (``item_id, answer`` [, ``field``]: control items), calibrated on the
    controls among the rows as :func:`calibrate_answers` does (each control's own confidence cross-fitted;
    a tie, ``margin`` 0, keeps its tied share). ``confidence_source`` says which; controls' rows are kept."""
    out = posterior.reset_index(drop=True).copy()
    if out.empty:
        return out.assign(confidence_source=pd.Series(dtype=str))
    labels = out["field"].map(n_labels).fillna(2).clip(lower=2).astype(int).to_numpy()
    model = out["confidence"].to_numpy(dtype=float).copy()
    for k in np.unique(labels):  # bounded() takes one label count: a field's
        model[labels == k] = bounded(model[labels == k], out["judgements"].to_numpy()[labels == k], int(k))
    out["confidence"], out["confidence_source"] = model, "model"
    if gold is None or gold.empty:
        return out
    keys = pd.DataFrame({"item_id": gold["item_id"].astype(str).str.strip(),
                         "field": gold["field"].astype(str).str.strip() if "field" in gold else "label",
                         "answer": gold["answer"].astype(str).str.strip()}).drop_duplicates(["item_id", "field"])
    rows = out.assign(item_id=out["item_id"].astype(str), note=np.where(out["margin"] <= 1e-12, "tie", ""))
    ordinary, checked = calibrate_answers(rows, keys)
    controls = checked.set_index(["item_id", "field"])["confidence"]
    calibrated = ordinary.set_index(["item_id", "field"])[["confidence", "confidence_source"]]
    at = pd.MultiIndex.from_frame(rows[["item_id", "field"]])
    out["confidence"] = calibrated["confidence"].reindex(at).fillna(controls.reindex(at)).fillna(
        out["confidence"].set_axis(at)).to_numpy()
    out["confidence_source"] = calibrated["confidence_source"].reindex(at).fillna(
        f"control: cross-fitted on {len(checked)} controls").to_numpy()
    return out
