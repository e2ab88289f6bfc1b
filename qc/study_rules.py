"""QC rules for human-evaluation responses. Input columns (one row per response): ``assignment_id, worker_id,
work_time_s, n_tasks, main_answers`` (``\\x1f``-joined), ``problems`` (``check_answers`` findings, ``; ``-joined).
Params: ``min_seconds_per_task``, ``straight_lining_min_tasks``."""

from __future__ import annotations

from typing import Any

import pandas as pd

from qc.flags import flag_frame, register
from qc.skipped_required import skipped_required_flags


@register("invalid_answer", "study")
def invalid_answer(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """A response breaking the page's own submit rules (the page was bypassed; a blank required: skipped_required)."""
    bad = df[df["problems"].astype(str) != ""]
    own = flag_frame([{"worker_id": r.worker_id, "rule": "invalid_answer", "value": r.problems.count(";") + 1,
                       "threshold": 0, "assignment_id": r.assignment_id, "detail": r.problems[:300]}
                      for r in bad.itertuples()])
    blanks = skipped_required_flags(bad)  # its required-left-blank part, a ground of its own on some routes
    return own if blanks.empty else pd.concat([own, blanks], ignore_index=True)


@register("too_fast", "study")
def too_fast(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Less time per task than reading it takes."""
    limit = float(params.get("min_seconds_per_task", 3.0))
    per_task = pd.to_numeric(df["work_time_s"], errors="coerce") / df["n_tasks"].clip(lower=1)
    fast = df[per_task < limit]
    return flag_frame([{"worker_id": r.worker_id, "rule": "too_fast", "value": round(float(per_task[i]), 2),
                        "threshold": limit, "assignment_id": r.assignment_id,
                        "detail": f"{per_task[i]:.1f} s per task"} for i, r in zip(fast.index, fast.itertuples(),
                                                                                     strict=True)])


@register("straight_lining", "study")
def straight_lining(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """One and the same answer to every task of a long unit."""
    min_tasks = int(params.get("straight_lining_min_tasks", 8))
    rows = []
    for r in df.itertuples():
        answers = [a for a in str(r.main_answers).split("\x1f") if a != ""]
        if len(answers) >= min_tasks and len(set(answers)) == 1:
            rows.append({"worker_id": r.worker_id, "rule": "straight_lining", "value": len(answers),
                         "threshold": min_tasks, "assignment_id": r.assignment_id,
                         "detail": f"answered {answers[0]!r} to all {len(answers)} tasks"})
    return flag_frame(rows)
