"""Prolific's price of a campaign, by its calculator or its published fee rule."""

from __future__ import annotations

import math
from decimal import Decimal

from flows.core.config.config import CampaignConfig
from flows.core.config.money import Estimate, Quote, to_budget_currency
from flows.core.config.prolific_section import PROLIFIC_MIN_HOURLY
from flows.core.errors import BudgetError
from flows.core.run.run_context import PlatformClient
from flows.core.task_kinds import NEAR_LIMIT
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific.fees import cost_of
from flows.platforms.prolific.screening import screening_places


def prolific_estimate(cfg: CampaignConfig, units_per_batch: dict[int, int], client: PlatformClient = None
                      ) -> Estimate:
    """One study per batch, priced by Prolific's cost calculator (``client``) or its published rule."""
    reward = int(cfg.prolific.reward * 100)
    price: Quote = offline_prolific_quote
    if client is not None:
        assert isinstance(client, prolific.ProlificClient), "a Prolific estimate needs Prolific's client"
        prolific.check_currency(client, cfg.prolific.currency)  # before any figure in the config's money
        price = lambda reward, places: prolific.study_cost(client, reward, places)  # noqa: E731
    est = Estimate(cfg.prolific.currency)
    if cfg.prolific.screening is not None:  # the control quiz's own study, taken once by each screened participant
        places = screening_places([units * cfg.worst_per_hit_with_top_ups for units in units_per_batch.values()])
        est.parts.append((f"control quiz's screening study: {places} places, {cfg.prolific.screening[1]} min each",
                          Decimal(price(int(cfg.prolific.screening[0] * 100), places)) / 100))
    for batch, units in sorted(units_per_batch.items()):
        places = units * cfg.worst_per_hit_with_top_ups  # the worst case: every unit topped up to its cap
        est.parts.append((f"study {batch}: {places} places", Decimal(price(reward, places)) / 100))
    return est


def prolific_place_cost(cfg: CampaignConfig) -> str:
    """One place (reward + fee, Prolific's rule) in the budget's currency; "" without a rate (the budget check says)."""
    try:
        one = Decimal(offline_prolific_quote(int(cfg.prolific.reward * 100), 1)) / 100
        return str(to_budget_currency(cfg, one, cfg.prolific.currency))
    except BudgetError:
        return ""


def prolific_assignment_cost(cfg: CampaignConfig) -> Decimal:
    """:func:`prolific_place_cost` as a figure; 0 without a rate (``hitflow status`` then shows no money)."""
    return Decimal(prolific_place_cost(cfg) or "0.00")


def offline_prolific_quote(reward_minor: int, places: int) -> int:
    rewards, fees = cost_of(reward_minor, places)
    return rewards + fees


def time_lines(cfg: CampaignConfig, said: str, minutes: float, shortest: int) -> list[str]:
    """The dry run's figures and where each comes from; notes where the maximum or a whole minute is off ``minutes``."""
    p = cfg.prolific
    source = lambda key: "[prolific]" if key in p.given else "from the page"  # noqa: E731
    lines = [f"{said}; Prolific: reward {p.reward} {p.currency} ({source('reward')}), estimated "
             f"{p.estimated_minutes} min ({source('estimated_minutes')}), maximum {p.maximum_minutes} min "
             f"({source('maximum_minutes')})"]
    if p.maximum_minutes < shortest:
        lines.append(f"warning: [prolific] maximum_minutes = {p.maximum_minutes} is short for this page (about "
                     f"{minutes:.1f} min a unit): a participant slower than that is timed out and the work is "
                     f"lost; raise it to at least {shortest}")
    return lines


def took_lines(cfg: CampaignConfig, median: float, tail: float) -> list[str]:
    """A rehearsal against the study's figures: the maximum near the slow tail, pay by the median, an estimate off."""
    p, floor = cfg.prolific, PROLIFIC_MIN_HOURLY[cfg.prolific.currency]
    by_median = float(p.reward) * 60 / max(median, 1 / 60)
    lines = [f"the plan: estimated {p.estimated_minutes} min, maximum {p.maximum_minutes} min, {p.reward} "
             f"{p.currency} ({p.reward * 60 / p.estimated_minutes:.2f} {p.currency}/hour by the estimate, "
             f"{by_median:.2f} by the median)"]
    if tail > NEAR_LIMIT * p.maximum_minutes:
        lines.append(f"warning: a tenth of the accepted took over {tail:.1f} of the {p.maximum_minutes} min Prolific "
                     f"allows: a participant a little slower is timed out unpaid; raise [prolific] maximum_minutes to "
                     f"at least {math.ceil(2 * tail)}")
    if by_median < float(floor):
        lines.append(f"warning: by the median the reward pays under Prolific's minimum of {floor} {p.currency}/hour; "
                     f"raise [prolific] reward to at least {math.ceil(float(floor) * median / 60 * 100) / 100:.2f}")
    est, said = p.estimated_minutes, max(1, round(median))  # Prolific takes whole minutes, at least one
    if abs(median - est) > 0.25 * est:
        fix = f"set [prolific] estimated_minutes = {said}" if said != est else (
            f"no whole minute states it, and the reward pays {est / median:.1f} times its hourly rate")
        lines.append(f"note: the median is {median:.1f} min against the estimated {est}: {fix}")
    return lines
