"""Worker-level heuristics of the VizWiz-Captions pipeline (Gurari et al. 2020, appendix 0.A).
Input columns: ``assignment_id, worker_id, image_id, caption, is_precanned, work_time_s``
(one row per caption; ``work_time_s`` repeats on every row of an assignment).
Each rule returns the flag table of :mod:`qc.flags` with the value it measured and its
threshold; ``assignment_id`` and ``image_id`` are blank where the flag is about a worker."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qc import text_features
from qc.flags import flag_columns, flag_frame, register
from qc.shown_text import quotes_own_item, shown_as
from qc.timing_rules import (
    FAST_RULE,
    SEED_METHODS,
    SLOW_APART,
    SLOW_RULE,
    robust_time_outlier,
    side_word,
    time_outlier_method,
    timed_assignments,
)
from qc.worker_share import share_flags


@register("time_outlier", "worker")
def time_outlier(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Worker mean time-to-submit outside mu +/- k*sigma of the batch: above, ``time_outlier_slow`` (a person
    looks), below, ``time_outlier``; the band's method is ``time_outlier_method`` (qc/timing_rules.py)."""
    method = time_outlier_method(params)
    if method not in SEED_METHODS:  # the options of qc/timing_rules.py
        return robust_time_outlier(df, params)
    timed = timed_assignments(df, params)
    if timed is None:
        return flag_frame([])
    k, per_assignment = timed
    worker_means = per_assignment.groupby("worker_id")["work_time_s"].mean()
    slow_band = _band(per_assignment["work_time_s"], k)
    if slow_band is None:
        return flag_frame([])
    slow = worker_means[worker_means > slow_band[1]]
    fast_band: tuple[float, float, float, float] | None = slow_band
    apart = ""
    if method == SLOW_APART:
        rest = per_assignment[~per_assignment["worker_id"].isin(slow.index)]["work_time_s"]
        fast_band = _band(rest, k) if len(rest) >= 2 else None
        apart = f" (without the {len(slow)} slow worker(s))" if len(slow) else ""
    fast = worker_means[worker_means < fast_band[0]] if fast_band is not None else worker_means.iloc[:0]
    rows = [_time_row(w, m, FAST_RULE, fast_band, apart) for w, m in fast.items() if fast_band is not None]
    rows += [_time_row(w, m, SLOW_RULE, slow_band) for w, m in slow.items()]
    return flag_frame(sorted(rows, key=lambda r: str(r["worker_id"])))


def _band(times: pd.Series, k: float) -> tuple[float, float, float, float] | None:
    """(mu - k*sigma, mu + k*sigma, mu, sigma) of ``times``; None without a spread."""
    mu, sigma = float(times.astype(float).mean()), float(times.astype(float).std(ddof=1))
    if not np.isfinite(sigma) or sigma == 0:
        return None
    return mu - k * sigma, mu + k * sigma, mu, sigma


def _time_row(worker: Any, mean: float, rule: str, band: tuple[float, float, float, float],
              apart: str = "") -> dict[str, Any]:
    low, high, mu, sigma = band
    said = f"{side_word(rule == FAST_RULE)}: mean {mean:.1f}s vs batch mu {mu:.1f}s sigma {sigma:.1f}s{apart}"
    return {"worker_id": worker, "rule": rule, "value": round(float(mean), 1), "threshold": side_bound(rule, low, high),
            "detail": said}


def side_bound(rule: str, low: float, high: float) -> str:
    """The bound a flag crossed, in seconds a person reads: a slow worker's band had a lower end below zero
    ("[-40.1, 95.1]": parked HITs widen sigma), which says nothing about being slow."""
    return f"below {low:.1f}s" if rule == FAST_RULE else f"above {high:.1f}s"


@register("caps_lock", "worker")
def caps_lock(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Uppercase letters / all letters over the worker's non-canned caption text."""
    limit = float(params.get("caps_lock_share", 0.5))
    own, found = text_features.written(df), text_features.counts(df)
    codes, workers = pd.factorize(df["worker_id"].to_numpy()[own], sort=True)  # sorted, as groupby was
    known = codes >= 0  # a missing worker id is left out, as groupby leaves it
    upper, letters = (np.bincount(codes[known], weights=n[own][known], minlength=len(workers)).astype(np.int64)
                      for n in (found.upper, found.letters))
    share = upper / np.maximum(letters, 1)
    rows = [{"worker_id": workers[k], "rule": "caps_lock", "value": round(share[k], 3), "threshold": limit,
             "detail": f"{int(letters[k])} letters"} for k in np.flatnonzero((letters > 0) & (share > limit))]
    return flag_frame(rows)


@register("canned_overuse", "worker")
def canned_overuse(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """The worker's canned captions / all their captions."""
    limit = float(params.get("canned_share", 0.5))
    captions = pd.DataFrame({"worker_id": df["worker_id"], "flagged": df["is_precanned"]})
    return share_flags(captions, "canned_overuse", limit, "canned", strictly=True)  # half canned is not over-use


def _lone_canned(df: pd.DataFrame, params: dict[str, Any], used: bool) -> pd.DataFrame:
    rule = "canned_lone_use" if used else "canned_lone_nonuse"
    min_captions = int(params.get("lone_min_captions", 3))
    canned = ~text_features.written(df)
    codes = text_features.shared(df, "image_codes", lambda: pd.factorize(df["image_id"])[0])  # groupby's images
    imaged = codes >= 0  # a missing image id (-1) is no image, as groupby leaves it out
    size = np.bincount(codes[imaged], minlength=1)
    odd = np.bincount(codes[imaged], weights=(canned if used else ~canned)[imaged], minlength=len(size))
    at = np.maximum(codes, 0)
    picked = np.flatnonzero(imaged & (canned == used) & (size[at] >= min_captions) & (odd[at] == 1)).tolist()
    if not picked:
        return flag_frame([])
    worker, assignment, image = (text_features.column(df, c) for c in ("worker_id", "assignment_id", "image_id"))
    return flag_columns({"worker_id": [worker[k] for k in picked], "rule": rule, "value": 1,
                         "threshold": [f"only one of {size[codes[k]]}" for k in picked],
                         "assignment_id": [assignment[k] for k in picked], "image_id": [image[k] for k in picked],
                         "detail": f"{'used' if used else 'did not use'} the canned text alone"})


@register("canned_lone_use", "caption")
def canned_lone_use(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """On an image with >= 3 captions, the only worker who used the canned text."""
    return _lone_canned(df, params, used=True)


@register("canned_lone_nonuse", "caption")
def canned_lone_nonuse(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """On an image with >= 3 captions, the only worker who did not use the canned text."""
    return _lone_canned(df, params, used=False)


@register("duplicate_text", "worker")
def duplicate_text(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """One worker giving the same non-canned caption to different images."""
    min_images = int(params.get("duplicate_min_images", 2))
    written = text_features.written(df)
    own = df.loc[written, ["worker_id", "image_id"]]
    kept = text_features.repeated(text_features.folded_keys(df)[written], pd.factorize(own["worker_id"])[0])
    if not kept.any():
        return flag_frame([])  # most batches: no caption twice, nothing to count
    own = own[kept].assign(norm=text_features.folded_at(df, np.flatnonzero(written)[kept]))  # only repeats count
    own = own[(own["norm"] != "") & own.duplicated(["worker_id", "norm"], keep=False)]
    # quoting what its own item shows is about that item, even when two items show the same (qc/shown_text.py)
    own = own[~np.array(quotes_own_item(own["norm"].tolist(), own["image_id"].tolist(), params), dtype=bool)]
    if params.get("item_text"):  # two items showing one text are one item: the same answer on both is no copy
        own = own.assign(image_id=shown_as(own["image_id"].tolist(), params))
    images = own.groupby(["worker_id", "norm"])["image_id"].nunique()
    rows = [
        {"worker_id": w, "rule": "duplicate_text", "value": int(n), "threshold": min_images,
         "detail": f"same caption on {int(n)} images: {norm[:100]}"}
        for (w, norm), n in images.items() if n >= min_images
    ]
    return flag_frame(rows)


@register("random_sample", "caption")
def random_sample(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """A seeded random share of assignments picked for human review. A batch checked again keeps its earlier
    picks (``sampled_before``) and picks the rest only among work not in ``decided`` (a pick no person can decide
    would hold the review for ever)."""
    share = float(params.get("random_sample_share", 0.05))
    assignments = (df.loc[~df["assignment_id"].duplicated(), ["assignment_id", "worker_id"]]  # each one's first row
                   if {"assignment_id", "worker_id"} <= set(df.columns) else df.drop_duplicates("assignment_id"))
    if share <= 0 or assignments.empty:
        return flag_frame([])
    n = max(1, round(share * len(assignments)))
    before = set(params.get("sampled_before", ()))
    kept = assignments[assignments["assignment_id"].isin(before)]
    pool = assignments[~assignments["assignment_id"].isin(before | set(params.get("decided", ())))]
    more = pool.sample(n=min(len(pool), max(0, n - len(kept))), random_state=int(params.get("seed", 0)))
    picked = pd.concat([kept, more])
    if picked.empty:
        return flag_frame([])
    return flag_columns({"worker_id": picked["worker_id"].tolist(), "rule": "random_sample", "value": share,
                         "threshold": share, "assignment_id": picked["assignment_id"].tolist(), "image_id": "",
                         "detail": "picked for review"})
