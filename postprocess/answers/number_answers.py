"""Answers to number fields and sliders: per item the median with a distribution-free interval, and each worker's bias.
Input: ``item_id, worker_id, field, value`` (``value`` a float; a repeat counts once, the last). Output,
``number_answers(frame) -> NumberAnswers(answers, workers)``: ``answers``: ``item_id, field, label, low, high, coverage,
method, judgements``; ``workers``: ``worker_id, field, bias, offset, answers``."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

LEVEL = 0.95
METHOD = "median"
ANSWER_COLUMNS = ["item_id", "field", "label", "low", "high", "coverage", "method", "judgements"]
WORKER_COLUMNS = ["worker_id", "field", "bias", "offset", "answers"]


class NumberAnswers(NamedTuple):
    answers: pd.DataFrame
    workers: pd.DataFrame


def median_interval(values: np.ndarray, level: float = LEVEL) -> tuple[float, float, float]:
    """(low, high, coverage) of the order-statistic interval for the median of ``values``."""
    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    k = 1
    while k + 1 <= (n + 1) // 2 and 1 - 2 * _below(k + 1, n) >= level:
        k += 1  # x(k+1) .. x(n-k) still covers at least `level`
    return float(x[k - 1]), float(x[n - k]), 1 - 2 * _below(k, n)


def _below(k: int, n: int) -> float:
    """P(Bin(n, 1/2) < k), exactly (integers: no scipy for `hitflow aggregate` to load)."""
    return sum(math.comb(n, i) for i in range(k)) / 2**n


def shown(value: float) -> str:
    """A number as answers.csv writes it: an integer without ".0", else to 6 decimal places at most."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:.6f}".rstrip("0")


def number_answers(frame: pd.DataFrame) -> NumberAnswers:
    """See the module."""
    given = frame.drop_duplicates(["item_id", "worker_id", "field"], keep="last")
    rows = []
    for (field, item), group in given.groupby(["field", "item_id"], sort=True):
        low, high, coverage = median_interval(group["value"].to_numpy())
        rows.append((item, field, shown(float(np.median(group["value"]))), shown(low), shown(high), round(coverage, 4),
                     METHOD, len(group)))
    answers = pd.DataFrame(rows, columns=ANSWER_COLUMNS)
    return NumberAnswers(answers, worker_bias(given))


def worker_bias(given: pd.DataFrame) -> pd.DataFrame:
    """Each worker's ``bias``, ``offset`` and ``answers`` per field (see the module)."""
    parts = []
    for field, own in given.groupby("field", sort=True):
        offsets = _offsets(own)
        if offsets.empty:
            continue
        per = offsets.groupby("worker_id")["offset"].agg(["mean", "count"])
        weight = _shrinkage(offsets, per)
        parts.append(pd.DataFrame({"worker_id": per.index, "field": field,
                                   "bias": per["mean"] * per["count"] / (per["count"] + weight),
                                   "offset": per["mean"], "answers": per["count"]}))
    if not parts:
        return pd.DataFrame(columns=WORKER_COLUMNS)
    return pd.concat(parts, ignore_index=True)[WORKER_COLUMNS]


def _offsets(own: pd.DataFrame) -> pd.DataFrame:
    """Each answer minus the median of the other answers to its item (items answered more than once)."""
    out = []
    for _, group in own.groupby("item_id", sort=False):
        if len(group) < 2:
            continue
        values = group["value"].to_numpy(dtype=float)
        for i, worker in enumerate(group["worker_id"]):
            out.append((worker, values[i] - float(np.median(np.delete(values, i)))))
    return pd.DataFrame(out, columns=["worker_id", "offset"])


def _shrinkage(offsets: pd.DataFrame, per: pd.DataFrame) -> float:
    """s2 / t2: how many answers of no offset a worker's own are weighed against (inf: no bias shows)."""
    within = offsets["offset"] - offsets["worker_id"].map(per["mean"])
    dof = len(offsets) - len(per)
    s2 = float((within**2).sum() / dof) if dof > 0 else float(offsets["offset"].var(ddof=1) or 0.0)
    if len(per) < 2:
        return float("inf") if s2 > 0 else 0.0
    t2 = float(per["mean"].var(ddof=1)) - s2 * float((1 / per["count"]).mean())
    if t2 <= 0:
        return float("inf") if s2 > 0 else 0.0
    return s2 / t2


def joined(answers: pd.DataFrame | None, workers: pd.DataFrame | None, numbers: NumberAnswers | None
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The choice answers and workers joined with the number fields' (``low, high, coverage``; ``bias_F``...)."""
    if numbers is None or numbers.answers.empty:
        return _or_empty(answers), _or_empty(workers)
    parts = [a for a in (answers, numbers.answers) if a is not None and not a.empty]
    both = pd.concat(parts, ignore_index=True)
    base = answers.columns if answers is not None and not answers.empty else ANSWER_COLUMNS
    order = [c for c in base if c not in ("confidence", "low", "high", "coverage")]
    at = order.index("label") + 1
    columns = [*order[:at], "confidence", "low", "high", "coverage", *order[at:]]
    columns += [c for c in both.columns if c not in columns]
    both = both.reindex(columns=columns)
    both.attrs.update(answers.attrs if answers is not None else {})
    wide = numbers.workers.pivot(index="worker_id", columns="field", values=["bias", "offset", "answers"])
    wide.columns = [f"{'numbers' if kind == 'answers' else kind}_{field}" for kind, field in wide.columns]
    wide = wide[[f"{k}_{f}" for f in sorted(numbers.workers["field"].unique()) for k in ("bias", "offset", "numbers")]]
    wide = wide.reset_index()
    people = wide if workers is None or workers.empty else workers.merge(wide, on="worker_id", how="outer")
    for column in [c for c in people.columns if c.startswith("numbers_") or c in ("items", "controls")]:
        people[column] = people[column].fillna(0).astype(int)
    return both, people.sort_values("worker_id", kind="stable").reset_index(drop=True)


def _or_empty(frame: pd.DataFrame | None) -> pd.DataFrame:
    return frame if frame is not None else pd.DataFrame()
