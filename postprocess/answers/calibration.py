"""How far to trust an answer: the bound that keeps a confidence from claiming more than a few
judgements can show, and the confidence's calibration on control items (issues 56 and 66). Its measures
(ECE, reliability tables, the worst bin) are postprocess.answers.reliability's, read here too.

Pure: arrays and DataFrames in, arrays and DataFrames out.

- :func:`bounded`: no confidence above what ``n`` unanimous judgements by workers right ``BOUND_ACCURACY``
  of the time could show (so never 1.0 from one or two judgements, whatever the model says).
- :func:`fit`: beta calibration of the confidence on control items (Kull, Silva Filho & Flach 2017, "Beyond
  sigmoids", Electronic Journal of Statistics): ``P(right) = sigmoid(a * ln c + b * -ln(1 - c) + shift)``, ``c``
  the confidence kept within [EDGE, 1 - EDGE] (past 0.9999 a model's confidence says no more: ten unanimous
  labels read 1 - 1e-13, and a wrong control there must not drag the whole curve). Platt scaling is its
  ``a = b`` case; two slopes let the top be pulled down (a crowd's sure answers wrong more often than they say,
  issue 66) while the bottom, often right already, is left as it is. A Gaussian prior ``strength / 2 * ((a - 1)^2
  + (b - 1)^2 + shift^2)`` holds it at the identity (``a = b = 1``, ``shift = 0``: the model's own confidence)
  until the controls outweigh it. The objective (the controls' negative log-likelihood plus the prior) is
  convex and smooth in (a, b, shift), so its minimum is found by a bounded quasi-Newton solver (scipy's
  L-BFGS-B; a and b in [0, MAX_SLOPE], so the calibrated confidence never falls as the model's rises) whatever
  the share of wrong controls and wherever they sit; tests/test_calibration.py checks the optimum against
  scikit-learn's logistic regression and a grid. (Issue 66: the damped Newton steps before swung between slope
  +1 and -1 whenever wrong controls sat near 1.0, and stopped at their 100-step limit near "no change".)
- :func:`calibrator_on_controls`: that fit, its prior's strength chosen by the controls' own cross-validation
  and kept only where that cross-validation says it helps (:func:`cross_fitted`: each control calibrated by a
  fit on the other folds' controls, folds fixed by the item ids). The rule: of the strengths STRENGTHS (a
  quarter of a control's worth to sixteen; below PRIOR_STRENGTH only from WEAK_PRIOR_CONTROLS controls: a
  cross-validation of one or a few controls a fold cannot tell a weak prior from noise, and a weak prior
  lets two wrong controls cap every answer, as in issue 66's campaign whose majority label read 0.089
  "calibrated on 6 controls"), the one whose cross-fitted confidences have the lowest log-loss on the
  controls; the fit moves the confidence only if that log-loss is below the model's own on the same
  controls, else the identity (``moved`` False). The result (a, b, shift, the strength, whether the solver
  converged, both log-losses and both Brier scores) goes to the summary.
  Why log-loss, not the Brier score (the guard before, issue 66, third round): a crowd's sure answers that are
  wrong are what calibration must pull down, and the Brier score barely sees them (an answer said at 0.98 and
  right 93% of the time costs 0.0025 a control over one said at 0.93), while the log-loss does. On synthetic
  crowds of the 10-label image shape (bench/calibration_noise.py, seeds 0-2, 10 control/scored splits each)
  the Brier guard kept the model on 25 of 30 splits while its top bin over-stated by 0.04-0.06, where a
  perfectly calibrated confidence reads at most 0.016-0.024; the log-loss guard moves it on 29. Why a
  strength chosen per file: no one strength suited every shape (4 held RTE; the image shape's top needed the
  controls to outweigh the prior). Over RTE, TEMP and the five held-out shapes at seeds 0-2, 170 splits in
  all, the scored half's ECE fell from 0.0393 to 0.0360 on average (by 0.0033 +- 0.0012), at 15 bins by
  0.0034 +- 0.0013, the worst bin by 0.0025 +- 0.0014 (bins over 0.08: 15 -> 13); one crowd's mean rose (the
  image shape's seed 0, 0.039 -> 0.049: its controls' top over-stated more than its scored half's).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from postprocess.answers.reliability import BINS, RELIABILITY_COLUMNS, ece, reliability, scored

__all__ = [
    "BINS",
    "RELIABILITY_COLUMNS",
    "Calibrator",
    "against",
    "as_reported",
    "bounded",
    "calibrate_answers",
    "calibrator_on_controls",
    "cross_fitted",
    "ece",
    "fit",
    "fold_of",
    "known_answers",
    "log_loss",
    "reliability",
    "scored",
]

BOUND_ACCURACY = 0.95  # the bound credits no worker with more than this accuracy, whatever their record
PRIOR_STRENGTH = 4.0  # fit()'s default pull toward the identity, in controls' worth of log-likelihood
STRENGTHS = (0.25, 1.0, 4.0, 16.0)  # the pulls calibrator_on_controls chooses from by cross-validation
WEAK_PRIOR_CONTROLS = 50  # controls from which strengths below PRIOR_STRENGTH are tried
FOLDS = 5
EDGE = 1e-4  # confidences are read no nearer 0 or 1 than this: |log-odds| at most 9.21
MAX_SLOPE = 5.0
MAX_SHIFT = 15.0
GRADIENT_TOLERANCE = 1e-7  # a fit has converged when its projected gradient is this small per control


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


def _features(confidence: np.ndarray) -> np.ndarray:
    """``ln c`` and ``-ln(1 - c)`` of each confidence kept within [EDGE, 1 - EDGE]: n x 2."""
    p = np.clip(np.asarray(confidence, dtype=float), EDGE, 1 - EDGE)
    return np.column_stack([np.log(p), -np.log1p(-p)])


class Calibrator(NamedTuple):
    """``calibrated = sigmoid(a * ln c + b * -ln(1 - c) + shift)`` (the module), or the confidence itself when it
    has not ``moved`` (the identity: no controls, or cross-validation found the fit no better)."""

    a: float = 1.0
    b: float = 1.0
    shift: float = 0.0
    controls: int = 0
    moved: bool = False
    converged: bool = True
    brier_model: float | None = None  # on the controls, the model's own confidence
    brier_calibrated: float | None = None  # on the controls, cross-fitted
    log_loss_model: float | None = None  # the same two by log-loss, which decides ``moved``
    log_loss_calibrated: float | None = None
    strength: float = PRIOR_STRENGTH  # the prior's strength cross-validation chose

    def apply(self, confidence: np.ndarray | pd.Series) -> np.ndarray:
        conf = np.asarray(confidence, dtype=float)
        if not self.moved:
            return conf.copy()
        return np.asarray(1 / (1 + np.exp(-(_features(conf) @ np.array([self.a, self.b]) + self.shift))))

    def said(self) -> dict[str, Any]:
        """The summary's ``calibration_fit``."""
        return {"controls": self.controls, "moved": self.moved, "a": round(self.a, 4), "b": round(self.b, 4),
                "shift": round(self.shift, 4), "converged": self.converged,
                "strength": self.strength, **{name: None if value is None else round(value, 5) for name, value in (
                    ("log_loss_model_on_controls", self.log_loss_model),
                    ("log_loss_calibrated_cross_fitted", self.log_loss_calibrated),
                    ("brier_model_on_controls", self.brier_model),
                    ("brier_calibrated_cross_fitted", self.brier_calibrated))}}


IDENTITY = np.array([1.0, 1.0, 0.0])  # (a, b, shift)


def objective(w: np.ndarray, x: np.ndarray, y: np.ndarray, strength: float) -> tuple[float, np.ndarray]:
    """The fit's objective at ``w`` = (a, b, shift) and its gradient: the controls' negative log-likelihood under
    ``sigmoid(x @ (a, b) + shift)`` (``x``: :func:`_features`) plus the prior (the module). Convex in ``w``."""
    z = x @ w[:2] + w[2]
    loss = float((np.logaddexp(0.0, z) - y * z).sum() + strength / 2 * ((w - IDENTITY) ** 2).sum())
    residual = 1 / (1 + np.exp(-z)) - y
    return loss, np.append(residual @ x, residual.sum()) + strength * (w - IDENTITY)


def fit(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series,
        strength: float = PRIOR_STRENGTH) -> Calibrator:
    """The calibrator at the objective's minimum (the module), ``moved`` (no cross-validation here:
    :func:`calibrator_on_controls` adds it). No controls: the identity."""
    x, y = _features(np.asarray(confidence)), np.asarray(correct, dtype=float)
    if len(x) == 0:
        return Calibrator()
    from scipy.optimize import minimize  # here: only a run with controls pays its import

    lower, upper = np.array([0.0, 0.0, -MAX_SHIFT]), np.array([MAX_SLOPE, MAX_SLOPE, MAX_SHIFT])
    found = minimize(objective, IDENTITY.copy(), args=(x, y, strength), jac=True, method="L-BFGS-B",
                     bounds=list(zip(lower, upper, strict=True)), options={"maxiter": 1000, "ftol": 1e-15,
                                                                           "gtol": 1e-10})
    w = found.x
    # at the minimum the gradient vanishes but where a bound holds it: the solver's own flag also reports a line
    # search that could not improve on a point already there (controls all right at the cap: a flat objective)
    gradient = objective(w, x, y, strength)[1]
    gradient[((w <= lower) & (gradient > 0)) | ((w >= upper) & (gradient < 0))] = 0.0
    converged = bool(found.success) or float(np.abs(gradient).max()) <= GRADIENT_TOLERANCE * (len(x) + strength)
    return Calibrator(float(w[0]), float(w[1]), float(w[2]), len(x), True, converged, strength=strength)


def calibrator_on_controls(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series,
                           keys: pd.Series) -> tuple[Calibrator, np.ndarray]:
    """(the calibrator, each control's cross-fitted confidence): :func:`fit` on every control at the strength of
    STRENGTHS (from WEAK_PRIOR_CONTROLS controls; with fewer, those of at least PRIOR_STRENGTH) whose
    cross-fitted confidences have the lowest log-loss, kept when that log-loss is below the
    model's own, else the identity (then each control keeps its own confidence). ``keys``: the controls' item
    ids, which fix the folds."""
    conf, right = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    if len(conf) == 0:
        return Calibrator(), conf
    tried = [k for k in STRENGTHS if k >= PRIOR_STRENGTH or len(conf) >= WEAK_PRIOR_CONTROLS]
    crossed = {strength: cross_fitted(conf, right, keys, strength=strength) for strength in tried}
    losses = {strength: log_loss(x, right) for strength, x in crossed.items()}
    strength = min(tried, key=lambda k: losses[k])
    model = log_loss(conf, right)
    found = fit(conf, right, strength)._replace(
        log_loss_model=model, log_loss_calibrated=losses[strength], brier_model=float(((conf - right) ** 2).mean()),
        brier_calibrated=float(((crossed[strength] - right) ** 2).mean()))
    if losses[strength] < model:
        return found, crossed[strength]
    return found._replace(moved=False), conf.copy()


def log_loss(confidence: np.ndarray, correct: np.ndarray) -> float:
    """Mean negative log-likelihood of ``correct`` under ``confidence``, each kept within [EDGE, 1 - EDGE] as the
    fit reads it (a wrong answer said at 1 - 1e-13 costs ln(1 / EDGE), 9.2, not 30)."""
    p = np.clip(np.asarray(confidence, dtype=float), EDGE, 1 - EDGE)
    return float(-np.mean(correct * np.log(p) + (1 - correct) * np.log1p(-p)))


def fold_of(keys: pd.Series, folds: int = FOLDS) -> np.ndarray:
    """Each control's fold (0..folds-1), fixed by its key alone (its item id), not by row order or a seed."""
    hashed = pd.util.hash_pandas_object(keys.astype(str).reset_index(drop=True), index=False).to_numpy()
    return (hashed % np.uint64(folds)).astype(int)


def cross_fitted(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series, keys: pd.Series,
                 folds: int = FOLDS, strength: float = PRIOR_STRENGTH) -> np.ndarray:
    """Each control's calibrated confidence from a calibrator fitted (at ``strength``) on the controls of the other
    folds (``keys``: the controls' item ids, which fix the folds): the honest score of the calibration."""
    conf, right = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    fold = fold_of(keys, folds)
    out = np.empty(len(conf))
    for f in np.unique(fold):
        inside = fold == f
        out[inside] = fit(conf[~inside], right[~inside], strength).apply(conf[inside])
    return out


CHECKED_COLUMNS = ["item_id", "field", "label", "answer", "correct", "model_confidence", "confidence"]


def calibrate_answers(answers: pd.DataFrame, gold: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the answers of ordinary items, their confidence calibrated on the controls; the controls' rows).

    ``answers``: postprocess.answers.aggregation's rows of every item, control items' too; ``gold``: ``item_id, field,
    answer`` of the control items. The calibrator is fitted on every control whose field was answered, and
    applies to every ordinary item (none of which is a control); each control's own calibrated confidence
    (the ``confidence`` of the second frame, beside ``model_confidence``) is cross-fitted; both only where
    cross-validation keeps the fit (:func:`calibrator_on_controls`; else the model's own). A tie is calibrated
    as any answer (its confidence is the skill posterior's: postprocess.answers.aggregation); no calibrated
    confidence rises above what the item's judgements could show. The fit is in the first frame's
    ``attrs["calibration_fit"]`` (:meth:`Calibrator.said`)."""
    known = known_answers(answers, gold)
    pairs = answers[known != None].assign(answer=known[known != None])  # noqa: E711 (elementwise)
    ordinary = answers[~answers["item_id"].isin(set(gold["item_id"]))].reset_index(drop=True)
    if pairs.empty:
        return ordinary, pd.DataFrame(columns=CHECKED_COLUMNS)
    correct = (pairs["label"] == pairs["answer"]).to_numpy(dtype=float)
    model = pairs["confidence"].to_numpy(dtype=float)
    calibrator, crossed = calibrator_on_controls(model, correct, pairs["item_id"])
    checked = pd.DataFrame({"item_id": pairs["item_id"].to_numpy(), "field": pairs["field"].to_numpy(),
                            "label": pairs["label"].to_numpy(), "answer": pairs["answer"].to_numpy(),
                            "correct": correct, "model_confidence": model,
                            "confidence": bounded(crossed, pairs["judgements"].to_numpy(), 2)})
    ordinary["confidence"] = bounded(calibrator.apply(ordinary["confidence"]), ordinary["judgements"].to_numpy(), 2)
    source = f"calibrated on {len(pairs)} control{'' if len(pairs) == 1 else 's'}"
    kept = f"model ({source} did no better in cross-validation)"
    ordinary["confidence_source"] = source if calibrator.moved else kept
    ordinary.attrs["calibration_fit"] = calibrator.said()
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


def against(answers: pd.DataFrame, truth: pd.DataFrame) -> dict[str, object]:
    """:func:`scored` of ``answers`` (``item_id, field, label, confidence``) against ``truth`` (``item_id, field,
    answer``: known or latent answers), over the items and fields both hold."""
    both = answers.astype({"item_id": str, "field": str}).merge(
        truth.astype({"item_id": str, "field": str}), on=["item_id", "field"])
    right = both["label"].astype(str).to_numpy() == both["answer"].astype(str).to_numpy()
    return scored(both["confidence"].astype(float), right)


def as_reported(posterior: pd.DataFrame, n_labels: pd.Series, gold: pd.DataFrame | None = None) -> pd.DataFrame:
    """``posterior`` (postprocess.answers.skill_posterior.label_posterior's rows: ``item_id, field, label, confidence,
    judgements, margin``) with ``confidence`` as answers.csv reports it, so that adaptive overlap stops on the
    number the user reads (issue 56): :func:`bounded` by the item's judgements (``n_labels``: labels seen per
    field, at least 2), then, with ``gold`` (``item_id, answer`` [, ``field``]: control items), calibrated on the
    controls among the rows as :func:`calibrate_answers` does (each control's own confidence cross-fitted).
    ``confidence_source`` says which; controls' rows are kept."""
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
    rows = out.assign(item_id=out["item_id"].astype(str))
    ordinary, checked = calibrate_answers(rows, keys)
    controls = checked.set_index(["item_id", "field"])["confidence"]
    calibrated = ordinary.set_index(["item_id", "field"])[["confidence", "confidence_source"]]
    at = pd.MultiIndex.from_frame(rows[["item_id", "field"]])
    out["confidence"] = calibrated["confidence"].reindex(at).fillna(controls.reindex(at)).fillna(
        out["confidence"].set_axis(at)).to_numpy()
    out["confidence_source"] = calibrated["confidence_source"].reindex(at).fillna(
        f"control: cross-fitted on {len(checked)} controls").to_numpy()
    return out
