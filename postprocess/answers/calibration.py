"""How far to trust an answer (pure): :func:`bounded` and :func:`calibrate_answers`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from postprocess.answers.beta_calibration import (
    WEAK_PRIOR_CONTROLS,
    calibrator_on_controls,
    log_loss,
    nested_cross_fitted,
)
from postprocess.answers.reliability import scored

__all__ = ["FAVOURS", "against", "as_reported", "bounded", "calibrate_answers", "calibrator_on_controls", "coherent",
           "held_at_half", "known_answers", "log_loss", "scored", "shrunk", "still_likeliest"]

SHRINK_CONTROLS = WEAK_PRIOR_CONTROLS  # controls at which a calibration counts as much as the model's own
BOUND_ACCURACY = 0.95  # the bound credits no worker with more than this accuracy, whatever their record


def bounded(confidence: np.ndarray, judgements: np.ndarray, n_labels: int) -> np.ndarray:
    """``confidence`` no higher than after ``judgements`` unanimous labels at BOUND_ACCURACY (one label: 0.95)."""
    n = np.asarray(judgements, dtype=float)
    others = max(n_labels - 1, 1)
    slip = (1 - BOUND_ACCURACY) / others
    # log-odds of the answer against one other label, times the other labels' number, kept finite
    odds = np.exp(np.minimum(n * (np.log(BOUND_ACCURACY) - np.log(slip)), 700.0))
    return np.minimum(np.asarray(confidence, dtype=float), odds / (odds + others))


def coherent(confidence: np.ndarray, top: np.ndarray) -> np.ndarray:
    """The answer's confidence made its likeliest: where another label's is higher, the two share their mean."""
    conf, best = np.asarray(confidence, dtype=float), np.asarray(top, dtype=float)
    return np.where(conf < best, np.round((conf + best) / 2, 12), conf)  # rounded: 0.5 on two labels, not 0.4999...


CHECKED_COLUMNS = ["item_id", "field", "label", "answer", "correct", "model_confidence", "confidence"]


def calibrate_answers(answers: pd.DataFrame, gold: pd.DataFrame, nested: bool = True,
                      ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(ordinary items' answers calibrated on ``gold`` ``item_id, field, answer``; the controls' rows)."""
    known = known_answers(answers, gold)
    pairs = answers[known != None].assign(answer=known[known != None])  # noqa: E711 (elementwise)
    ordinary = answers[~answers["item_id"].isin(set(gold["item_id"]))].reset_index(drop=True)
    if pairs.empty:
        return ordinary, pd.DataFrame(columns=CHECKED_COLUMNS)
    correct = (pairs["label"] == pairs["answer"]).to_numpy(dtype=float)
    model = pairs["confidence"].to_numpy(dtype=float)
    several = answers["field"].nunique() > 1
    calibrator, crossed = calibrator_on_controls(model, correct, pairs["item_id"], _classes(pairs, several))
    if nested:
        crossed = nested_cross_fitted(model, correct, pairs["item_id"], _classes(pairs, several))
    said = shrunk(crossed, model, len(pairs))
    pin = held_at_half(said, model, correct)
    checked = pd.DataFrame({"item_id": pairs["item_id"].to_numpy(), "field": pairs["field"].to_numpy(),
                            "label": pairs["label"].to_numpy(), "answer": pairs["answer"].to_numpy(),
                            "correct": correct, "model_confidence": model,
                            "confidence": bounded(still_likeliest(said, model) if pin else said,
                                                  pairs["judgements"].to_numpy(), 2)})
    own = ordinary["confidence"].to_numpy(dtype=float)
    calibrated = shrunk(calibrator.apply(own, _classes(ordinary, several)), own, len(pairs))
    ordinary["confidence"] = bounded(still_likeliest(calibrated, own) if pin else calibrated,
                                     ordinary["judgements"].to_numpy(), 2)
    if not pin:
        below = (ordinary["confidence"] < 0.5) & (own >= 0.5)
        said = ordinary["note"].fillna("").astype(str) if "note" in ordinary else pd.Series("", ordinary.index)
        ordinary["note"] = said.where(~below, (said + "; ").str.lstrip("; ") + FAVOURS + favoured(ordinary, answers))
    source = f"calibrated on {len(pairs)} control{'' if len(pairs) == 1 else 's'}"
    kept = f"model ({source} did no better in cross-validation)"
    ordinary["confidence_source"] = source if calibrator.moved else kept
    ordinary.attrs["calibration_fit"] = {**calibrator.said(), "held_at_half": pin}
    return ordinary, checked


FAVOURS = "below 0.5 once calibrated: the evidence favours "  # then the label (favoured)


def favoured(rows: pd.DataFrame, answers: pd.DataFrame) -> pd.Series:
    """Per row, the label the evidence favours: the field's other where its ``answers`` give two, else any."""
    seen = {field: set(labels) for field, labels in answers.groupby("field")["label"].unique().items()}
    return pd.Series([next(iter(seen[f] - {a})) if len(seen[f]) == 2 and a in seen[f] else "another label"
                      for f, a in zip(rows["field"], rows["label"], strict=True)], index=rows.index, dtype=object)


def held_at_half(calibrated: np.ndarray, model: np.ndarray, correct: np.ndarray) -> bool:
    """Whether answers read below 0.5 are held at 0.5, by the controls' held-out log-loss."""
    return log_loss(still_likeliest(calibrated, model), correct) <= log_loss(calibrated, correct)


def shrunk(calibrated: np.ndarray, model: np.ndarray, controls: int) -> np.ndarray:
    """``calibrated`` pulled toward the ``model``'s confidence by ``controls / (controls + SHRINK_CONTROLS)``."""
    weight = controls / (controls + SHRINK_CONTROLS)
    cal, own = np.asarray(calibrated, dtype=float), np.asarray(model, dtype=float)
    return np.asarray(own + weight * (cal - own))


def still_likeliest(calibrated: np.ndarray, model: np.ndarray) -> np.ndarray:
    """``calibrated``, no lower than 0.5 where the ``model`` confidence was at least 0.5."""
    cal, before = np.asarray(calibrated, dtype=float), np.asarray(model, dtype=float)
    return np.where(before >= 0.5, np.maximum(cal, 0.5), cal)


def _classes(rows: pd.DataFrame, several_fields: bool) -> np.ndarray:
    """Each row's class as the class shifts read it: its label (``field=label`` with several fields)."""
    labels = rows["label"].astype(str).to_numpy(dtype=object)
    return rows["field"].astype(str).to_numpy(dtype=object) + "=" + labels if several_fields else labels


def known_answers(rows: pd.DataFrame, gold: pd.DataFrame) -> np.ndarray:
    """Each row's known answer (``gold``: ``item_id, field, answer``), None where it has none."""
    held = gold[gold["answer"].notna()]
    where = dict(zip(zip(held["item_id"].to_numpy(), held["field"].to_numpy(), strict=True), held["answer"].to_numpy(),
                     strict=True))
    return np.array([where.get(key) for key in zip(rows["item_id"].to_numpy(), rows["field"].to_numpy(), strict=True)],
                    dtype=object)


def against(answers: pd.DataFrame, truth: pd.DataFrame) -> dict[str, object]:
    """:func:`scored` of ``answers`` (``item_id, field, label, confidence``) against ``truth``."""
    both = answers.astype({"item_id": str, "field": str}).merge(
        truth.astype({"item_id": str, "field": str}), on=["item_id", "field"])
    right = both["label"].astype(str).to_numpy() == both["answer"].astype(str).to_numpy()
    return scored(both["confidence"].astype(float), right)


def as_reported(posterior: pd.DataFrame, n_labels: pd.Series, gold: pd.DataFrame | None = None) -> pd.DataFrame:
    """``posterior`` with ``confidence`` as answers.csv reports it (``confidence_source`` says how)."""
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
    ordinary, checked = calibrate_answers(rows, keys, nested=False)  # each round of a replay: the cheap one
    at = pd.MultiIndex.from_frame(rows[["item_id", "field"]])
    # float: with no control answered, checked's columns are untyped and would not fill a float column
    control = checked.set_index(["item_id", "field"])["confidence"].astype(float).reindex(at).to_numpy()
    calibrated = ordinary.set_index(["item_id", "field"])[["confidence", "confidence_source"]].reindex(at)
    ordinary_row, control_row = calibrated["confidence"].notna().to_numpy(), ~np.isnan(control)
    out["confidence"] = np.where(ordinary_row, calibrated["confidence"].to_numpy(dtype=float),
                                 np.where(control_row, control, model))
    # a row of a control's item on a field the gold does not hold is neither: the model's
    out["confidence_source"] = np.where(ordinary_row, calibrated["confidence_source"].to_numpy(dtype=object),
                                        np.where(control_row, f"control: cross-fitted on {len(checked)} controls",
                                                 "model"))
    return out
