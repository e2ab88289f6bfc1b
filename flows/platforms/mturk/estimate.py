"""MTurk's price of a campaign: reward plus MTurk's fee per assignment, plus the paid test."""

from __future__ import annotations

import math
from decimal import Decimal

from flows.core.config.config import CampaignConfig
from flows.core.config.money import Estimate
from flows.core.run.run_context import PlatformClient
from flows.core.task_kinds import NEAR_LIMIT
from flows.platforms.mturk.qualifications import cost_per_assignment, qualification_test_cost

US_MINIMUM_HOURLY = Decimal("7.25")  # the US federal minimum wage since 2009-07-24 (29 U.S.C. 206(a)(1)(C))


def mturk_estimate(cfg: CampaignConfig, units_per_batch: dict[int, int], client: PlatformClient = None) -> Estimate:
    """Reward plus MTurk's fee per assignment, for every HIT, plus the paid qualification test."""
    # the worst case: adaptive overlap's max_judgements everywhere, or every caption top-up round bought
    unit = cost_per_assignment(cfg) * cfg.worst_per_hit_with_top_ups
    est = Estimate("USD", [(f"batch {b}: {n} HITs", unit * n) for b, n in sorted(units_per_batch.items())])
    if qualification_test_cost(cfg):
        est.parts.append(("qualification test", qualification_test_cost(cfg)))
    return est


def time_lines(cfg: CampaignConfig, said: str, minutes: float, shortest: int) -> list[str]:
    """The dry run's pay and time line, warning where the time is short for the page (``shortest`` minutes)."""
    hourly = float(cfg.reward) * 60 / max(minutes, 1 / 60)
    lines = [f"{said}; MTurk: reward {cfg.reward} USD a HIT (about {hourly:.2f} USD an hour), "
             f"{cfg.assignment_duration_s} s to finish it"]
    if hourly < float(US_MINIMUM_HOURLY):
        least = math.ceil(float(US_MINIMUM_HOURLY) * minutes / 60 * 100) / 100
        lines.append(f"warning: about {hourly:.2f} USD an hour is under the US federal minimum wage of "
                     f"{US_MINIMUM_HOURLY} USD; raise reward_usd to at least {least:.2f} for about {minutes:.1f} min")
    if cfg.assignment_duration_s < 60 * shortest:
        lines.append(f"warning: [timing] assignment_duration_s = {cfg.assignment_duration_s} is short for this "
                     f"page (about {minutes:.1f} min a HIT): a slower worker's HIT expires unsubmitted; raise it "
                     f"to at least {60 * shortest}")
    return lines


def took_lines(cfg: CampaignConfig, median: float, tail: float) -> list[str]:
    """A rehearsal against the time a worker has: a tenth of the accepted work over half of it is too close."""
    allowed = cfg.assignment_duration_s / 60
    if tail <= NEAR_LIMIT * allowed:
        return [f"the plan: {allowed:.0f} min to finish a HIT ([timing] assignment_duration_s)"]
    return [f"warning: a tenth of the accepted work took over {tail:.1f} of the {allowed:.0f} min a worker has: a "
            f"worker a little slower loses the HIT; raise [timing] assignment_duration_s to at least "
            f"{60 * math.ceil(2 * tail)}"]
