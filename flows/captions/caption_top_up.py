"""Caption top-ups ([answers] top_up_rounds): an image whose accepted captions fall short of
``assignments_per_image`` after QC and decisions (rejected work, a worker blocked in the batch, a
reviewer's struck caption) gets more assignments in a later round instead of shipping short.

After a batch's block step (the driver's ``more_work_rounds``), each round counts every image's
accepted captions, extends each HIT by what its shortest image lacks (one MTurk HIT carries several
images: all of them get the extra captions), collects the new work, and the driver sends it through
QC, review, decisions and blocks like any late work. At most ``top_up_rounds`` rounds a batch; MTurk
cannot take a HIT created with fewer than 10 assignments to 10 or more, so a HIT stops at 9 there.
An image still short after the last round is named in the summary and the report ("ran out of
rounds").
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from flows.campaigns.extension_rounds import next_round, unit_frame
from flows.captions.outputs import batch_captions
from flows.core.config.config import top_up_cap
from flows.core.run.run_context import Run
from postprocess.answers.extension_rounds import top_up_units


def accepted_captions(run: Run, batch: int) -> pd.Series:
    """Accepted, non-empty captions per image of the batch (``image_id`` -> count)."""
    frame = batch_captions(run, batch, telemetry=False)
    kept = frame[~frame["is_rejected"] & (frame["caption"].fillna("").astype(str).str.strip() != "")]
    return kept.groupby(kept["image_id"].astype(str)).size()


def assignment_cap(run: Run) -> int:
    return top_up_cap(run.cfg.assignments_per_image)


def plan_top_up(run: Run, batch: int, rounds: dict[int, list[str]]) -> list[str]:
    return top_up_units(accepted_captions(run, batch), unit_frame(run, batch, rounds),
                        run.cfg.assignments_per_image, assignment_cap(run))


def top_up_round(run: Run, batch: int) -> dict[str, Any]:
    """One top-up round of the batch (flows/campaigns/extension_rounds.py); ``extended`` 0 when they are over."""
    return next_round(run, batch, run.cfg.answers.top_up_rounds, lambda rounds: plan_top_up(run, batch, rounds),
                      "caption top-up")
