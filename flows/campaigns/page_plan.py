"""The dry run's lines on a unit's time and pay as the task kind plans them (flows/core/task_kinds.py): how
long a unit takes from its page's fields, where each Prolific figure comes from (the config's ``[prolific]``
or the page), and a warning where the time a worker is given is short for the page; after a run (or a rehearsal),
the same figures against what its accepted work took."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable
from typing import Any

from flows.campaigns.task_kinds import kind_of
from flows.core.config.config import CampaignConfig
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
    """The plan's time and pay lines for ``platform``, in its own terms (its ``time_lines``)."""
    from flows.platforms.registry import platform_for

    said, minutes = unit_line(cfg)
    return platform_for(platform).time_lines(cfg, said, minutes, least_maximum(minutes))


ACCEPTED_TIMES = ("SELECT a.submit_time - a.accept_time AS s FROM assignments a JOIN decisions d ON d.campaign = "
                  "a.campaign AND d.assignment_id = a.assignment_id WHERE a.campaign = ? AND d.action = 'approve' "
                  "AND a.submit_time IS NOT NULL AND a.accept_time IS NOT NULL ORDER BY s")
TIMED_OUT = "SELECT count(*) AS n FROM platform_submissions WHERE campaign = ? AND status = 'TIMED-OUT'"


def rehearsal_time_lines(rows: Callable[[str, list[Any]], list[dict[str, Any]]] | None, cfg: CampaignConfig,
                         platform: str, campaign: str) -> list[str]:
    """The plan's times and pay against what the accepted work took (median, slowest, the slowest tenth), in
    the platform's terms (``took_lines``); [] before any work."""
    from flows.platforms.registry import platform_for

    times = [float(r["s"]) for r in rows(ACCEPTED_TIMES, [campaign])] if rows else []
    if rows is None or not times:
        return []
    median, tail = statistics.median(times) / 60, times[int(0.9 * (len(times) - 1))] / 60
    timed_out = sum(int(r["n"]) for r in rows(TIMED_OUT, [campaign]))
    return [f"times of {len(times)} accepted: median {median:.1f} min, slowest {times[-1] / 60:.1f} min"
            + (f", {timed_out} timed out" if timed_out else ""), *platform_for(platform).took_lines(cfg, median, tail)]
