"""The ``time_outlier`` rule's methods (``seed``, ``seed_slow_apart``, ``robust``, ``robust_both``: why each,
docs/explanation/qc-rules.md); the robust bands also read ``time_reference``, earlier batches' times of the page.
Input columns: ``assignment_id, worker_id, work_time_s`` (repeated on each caption row of an assignment).
Two flags: ``time_outlier`` (too fast; policies block on it) and ``time_outlier_slow``, which only asks a person to look
(accept-to-submit time includes a parked HIT's wait)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qc.flags import flag_frame

SLOW_APART = "seed_slow_apart"  # the seed's band, its fast side taken without the slow workers (the default)
SEED_METHODS = ("seed", SLOW_APART)  # mu +/- k sigma (qc/worker_rules.py)
METHODS = (*SEED_METHODS, "robust", "robust_both")
DEFAULT_METHOD = SLOW_APART
FAST_RULE, SLOW_RULE = "time_outlier", "time_outlier_slow"
NOTHING_TICKED = "nothing_ticked"
# flags a rule raises under another name, which a policy may only send for review (each rule's module says why)
REVIEW_ONLY_FLAGS = {SLOW_RULE: FAST_RULE, "choice_straight_lining_review": "choice_straight_lining",
                     NOTHING_TICKED: "empty_answer", "item_blind_review": "item_blind"}
MAD_TO_SIGMA = 1.4826  # the MAD of a normal sample times this estimates its sigma
FLOOR_S = 0.1  # a zero or negative time (clock skew) counts as this fast
# A robust band is taken without the times this many MAD-sigmas of log time under the median (without_clearly_fast):
# 0.2% of simulated log-normal honest times, and the band holds when a fifth of the batch is fast
CLEAR_SIGMAS = 3.0
CLEAR_MIN_TIMES = 5


def time_outlier_method(params: dict[str, Any]) -> str:
    method = params.get("time_outlier_method") or DEFAULT_METHOD
    if method not in METHODS:
        raise ValueError(f"time_outlier_method must be one of {', '.join(METHODS)} (got {method!r})")
    return str(method)


def assignment_times(df: pd.DataFrame) -> pd.DataFrame:
    """One row per assignment with a time: ``worker_id, work_time_s`` and ``page_items`` (the items its page showed)
    where the frame has it (a caption row repeats its assignment's time, so the unit of a timing rule is the
    assignment, not the caption)."""
    columns = ["worker_id", "work_time_s", *(["page_items"] if "page_items" in df.columns else [])]
    if not {"assignment_id", "worker_id", "work_time_s"} <= set(df.columns):  # pandas names what is missing
        return df.drop_duplicates("assignment_id")[columns].dropna()
    # the same rows as drop_duplicates, without copying every column of the batch (a third of the CPU)
    return df[columns][~df["assignment_id"].duplicated().to_numpy()].dropna()


def timed_assignments(df: pd.DataFrame, params: dict[str, Any]) -> tuple[float, pd.DataFrame] | None:
    """(k, the assignments' times) for a timing rule; None below two timed assignments (no spread)."""
    per_assignment = assignment_times(df)
    return None if len(per_assignment) < 2 else (float(params.get("time_outlier_sigmas", 1.95)), per_assignment)


def median_and_sigma(logs: pd.Series) -> tuple[float, float]:
    """The median of ``logs`` and its MAD as a normal sigma."""
    centre = float(logs.median())
    return centre, MAD_TO_SIGMA * float((logs - centre).abs().median())


def without_clearly_fast(logs: pd.Series) -> pd.Series:
    """The log times left once those clearly fast (``CLEAR_SIGMAS`` MAD-sigmas under the median) are out, found
    again until none is: the band taken on the rest does not move with how much of the batch is fast."""
    for _ in range(10):
        centre, spread = median_and_sigma(logs)
        kept = logs[logs >= centre - CLEAR_SIGMAS * spread]
        if not spread > 0 or len(kept) == len(logs) or len(kept) < CLEAR_MIN_TIMES:
            break
        logs = kept
    return logs


def reference_logs(params: dict[str, Any]) -> pd.DataFrame:
    """``time_reference`` (the earlier batches' assignments: ``(seconds, items on the page)`` pairs, or seconds) as
    ``log, page_items`` rows, those whose time reads as a number."""
    pairs = [t if isinstance(t, (list, tuple)) else (t, 0) for t in params.get("time_reference") or ()]
    frame = pd.DataFrame([(p[0], p[1] if len(p) > 1 else 0) for p in pairs], columns=["s", "page_items"])
    seconds = pd.to_numeric(frame["s"], errors="coerce")
    return pd.DataFrame({"log": np.log(seconds.astype(float).clip(lower=FLOOR_S)),
                         "page_items": frame["page_items"]})[seconds.notna()]


def page_bands(logs: pd.Series, sizes: pd.Series, earlier: pd.DataFrame) -> dict[Any, tuple[float, float]]:
    """Per size of page (the items it showed): (centre, MAD-sigma) of the log seconds an item of the pages of that
    size, this batch's and ``earlier``'s (a first page headed by a quiz is not timed against the pages without it);
    where too few are of that size, of the pages of that size or larger (reading the page's instructions takes fewer
    seconds an item on a longer page, so a page timed against shorter ones would look fast); none where fewer than
    ``CLEAR_MIN_TIMES`` or the times do not spread."""
    every = pd.concat([earlier, pd.DataFrame({"log": logs, "page_items": sizes})], ignore_index=True)
    least = CLEAR_MIN_TIMES if every["page_items"].nunique() > 1 else 2  # pages of one size: the batch's own band
    bands = {}
    for size in sizes.unique():
        pool = every.loc[every["page_items"] == size, "log"]
        pool = pool if len(pool) >= CLEAR_MIN_TIMES else every.loc[every["page_items"] >= size, "log"]
        if len(pool) < least:
            continue
        centre, spread = median_and_sigma(without_clearly_fast(pool))
        if np.isfinite(spread) and spread > 0:
            bands[size] = (centre, spread)
    return bands


def robust_time_outlier(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Workers whose geometric-mean time, in MAD-sigmas of their pages' band, is below -k (``robust_both``: or
    above k): median / exp(k * MAD-sigma) of log time on one size of page."""
    timed = timed_assignments(df, params)
    if timed is None:
        return flag_frame([])
    k, per_assignment = timed
    logs = np.log(per_assignment["work_time_s"].astype(float).clip(lower=FLOOR_S))
    sizes = per_assignment["page_items"] if "page_items" in per_assignment else pd.Series(0, logs.index)
    earlier = reference_logs(params)
    # seconds an item: pages of several sizes on one scale (pages of one size: their times, shifted)
    per_field = logs - np.log(sizes.astype(float).clip(lower=1))
    bands = page_bands(per_field, sizes, earlier.assign(log=earlier["log"] - np.log(earlier["page_items"].astype(float)
                                                                                      .clip(lower=1))))
    if not bands:
        return flag_frame([])
    # a page size without a band (too few such pages, or their times all alike) puts no one outside it
    centres, spreads = (sizes.map({s: b[i] for s, b in bands.items()}) for i in (0, 1))
    z = ((per_field - centres) / spreads).fillna(0.0)
    both = time_outlier_method(params) == "robust_both"
    per_worker = pd.DataFrame({"z": z, "log": logs, "size": sizes}).groupby(per_assignment["worker_id"])
    mean_z, typical, size = per_worker["z"].mean(), np.exp(per_worker["log"].mean()), per_worker["size"].first()
    over = "the campaign's" if len(earlier) else "batch"
    rows = []
    for w in mean_z.index[(mean_z < -k) | ((mean_z > k) if both else False)]:
        fast, (centre, spread) = bool(mean_z[w] < -k), bands.get(size[w], next(iter(bands.values())))
        centre += float(np.log(max(1.0, float(size[w]))))  # back to seconds a page of the worker's
        bound = float(np.exp(centre - k * spread if fast else centre + k * spread))
        rows.append({"worker_id": w, "rule": FAST_RULE if fast else SLOW_RULE, "value": round(float(typical[w]), 1),
                     "threshold": f"{'below' if fast else 'above'} {bound:.1f}s",
                     "detail": f"{side_word(fast)}: typical {typical[w]:.1f}s vs {over} median {np.exp(centre):.1f}s "
                               f"(robust, {k} MAD-sigmas of log time)"})
    return flag_frame(rows)


def side_word(fast: bool) -> str:
    """The side in a flag's detail: a speeder blocks, a slow worker is for a person to look at."""
    return "too fast" if fast else "too slow (for review only)"


METHOD_WORDS = {
    SLOW_APART: "mu +/- {k:g} sigma of the batch's times, the fast side taken without the slow workers' (a parked "
                "HIT's hours would widen the band below every speeder); [qc] time_outlier_method = \"seed\" is the "
                "seed's band exactly",
    "seed": "mu +/- {k:g} sigma of all the batch's times, both sides, as the seed has it (a parked HIT's hours "
            "widen the band and can hide a speeder; \"seed_slow_apart\" takes the fast side without them)",
    "robust": "median / exp({k:g} MAD-sigmas) of log time over the campaign's times so far, the fast side only, "
              "taken without the clearly fast times (3 MAD-sigmas under), so a share of fast workers does not lower it",
    "robust_both": "median */ exp({k:g} MAD-sigmas) of log time over the campaign's times so far, both sides, taken "
                   "without the clearly fast times",
}


def describe_method(params: dict[str, Any]) -> str:
    """The dry run's line on the time band: which it is, what a speeder and a slow worker get."""
    method = time_outlier_method(params)
    band = METHOD_WORDS[method].format(k=float(params.get("time_outlier_sigmas", 1.95)))
    slow = "" if method == "robust" else (", slower is time_outlier_slow (a person looks; it never rejects or "
                                          "blocks on its own)")
    return f"time outliers ({method}): {band}; faster is time_outlier (a speeder){slow}"
