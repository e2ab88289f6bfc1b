"""A QuestionForm's AnswerKey applied as MTurk scores a qualification test. Inputs: answers ``assignment_id,
worker_id, field, value`` (``a|b``); key ``field, answer, score``. Output per assignment: ``assignment_id,
worker_id, points, max_points, percent`` (sets compared, text trimmed and folded; max: each field's best)."""

from __future__ import annotations

import pandas as pd

SCORE_COLUMNS = ["assignment_id", "worker_id", "points", "max_points", "percent"]


def _normal(value: object) -> frozenset[str]:
    text = "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)
    return frozenset(part.strip().casefold() for part in text.split("|") if part.strip())


def score_responses(answers: pd.DataFrame, key: pd.DataFrame) -> pd.DataFrame:
    options: dict[str, dict[frozenset[str], float]] = {}
    for field, answer, score in zip(key["field"], key["answer"], key["score"], strict=True):
        options.setdefault(str(field), {})[_normal(answer)] = float(score)
    best = sum(max(scores.values(), default=0.0) for scores in options.values())
    keyed = answers[answers["field"].astype(str).isin(options)]
    points = [options[str(f)].get(_normal(v), 0.0) for f, v in zip(keyed["field"], keyed["value"], strict=True)]
    per = keyed.assign(points=points).groupby(["assignment_id", "worker_id"], sort=False)["points"].sum()
    everyone = answers[["assignment_id", "worker_id"]].drop_duplicates()
    out = everyone.merge(per.reset_index(), on=["assignment_id", "worker_id"], how="left").fillna({"points": 0.0})
    out["max_points"] = best
    out["percent"] = (100.0 * out["points"] / best).round(2) if best else 0.0
    return out[SCORE_COLUMNS].reset_index(drop=True)
