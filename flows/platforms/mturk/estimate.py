"""MTurk's price of a campaign: reward plus MTurk's fee per assignment, plus the paid test."""

from __future__ import annotations

from flows.core.config.config import CampaignConfig
from flows.core.config.money import Estimate
from flows.core.run.run_context import PlatformClient
from flows.platforms.mturk.qualifications import cost_per_assignment, qualification_test_cost


def mturk_estimate(cfg: CampaignConfig, units_per_batch: dict[int, int], client: PlatformClient = None) -> Estimate:
    """Reward plus MTurk's fee per assignment, for every HIT, plus the paid qualification test."""
    # the worst case: adaptive overlap's max_judgements everywhere, or every caption top-up round bought
    unit = cost_per_assignment(cfg) * cfg.worst_per_hit_with_top_ups
    est = Estimate("USD", [(f"batch {b}: {n} HITs", unit * n) for b, n in sorted(units_per_batch.items())])
    if qualification_test_cost(cfg):
        est.parts.append(("qualification test", qualification_test_cost(cfg)))
    return est
