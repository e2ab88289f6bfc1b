"""Caption top-ups ([answers] top_up_rounds): more assignments for images short of captions."""

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


def top_up_round(run: Run, batch: int) -> dict[str, Any]:
    """One top-up round of the batch (flows/campaigns/extension_rounds.py); ``extended`` 0 when they are over."""
    per = run.cfg.assignments_per_image
    return next_round(run, batch, run.cfg.answers.top_up_rounds, lambda rounds: top_up_units(
        accepted_captions(run, batch), unit_frame(run, batch, rounds), per, top_up_cap(per)), "caption top-up")
