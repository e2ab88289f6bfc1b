"""The dry run's lines on a unit's time and pay as planned, and after a run against what its work took."""

from __future__ import annotations

import json
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
    return [*platform_for(platform).time_lines(cfg, said, minutes, least_maximum(minutes)),
            *stated_estimate_lines(cfg, platform)]


def stated_estimate_lines(cfg: CampaignConfig, platform: str) -> list[str]:
    """A warning where the config states a place's time (the reward follows it) under the page's own reading of
    a place: the participant is paid for what they are told."""
    from flows.platforms.registry import platform_facts

    p = cfg.prolific
    if not platform_facts(platform).WHOLE_MINUTES or "estimated_minutes" not in p.given:
        return []
    minutes = kind_of(cfg).plan(cfg).minutes
    if minutes <= 1.25 * p.estimated_minutes or max(1, round(minutes)) <= p.estimated_minutes:  # whole minutes
        return []
    return [f"warning: [prolific] estimated_minutes = {p.estimated_minutes}, but the page reads as about "
            f"{minutes:.1f} min for a place ({cfg.images_per_hit} items): a participant is told and paid for "
            f"{p.estimated_minutes}; remove estimated_minutes to take the page's, or state the median of a pilot"]


ACCEPTED_TIMES = ("SELECT a.submit_time - a.accept_time AS s, (SELECT count(DISTINCT n.item_id) FROM answers n "
                  "WHERE n.campaign = a.campaign AND n.assignment_id = a.assignment_id AND n.item_id != '') AS items "
                  "FROM assignments a "
                  "JOIN decisions d ON d.campaign = a.campaign AND d.assignment_id = a.assignment_id WHERE "
                  "a.campaign = ? AND d.action = 'approve' AND a.submit_time IS NOT NULL AND a.accept_time IS NOT NULL")
RAN_ON = "SELECT config_json FROM campaigns WHERE name = ?"
TIMED_OUT = "SELECT count(*) AS n FROM platform_submissions WHERE campaign = ? AND status = 'TIMED-OUT'"


def rehearsal_time_lines(rows: Callable[[str, list[Any]], list[dict[str, Any]]] | None, cfg: CampaignConfig,
                         platform: str, campaign: str) -> list[str]:
    """The plan's times and pay against what the accepted work took, in the platform's terms (``took_lines``);
    [] before any work. Times are read per item and scaled to this route's unit (units of other sizes); another
    route's slowest say nothing of this route's time limit (an MTurk HIT's clock runs while a worker parks it)."""
    from flows.platforms.registry import platform_for

    done = [(float(r["s"]), max(int(r["items"] or 0), 1)) for r in rows(ACCEPTED_TIMES, [campaign])] if rows else []
    if rows is None or not done:
        return []
    ran = {str(on) for r in rows(RAN_ON, [campaign]) if (on := json.loads(r["config_json"] or "{}").get("platform"))}
    elsewhere = ", ".join(sorted(ran - {platform}))
    k = cfg.images_per_hit
    times = sorted(s if n == k else s * k / n for s, n in done)
    median, tail = statistics.median(times) / 60, times[int(0.9 * (len(times) - 1))] / 60
    timed_out = sum(int(r["n"]) for r in rows(TIMED_OUT, [campaign]))
    scaled = sum(n != k for _, n in done)
    return [f"times of {len(times)} accepted" + (f" on {elsewhere}" if elsewhere else "") + f": median {median:.1f} "
            f"min, slowest {times[-1] / 60:.1f} min"
            + (f" (a unit of {k} items here; {scaled} held another number, scaled by the item)" if scaled else "")
            + (f", {timed_out} timed out" if timed_out else ""),
            *platform_for(platform).took_lines(cfg, median, 0.0 if elsewhere else tail)]
