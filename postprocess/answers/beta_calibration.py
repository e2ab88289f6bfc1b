"""The answers' confidence calibrated on control items, arrays in and out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

PRIOR_STRENGTH = 4.0  # fit()'s default pull toward the identity, in controls' worth of log-likelihood
STRENGTHS = (0.25, 1.0, 4.0, 16.0)  # the pulls calibrator_on_controls chooses from by cross-validation
WEAK_PRIOR_CONTROLS = 50  # controls from which strengths below PRIOR_STRENGTH are tried
FOLDS = 5
MIN_EACH_OUTCOME = 3  # right controls and wrong controls, each, before a calibration may move the confidence
EDGE = 1e-4  # confidences are read no nearer 0 or 1 than this: |log-odds| at most 9.21
MAX_SLOPE = 5.0
MIN_SLOPE = 0.25  # the least a: at 0 every low confidence reads one number, the model's ranking there thrown away
MAX_SHIFT = 15.0
MAX_WRONG_SHARE = 0.5
GRADIENT_TOLERANCE = 1e-7  # a fit has converged when its projected gradient is this small per control
NEWTON_STEPS = 50  # projected Newton steps before the fit falls back on scipy's L-BFGS-B
SHARE = ("wrong share",)  # calibrator_on_controls' name of the fit_wrong_share candidate
IDENTITY = np.array([1.0, 1.0, 0.0])  # (a, b, shift); the class shifts' identity is 0


def _features(confidence: np.ndarray) -> np.ndarray:
    """``ln c`` and ``-ln(1 - c)`` of each confidence kept within [EDGE, 1 - EDGE]: n x 2."""
    p = np.clip(np.asarray(confidence, dtype=float), EDGE, 1 - EDGE)
    return np.column_stack([np.log(p), -np.log1p(-p)])


def _design(confidence: np.ndarray, answers: np.ndarray | None, classes: tuple[str, ...]) -> np.ndarray:
    """:func:`_features`, then one column per class of ``classes``: 1 where the answer is that class."""
    if not classes:
        return _features(confidence)
    if answers is None:
        raise ValueError("a calibrator with class shifts needs each confidence's answer")
    given = np.asarray(answers, dtype=object)
    return np.column_stack([_features(confidence), *[(given == c).astype(float) for c in classes]])


class Calibrator(NamedTuple):
    """``sigmoid(a * ln c + b * -ln(1 - c) + shift + class shift)``, or the confidence itself unless ``moved``."""

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
    classes: tuple[str, ...] = ()  # the answered classes with a shift of their own (none: one curve for all)
    class_shifts: tuple[float, ...] = ()
    wrong_share: float = 0.0  # the share of answers wrong whatever their confidence (:func:`fit_wrong_share`)

    def apply(self, confidence: np.ndarray | pd.Series, answers: np.ndarray | pd.Series | None = None) -> np.ndarray:
        """The calibrated confidence; ``answers`` (each confidence's answer) is needed with class shifts."""
        conf = np.asarray(confidence, dtype=float)
        if not self.moved:
            return conf.copy()
        if self.wrong_share > 0:
            return np.asarray((1 - self.wrong_share) * conf)
        w = np.array([self.a, self.b, self.shift, *self.class_shifts])
        return np.asarray(1 / (1 + np.exp(-_linear(w, _design(conf, _array(answers), self.classes)))))

    def said(self) -> dict[str, Any]:
        """The summary's ``calibration_fit``."""
        return {"controls": self.controls, "moved": self.moved, "a": round(self.a, 4), "b": round(self.b, 4),
                "shift": round(self.shift, 4), "class_shift": {c: round(s, 4) for c, s in zip(
                    self.classes, self.class_shifts, strict=True)}, "converged": self.converged,
                "strength": self.strength, "wrong_share": round(self.wrong_share, 4),
                **{name: None if value is None else round(value, 5) for name, value in (
                    ("log_loss_model_on_controls", self.log_loss_model),
                    ("log_loss_calibrated_cross_fitted", self.log_loss_calibrated),
                    ("brier_model_on_controls", self.brier_model),
                    ("brier_calibrated_cross_fitted", self.brier_calibrated))}}


def _array(values: np.ndarray | pd.Series | None) -> np.ndarray | None:
    return None if values is None else np.asarray(values, dtype=object)


def _linear(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``a * x0 + b * x1 + shift + the class columns times their shifts``: w = (a, b, shift, class shifts...)."""
    return np.asarray(x[:, :2] @ w[:2] + w[2] + x[:, 2:] @ w[3:])


def objective(w: np.ndarray, x: np.ndarray, y: np.ndarray, strength: float) -> tuple[float, np.ndarray]:
    """The fit's convex objective at ``w`` and its gradient: the controls' negative log-likelihood plus prior."""
    away = w.copy()  # w minus the identity (a = b = 1, every shift 0), built without np.r_ (~20 calls a fit)
    away[:2] -= 1.0
    z = _linear(w, x)
    loss = float((np.logaddexp(0.0, z) - y * z).sum() + strength / 2 * (away @ away))
    residual = 1 / (1 + np.exp(-z)) - y
    gradient = strength * away
    gradient[:2] += residual @ x[:, :2]
    gradient[2] += residual.sum()
    gradient[3:] += residual @ x[:, 2:]
    return loss, gradient


def fit(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series, strength: float = PRIOR_STRENGTH,
        answers: np.ndarray | pd.Series | None = None) -> Calibrator:
    """The calibrator at the objective's minimum, a shift per class with ``answers``; no controls: identity."""
    given = _array(answers)
    classes = () if given is None or len(set(given)) < 2 else tuple(sorted(set(given)))
    x, y = _design(np.asarray(confidence), given, classes), np.asarray(correct, dtype=float)
    if len(x) == 0:
        return Calibrator()
    shifts = np.full(1 + len(classes), MAX_SHIFT)
    lower, upper = np.r_[MIN_SLOPE, 0.0, -shifts], np.r_[MAX_SLOPE, MAX_SLOPE, shifts]
    start = np.r_[IDENTITY, np.zeros(len(classes))]
    w, converged = _newton(start, x, y, strength, lower, upper)
    if not converged:  # (a flat or nearly separable objective without the prior): the quasi-Newton solver
        from scipy.optimize import minimize  # here: only such a fit pays its import

        found = minimize(objective, start, args=(x, y, strength), jac=True, method="L-BFGS-B",
                         bounds=list(zip(lower, upper, strict=True)), options={"maxiter": 1000, "ftol": 1e-15,
                                                                               "gtol": 1e-10})
        w = found.x
        # the solver's own flag also reports a line search that could not improve on a point already there
        converged = bool(found.success) or _settled(w, x, y, strength, lower, upper)
    return Calibrator(float(w[0]), float(w[1]), float(w[2]), len(x), True, converged, strength=strength,
                      classes=classes, class_shifts=tuple(float(s) for s in w[3:]))


def fit_wrong_share(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series) -> Calibrator:
    """The calibrator ``(1 - e) * c``, ``e`` in [0, MAX_WRONG_SHARE] at the controls' maximum likelihood."""
    p = np.clip(np.asarray(confidence, dtype=float), EDGE, 1 - EDGE)
    right = np.asarray(correct, dtype=float)
    if len(p) == 0:
        return Calibrator()

    def slope(e: float) -> float:  # d/de of the negative log-likelihood
        return float(right.sum() / (1 - e) - ((1 - right) * p / (1 - p + e * p)).sum())

    low, high = 0.0, MAX_WRONG_SHARE
    if slope(low) >= 0:  # no share of wrong answers: the model's own confidence
        return Calibrator(controls=len(p))
    if slope(high) <= 0:
        return Calibrator(controls=len(p), moved=True, wrong_share=high)
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if slope(middle) < 0 else (low, middle)
    return Calibrator(controls=len(p), moved=True, wrong_share=(low + high) / 2)


def _settled(w: np.ndarray, x: np.ndarray, y: np.ndarray, strength: float, lower: np.ndarray,
             upper: np.ndarray) -> bool:
    """The minimum's gradient vanishes but where a bound holds it: projected, within GRADIENT_TOLERANCE a control."""
    gradient = objective(w, x, y, strength)[1]
    gradient[((w <= lower) & (gradient > 0)) | ((w >= upper) & (gradient < 0))] = 0.0
    return float(np.abs(gradient).max()) <= GRADIENT_TOLERANCE * (len(x) + strength)


def _newton(start: np.ndarray, x: np.ndarray, y: np.ndarray, strength: float, lower: np.ndarray,
            upper: np.ndarray) -> tuple[np.ndarray, bool]:
    """(w, converged): the objective's minimum within the bounds by projected Newton steps (Bertsekas 1982)."""
    columns = np.column_stack([x[:, :2], np.ones(len(x)), x[:, 2:]])  # in w's order
    w = np.clip(start, lower, upper)
    loss, gradient = objective(w, x, y, strength)
    for _ in range(NEWTON_STEPS):
        held = ((w <= lower) & (gradient > 0)) | ((w >= upper) & (gradient < 0))
        if float(np.abs(np.where(held, 0.0, gradient)).max()) <= GRADIENT_TOLERANCE * (len(x) + strength):
            return w, True  # as _settled() reads it
        p = 1 / (1 + np.exp(-(columns @ w)))
        free = columns[:, ~held]
        hessian = (free * (p * (1 - p))[:, None]).T @ free + strength * np.eye(free.shape[1])
        step = np.zeros(len(w))
        try:
            step[~held] = -np.linalg.solve(hessian, gradient[~held])
        except np.linalg.LinAlgError:
            return w, False
        for _ in range(40):  # halvings of the step
            trial = np.clip(w + step, lower, upper)
            trial_loss, trial_gradient = objective(trial, x, y, strength)
            if trial_loss <= loss + 1e-4 * float(gradient @ (trial - w)):
                break
            step /= 2
        else:
            return w, False
        w, loss, gradient = trial, trial_loss, trial_gradient
    return w, _settled(w, x, y, strength, lower, upper)


def calibrator_on_controls(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series, keys: pd.Series,
                           answers: np.ndarray | pd.Series | None = None) -> tuple[Calibrator, np.ndarray]:
    """(the calibrator, each control's cross-fitted confidence): the candidate with the lowest cross-fitted log-loss."""
    conf, right, given = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float), _array(answers)
    if len(conf) == 0:
        return Calibrator(), conf
    strengths = [k for k in STRENGTHS if k >= PRIOR_STRENGTH or len(conf) >= WEAK_PRIOR_CONTROLS]
    shapes = [None] + ([given] if given is not None and len(set(given)) > 1 else [])
    wrong = int((right == 0).sum())
    curves = min(wrong, len(right) - wrong) >= MIN_EACH_OUTCOME
    fold = control_folds(keys)  # hashed once for every candidate (a hash of the keys cost each a fifth of its CPU)
    crossed: dict[tuple[Any, ...], np.ndarray] = {
        (k, i): cross_fitted(conf, right, keys, strength=k, answers=by, fold=fold) for i, by in enumerate(shapes)
        for k in strengths if curves}
    crossed[SHARE] = cross_fitted(conf, right, keys, wrong_share=True, fold=fold)
    losses = {choice: log_loss(x, right) for choice, x in crossed.items()}
    best = min(crossed, key=lambda choice: losses[choice])  # the first of equals: one curve, the weaker pull
    model = log_loss(conf, right)
    chosen = fit_wrong_share(conf, right) if best == SHARE else fit(conf, right, best[0], shapes[best[1]])
    found = chosen._replace(
        log_loss_model=model, log_loss_calibrated=losses[best], brier_model=float(((conf - right) ** 2).mean()),
        brier_calibrated=float(((crossed[best] - right) ** 2).mean()))
    if losses[best] < model:
        return found, crossed[best]
    return found._replace(moved=False), conf.copy()


def nested_cross_fitted(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series, keys: pd.Series,
                        answers: np.ndarray | pd.Series | None = None) -> np.ndarray:
    """Each control's confidence from the whole rule run on the other folds' controls: the rule's honest score."""
    conf, right, given = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float), _array(answers)
    fold, out = control_folds(keys), conf.copy()
    for f in np.unique(fold):
        inside = fold == f
        found, _ = calibrator_on_controls(conf[~inside], right[~inside], keys[~inside],
                                          None if given is None else given[~inside])
        out[inside] = found.apply(conf[inside], None if given is None else given[inside])
    return out


def log_loss(confidence: np.ndarray, correct: np.ndarray) -> float:
    """Mean negative log-likelihood of ``correct`` under ``confidence``, kept within [EDGE, 1 - EDGE]."""
    p = np.clip(np.asarray(confidence, dtype=float), EDGE, 1 - EDGE)
    return float(-np.mean(correct * np.log(p) + (1 - correct) * np.log1p(-p)))


def fold_of(keys: pd.Series, folds: int = FOLDS) -> np.ndarray:
    """Each control's fold (0..folds-1), fixed by its key alone (its item id), not by row order or a seed."""
    hashed = pd.util.hash_pandas_object(keys.astype(str).reset_index(drop=True), index=False).to_numpy()
    return (hashed % np.uint64(folds)).astype(int)


def control_folds(keys: pd.Series, folds: int = FOLDS) -> np.ndarray:
    """Each control's cross-validation fold, by its item id's salted hash, dealt round."""
    salted = pd.util.hash_pandas_object(("cv:" + keys.astype(str)).reset_index(drop=True), index=False).to_numpy()
    out = np.empty(len(salted), dtype=int)
    out[np.argsort(salted, kind="stable")] = np.arange(len(salted)) % folds
    return out


def cross_fitted(confidence: np.ndarray | pd.Series, correct: np.ndarray | pd.Series, keys: pd.Series,
                 strength: float = PRIOR_STRENGTH, answers: np.ndarray | pd.Series | None = None,
                 wrong_share: bool = False, fold: np.ndarray | None = None) -> np.ndarray:
    """Each control's confidence from a calibrator fitted on the other folds' controls (``keys``: their item ids;
    ``fold``: ``control_folds(keys)`` when the caller has it)."""
    conf, right, given = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float), _array(answers)
    fold = control_folds(keys) if fold is None else fold
    if wrong_share:
        return _crossed(conf, right, fold, lambda fitted: fit_wrong_share(conf[fitted], right[fitted]))
    return _crossed(conf, right, fold,
                    lambda fitted: fit(conf[fitted], right[fitted], strength, None if given is None else given[fitted]),
                    given)


def _crossed(conf: np.ndarray, right: np.ndarray, fold: np.ndarray, fitted_on: Callable[[np.ndarray], Calibrator],
             given: np.ndarray | None = None) -> np.ndarray:
    """Each control's confidence by the calibrator ``fitted_on`` the other folds' controls."""
    out = np.empty(len(conf))
    for f in np.unique(fold):
        inside = fold == f
        out[inside] = fitted_on(~inside).apply(conf[inside], None if given is None else given[inside])
    return out
