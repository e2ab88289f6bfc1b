"""Caption top-ups' outputs: ``top_ups.csv``, ``short_images.csv`` and their summary line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from flows.campaigns.campaign_plan import Run
from flows.campaigns.extension_rounds import extended_batches, extended_by_unit, recorded_rounds, short_with_reasons
from flows.core.config.config import CampaignConfig, top_up_cap
from flows.core.inputs.csv_writing import write_csv
from flows.platforms.registry import platform_for


def short_images_lines(run: Run, short: list[pd.DataFrame], out_dir: Path) -> list[str]:
    """With caption top-ups: the images topped up and those still short, with why."""
    if not run.cfg.answers.top_up_rounds:
        return []
    write_csv(topped_up_images(run), out_dir / "top_ups.csv")
    frame = pd.concat(short, ignore_index=True) if short else pd.DataFrame(columns=["item_id", "accepted", "batch"])
    frame = short_with_reasons(run, frame, top_up_cap(run.cfg.assignments_per_image))
    write_csv(frame.rename(columns={"item_id": "image_id"})[["image_id", "accepted", "batch", "reason"]],
              out_dir / "short_images.csv")
    if frame.empty:
        return []
    shown = ", ".join(frame["item_id"].head(10)) + (", ..." if len(frame) > 10 else "")
    return [f"{len(frame)} image(s) have fewer than {run.cfg.assignments_per_image} accepted captions: "
            f"{short_reasons_text(frame['reason'].value_counts(), run.cfg)}: {shown} (short_images.csv)"]


def short_reasons_text(counts: pd.Series, cfg: CampaignConfig) -> str:
    """"3 ran out of top-up rounds (2 a batch), 1 ...": the reasons short_images.csv gives, counted."""
    words = {"rounds": f"ran out of top-up rounds ({cfg.answers.top_up_rounds} a batch)",
             "after": "fell short after their batch's rounds had ended (struck in review or reconciled late)",
             "unfilled": "were on a unit the crowd did not fill (more asked of it would not have come)",
             "cap": f"reached {top_up_cap(cfg.assignments_per_image)} assignments a unit",
             "unposted": "were on no posted unit"}
    return ", ".join(f"{int(counts[r])} {words[r]}" for r in words if counts.get(r, 0))


def topped_up_images(run: Run) -> pd.DataFrame:
    """``image_id, batch, hit_id, more_assignments``: every image whose HIT got a top-up."""
    rows, platform = [], platform_for(run.platform)
    for batch in extended_batches(run):
        extended = extended_by_unit(recorded_rounds(run, batch))
        rows += [{"image_id": item, "batch": batch, "hit_id": unit, "more_assignments": extended[unit]}
                 for unit, items in platform.posted_units(run, batch) if unit in extended for item in items]
    return pd.DataFrame(rows, columns=["image_id", "batch", "hit_id", "more_assignments"])
