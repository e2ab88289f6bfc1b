"""The dry run's lines on a unit's time and pay as the task kind plans them (flows/core/task_kinds.py): how
long a unit takes from its page's fields, where each Prolific figure comes from (the config's ``[prolific]``
or the page), and a warning where the time a worker is given is short for the page; after a run (or a rehearsal),
the same figures against what its accepted work took."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable
from typing import Any

from flows.campaigns.task_kinds import kind_of
from flows.core.config.config import CampaignConfig
from flows.core.config.prolific_section import PROLIFIC_MIN_HOURLY
from flows.core.task_kinds import least_maximum


def unit_line(cfg: CampaignConfig) -> tuple[str, float]:
    """("N answer field(s) an item (...), K item(s) a unit: about M min a unit", M)."""
    kind = kind_of(cfg)
    fields = kind.fields(cfg)
    minutes = kind.plan(cfg).minutes
    kinds = ", ".join(f"{n} {k}" for k, n in Counter(f.kind for f in fields).items())
    return (f"{kind.label}: {len(fields)} answer field(s) an item ({kinds or 'none'}), {cfg.images_per_hit} item(s) "
            f"a unit: about {minutes:.1f} min a unit", minutes)


def time_lines(cfg: CampaignConfig, platform: str) -> list[str]:
    """The plan's time and pay lines for ``platform``, in its own terms (Prolific's figures and where each
    comes from, MTurk's time a worker has; each platform's ``time_lines``)."""
    from flows.platforms.registry import platform_for

    said, minutes = unit_line(cfg)
    return platform_for(platform).time_lines(cfg, said, minutes, least_maximum(minutes))


ACCEPTED_TIMES = ("SELECT a.submit_time - a.accept_time AS s FROM assignments a JOIN decisions d ON d.campaign = "
                  "a.campaign AND d.assignment_id = a.assignment_id WHERE a.campaign = ? AND d.action = 'approve' "
                  "AND a.submit_time IS NOT NULL AND a.accept_time IS NOT NULL ORDER BY s")
# A tenth of the accepted work over half the time allowed: the plan's limit is tight for people working it (the
# very slowest are people who parked the page, who take whatever time they are given, and say nothing of it)
NEAR_LIMIT = 0.5


TIMED_OUT = "SELECT count(*) AS n FROM platform_submissions WHERE campaign = ? AND status = 'TIMED-OUT'"


def rehearsal_time_lines(rows: Callable[[str, list[Any]], list[dict[str, Any]]] | None, cfg: CampaignConfig,
                         platform: str, campaign: str) -> list[str]:
    """The plan's times and pay against what the campaign's accepted work took (its median and slowest), and
    where the plan would time people out or, on Prolific, pay under its floor by the median; [] before any."""
    times = [float(r["s"]) for r in rows(ACCEPTED_TIMES, [campaign])] if rows else []
    if rows is None or not times:
        return []
    median, slowest, tail = statistics.median(times) / 60, times[-1] / 60, times[int(0.9 * (len(times) - 1))] / 60
    timed_out = sum(int(r["n"]) for r in rows(TIMED_OUT, [campaign]))
    head = f"times of {len(times)} accepted: median {median:.1f} min, slowest {slowest:.1f} min"
    if platform != "prolific":
        allowed = cfg.assignment_duration_s / 60
        lines = [f"{head}; {allowed:.0f} min allowed ([campaign] assignment_duration_s)"]
        return lines + ([f"warning: a tenth of the accepted took over {tail:.1f} of the {allowed:.0f} min allowed: "
                         f"a worker a little slower loses the work; raise assignment_duration_s to at least "
                         f"{60 * math.ceil(2 * tail)}"] if tail > NEAR_LIMIT * allowed else [])
    p = cfg.prolific
    lines = [f"{head}, {timed_out} timed out; the plan: estimated {p.estimated_minutes} min, maximum "
             f"{p.maximum_minutes} min, {p.reward} {p.currency} ({p.reward * 60 / p.estimated_minutes:.2f} "
             f"{p.currency}/hour by the estimate, {float(p.reward) * 60 / max(median, 1 / 60):.2f} by the median)"]
    if tail > NEAR_LIMIT * p.maximum_minutes:
        lines.append(f"warning: a tenth of the accepted took over {tail:.1f} of the {p.maximum_minutes} min Prolific "
                     f"allows: a participant a little slower is timed out unpaid; raise [prolific] maximum_minutes to "
                     f"at least {math.ceil(2 * tail)}")
    floor = PROLIFIC_MIN_HOURLY[p.currency]
    if float(p.reward) * 60 / max(median, 1 / 60) < float(floor):
        lines.append(f"warning: by the median the reward pays under Prolific's minimum of {floor} {p.currency}/hour "
                     f"(its estimated time is the median's); raise [prolific] reward to at least "
                     f"{math.ceil(float(floor) * median / 60 * 100) / 100:.2f} or estimated_minutes to "
                     f"{max(1, round(median))}")
    if abs(median - p.estimated_minutes) > 0.25 * p.estimated_minutes and round(median) != p.estimated_minutes:
        lines.append(f"note: the median is {median:.1f} min against the estimated {p.estimated_minutes}: set "
                     f"[prolific] estimated_minutes = {max(1, round(median))}")
    return lines
