"""``exceptionally_fast``: a submission that is a statistical outlier for speed as Prolific defines it.

Prolific's researcher help ("Valid rejection reasons", prolific-researcher.dixa.help/en/article/f75ea9;
and its participant help "Why has my submission been rejected?") allows a rejection for speed only when the
submission took more than 3 standard deviations below the mean completion time of the study; not for a time
the researcher guessed, and not for the time spent on one page. This rule is that test and nothing looser:
the mean and the sample standard deviation of every timed submission of the batch (one batch is one study),
the submission itself included. In a batch of n, no submission can lie more than (n - 1) / sqrt(n) standard
deviations from the mean, so below 11 submissions this rule never fires: a small study gives no ground.

Input columns: ``assignment_id, worker_id, work_time_s`` (a row per answer repeats its submission's time;
the unit is the submission). Params: ``exceptional_speed_sigmas`` (3, Prolific's figure).
``time_outlier`` (qc/timing_rules.py) is the seed's band for speeders to look at and block; this one is
narrower on purpose, for the one route that says what may be rejected for speed.
"""

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
