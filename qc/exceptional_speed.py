"""``exceptionally_fast``: Prolific's one ground for speed, 3 SDs below the batch's mean (docs/explanation/qc-rules.md).
Input columns: ``assignment_id, worker_id, work_time_s``. Params: ``exceptional_speed_sigmas`` (3)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from qc.flags import flag_frame, register

RULE = "exceptionally_fast"
PROLIFIC_SIGMAS = 3.0


def submissions(df: pd.DataFrame) -> pd.DataFrame:
    """One row per timed submission: ``assignment_id, worker_id, work_time_s``."""
    timed = df[["assignment_id", "worker_id", "work_time_s"]].drop_duplicates("assignment_id")
    return timed.assign(work_time_s=pd.to_numeric(timed["work_time_s"], errors="coerce")).dropna()


@register(RULE, "study")
def exceptionally_fast(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Submissions whose time is below mean - k * SD of the batch's submission times (k = 3)."""
    k = float(params.get("exceptional_speed_sigmas", PROLIFIC_SIGMAS))
    times = submissions(df)
    if len(times) < 2:
        return flag_frame([])
    seconds = times["work_time_s"].astype(float)
    mean, sd = float(seconds.mean()), float(seconds.std(ddof=1))
    if not sd > 0:
        return flag_frame([])
    floor = mean - k * sd
    fast = times[seconds < floor]
    return flag_frame([{"worker_id": str(r.worker_id), "rule": RULE, "value": round(float(r.work_time_s), 1),
                        "threshold": round(floor, 1), "assignment_id": str(r.assignment_id),
                        "detail": f"completed in {r.work_time_s:.1f} s: more than {k:g} standard deviations below "
                                  f"the mean of this study's {len(times)} submissions ({mean:.1f} s, SD {sd:.1f} s, "
                                  f"so under {floor:.1f} s)"}
                       for r in fast.itertuples()])
