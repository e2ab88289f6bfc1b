"""The dry run's lines on a unit's time and pay as the task kind plans them (flows/core/task_kinds.py): how
long a unit takes from its page's fields, where each Prolific figure comes from (the config's ``[prolific]``
or the page), and a warning where the time a worker is given is short for the page."""

from __future__ import annotations

import math
from collections import Counter

from flows.campaigns.task_kinds import kind_of
from flows.core.config.config import CampaignConfig
from flows.core.task_kinds import SLOW_FACTOR, prolific_min_maximum


def shortest_time(minutes: float) -> int:
    """The least time in minutes a worker should be given for a unit of ``minutes`` (the median): the slow
    ones take about SLOW_FACTOR times the median, and Prolific accepts no maximum under its own minimum."""
    return max(prolific_min_maximum(minutes), math.ceil(SLOW_FACTOR * minutes))


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
    return platform_for(platform).time_lines(cfg, said, minutes, shortest_time(minutes))
