"""``mark_agreement``: a worker whose marks (spans, boxes, keypoints) rarely meet the other workers' on the same items.
Input columns: ``assignment_id, worker_id, image_id, field, answer`` (the element's JSON); when marks meet and an
answer is flagged: docs/custom_pages.md."""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from qc.flags import flag_frame, register
from qc.worker_values import MAX_MARKS, read_json

SPAN_IOU = 0.5  # "Ivo" of "Ivo Kranjc" (0.3) is another mark; "Acme Robotics" of "The Acme Robotics" (0.76) the same
BOX_IOU = 0.3  # boxes of one object drawn by two careful people overlap well past this; a stray box not at all
POINT_PX = 24.0  # a keypoint within this many pixels of another is the same point
SMALL_PAIRS = 1_024  # pairs of marks up to which Python's loop beats numpy's calls (measured: 40 x 40 about even)
Mark = tuple[str, float, float, float, float]  # label and a shape: span (a, b), box (l, t, w, h), point (x, y)


def marks_of(answer: str) -> list[Mark] | None:
    """The marks of one answer; None when not an annotation's JSON or over ``MAX_MARKS`` marks (malformed)."""
    try:
        data = read_json(answer)
    except (ValueError, TypeError):
        return None
    if not isinstance(data, dict):
        return None
    key = next((k for k in ("entities", "boundingBoxes", "keypoints") if isinstance(data.get(k), list)), None)
    if key is None or len(data[key]) > MAX_MARKS:
        return None
    try:
        if key == "entities":
            return [(str(e["label"]), float(e["startOffset"]), float(e["endOffset"]), 0.0, 0.0) for e in data[key]]
        if key == "boundingBoxes":
            return [(str(b["label"]), float(b["left"]), float(b["top"]), float(b["width"]), float(b["height"]))
                    for b in data[key]]
        return [(str(k["label"]), float(k["x"]), float(k["y"]), 0.0, 0.0) for k in data[key]]
    except (KeyError, TypeError, ValueError):
        return None  # the element's own rules (invalid_answer) say what is wrong with its shape


def meets(m: Mark, shapes: np.ndarray, kind: str) -> np.ndarray:
    """Which of ``shapes`` (rows of the four numbers of marks with ``m``'s label) meet ``m``."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if kind == "entities":
            inter = np.minimum(m[2], shapes[:, 1]) - np.maximum(m[1], shapes[:, 0])
            spread = np.maximum(m[2], shapes[:, 1]) - np.minimum(m[1], shapes[:, 0])
            return (inter > 0) & (inter / spread >= SPAN_IOU)
        if kind == "keypoints":
            return (m[1] - shapes[:, 0]) ** 2 + (m[2] - shapes[:, 1]) ** 2 <= POINT_PX**2
        width = np.minimum(m[1] + m[3], shapes[:, 0] + shapes[:, 2]) - np.maximum(m[1], shapes[:, 0])
        height = np.minimum(m[2] + m[4], shapes[:, 1] + shapes[:, 3]) - np.maximum(m[2], shapes[:, 1])
        inter = np.maximum(width, 0.0) * np.maximum(height, 0.0)
        union = m[3] * m[4] + shapes[:, 2] * shapes[:, 3] - inter
        return (union > 0) & (inter / union >= BOX_IOU)


def _meet(a: Mark, b: Mark, kind: str) -> bool:
    """:func:`meets` for one pair (a few marks each: numpy's call costs more than the pairs)."""
    if a[0] != b[0]:
        return False
    if kind == "entities":
        inter = min(a[2], b[2]) - max(a[1], b[1])
        return inter > 0 and inter / (max(a[2], b[2]) - min(a[1], b[1])) >= SPAN_IOU
    if kind == "keypoints":
        dx, dy = a[1] - b[1], a[2] - b[2]
        return dx * dx + dy * dy <= POINT_PX**2  # x * x: inf past a double, where ** 2 raised OverflowError
    width = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    height = min(a[2] + a[4], b[2] + b[4]) - max(a[2], b[2])
    inter = max(width, 0.0) * max(height, 0.0)
    union = a[3] * a[4] + b[3] * b[4] - inter
    return union > 0 and inter / union >= BOX_IOU


def pair_f1(mine: list[Mark], theirs: list[Mark], kind: str) -> float:
    """F1 of two sets of marks, each matched at most once greedily in order; numpy rows past a few marks."""
    if not mine and not theirs:
        return 1.0
    few = len(mine) * len(theirs) <= SMALL_PAIRS
    matched = _matched_few(mine, theirs, kind) if few else _matched_many(mine, theirs, kind)
    return 2 * matched / (len(mine) + len(theirs))


def _matched_few(mine: list[Mark], theirs: list[Mark], kind: str) -> int:
    free, matched = list(theirs), 0
    for m in mine:
        hit = next((i for i, t in enumerate(free) if _meet(m, t, kind)), None)
        if hit is not None:
            free.pop(hit)
            matched += 1
    return matched


def _matched_many(mine: list[Mark], theirs: list[Mark], kind: str) -> int:
    by_label: dict[str, list[int]] = {}
    for i, t in enumerate(theirs):
        by_label.setdefault(t[0], []).append(i)
    shapes = np.array([t[1:] for t in theirs], dtype=float).reshape(-1, 4)
    groups = {label: (np.array(at), shapes[at]) for label, at in by_label.items()}
    free = np.ones(len(theirs), dtype=bool)
    matched = 0
    for m in mine:
        if (group := groups.get(m[0])) is None:
            continue
        at, rows = group
        hits = meets(m, rows, kind) & free[at]
        if hits.any():  # argmax: the first True, as ``at`` is in ``theirs``' order
            free[at[int(hits.argmax())]] = False
            matched += 1
    return matched


def _kind(answer: str) -> str:
    return next((k for k in ("entities", "boundingBoxes", "keypoints") if f'"{k}"' in answer), "")


def _item_scores(item: pd.DataFrame) -> list[tuple[str, str, float, float]]:
    """(worker, assignment, mean F1 with the others, the others' mean F1 among themselves) on one item."""
    marks = {str(r.worker_id): (m, _kind(str(r.answer)), str(r.assignment_id)) for r in item.itertuples()
             if (m := marks_of(str(r.answer))) is not None}
    if len(marks) < 3:
        return []
    kind = next((k for _, k, _ in marks.values() if k), "entities")
    own: dict[str, list[float]] = {w: [] for w in marks}
    for a, b in combinations(sorted(marks), 2):
        f1 = pair_f1(marks[a][0], marks[b][0], kind)
        own[a].append(f1)
        own[b].append(f1)
    total, pairs = math.fsum(math.fsum(f) for f in own.values()) / 2, len(marks) * (len(marks) - 1) // 2
    out = []
    for worker, (_, _, assignment) in marks.items():
        mine = math.fsum(own[worker])  # the others' pairs: every pair's score but this worker's own
        out.append((worker, assignment, mine / len(own[worker]), (total - mine) / (pairs - len(own[worker]))))
    return out


@register("mark_agreement", "caption")
def mark_agreement(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Answers whose marks rarely meet the other workers' on the same item (module docstring)."""
    below = float(params.get("mark_agreement_below", 0.35))
    answered = df[df["answer"].astype(str) != ""].drop_duplicates(["worker_id", "field", "image_id"])
    rows = []
    for (field, image), item in answered.groupby(["field", "image_id"]):
        for worker, assignment, own, rest in _item_scores(item):
            if own < below and own < rest / 2:
                rows.append({"worker_id": worker, "rule": "mark_agreement", "value": round(own, 3),
                             "threshold": below, "assignment_id": assignment, "image_id": image,
                             "detail": f"{field}: marks met the other workers' {own:.0%} (they met each other's "
                                       f"{rest:.0%})"})
    return flag_frame(rows)
