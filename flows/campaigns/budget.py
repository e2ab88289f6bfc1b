"""Money up front: the whole campaign's estimate, in the budget's currency, before the first post.

Every batch (MTurk: reward + MTurk's fees per assignment; Prolific: its own cost calculator per
study), plus the paid qualification test. A cost in another currency than the budget's needs
``[campaign] fx_rates``; without a rate it is refused, never compared as if it were the same money.
The per-batch guards (campaign_plan.check_budget, prolific_batches.publish_study) stay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from flows.campaigns.campaign_plan import cost_per_assignment, qualification_test_cost
from flows.core.config import CampaignConfig
from flows.core.errors import BudgetError
from flows.core.run_context import PlatformClient, Run
from flows.core.store import Store
from flows.platforms.prolific.fees import cost_of

Quote = Callable[[int, int], int]  # (reward in minor units, places) -> total with fees in minor units
CENT = Decimal("0.01")


@dataclass
class Estimate:
    currency: str  # what the platform charges in
    parts: list[tuple[str, Decimal]] = field(default_factory=list)  # (what, cost in ``currency``)

    @property
    def total(self) -> Decimal:
        return sum((cost for _, cost in self.parts), Decimal("0.00"))


def to_budget_currency(cfg: CampaignConfig, amount: Decimal, currency: str) -> Decimal:
    """``amount`` of ``currency`` in the budget's currency, by the config's rate; refused without one."""
    if currency == cfg.budget_currency:
        return amount
    rate = cfg.fx_rates.get(currency)
    if rate is None:
        raise BudgetError(f"costs are in {currency} but the budget is {cfg.budget:.2f} {cfg.budget_currency}; "
                          f"add a rate, e.g. [campaign] fx_rates = {{{currency} = \"1.27\"}} ({cfg.budget_currency} "
                          f"per {currency}), or state the budget in {currency}")
    return (amount * rate).quantize(CENT)


def campaign_estimate(cfg: CampaignConfig, units_per_batch: dict[int, int], platform: str = "mturk",
                      client: PlatformClient = None) -> Estimate:
    """Every batch's cost with fees (and the qualification test's), in the platform's currency.

    ``client``: ask the platform's own calculator (Prolific's); without one (a dry run) its
    published fee rule is used."""
    from flows.platforms import platform_for

    return platform_for(platform).estimate(cfg, units_per_batch, client)


def mturk_estimate(cfg: CampaignConfig, units_per_batch: dict[int, int], client: PlatformClient = None) -> Estimate:
    """Reward plus MTurk's fee per assignment, for every HIT, plus the paid qualification test."""
    unit = cost_per_assignment(cfg) * cfg.assignments_per_image
    est = Estimate("USD", [(f"batch {b}: {n} HITs", unit * n) for b, n in sorted(units_per_batch.items())])
    if qualification_test_cost(cfg):
        est.parts.append(("qualification test", qualification_test_cost(cfg)))
    return est


def prolific_estimate(cfg: CampaignConfig, units_per_batch: dict[int, int], client: PlatformClient = None
                      ) -> Estimate:
    """One study per batch, priced by Prolific's cost calculator (``client``) or its published rule."""
    reward = int(cfg.prolific.reward * 100)
    price: Quote = offline_prolific_quote
    if client is not None:
        from flows.platforms.prolific import adapter as prolific

        assert isinstance(client, prolific.ProlificClient), "a Prolific estimate needs Prolific's client"
        prolific.check_currency(client, cfg.prolific.currency)  # before any figure in the config's money
        price = lambda reward, places: prolific.study_cost(client, reward, places)  # noqa: E731
    est = Estimate(cfg.prolific.currency)
    for batch, units in sorted(units_per_batch.items()):
        places = units * cfg.assignments_per_image
        est.parts.append((f"study {batch}: {places} places", Decimal(price(reward, places)) / 100))
    return est


def prolific_place_cost(cfg: CampaignConfig) -> str:
    """One Prolific place (reward + fee, Prolific's published rule) in the budget's currency, for
    ``hitflow status``; "" without a rate (the budget check then says what to add)."""
    try:
        one = Decimal(offline_prolific_quote(int(cfg.prolific.reward * 100), 1)) / 100
        return str(to_budget_currency(cfg, one, cfg.prolific.currency))
    except BudgetError:
        return ""


def offline_prolific_quote(reward_minor: int, places: int) -> int:
    rewards, fees = cost_of(reward_minor, places)
    return rewards + fees


def describe(cfg: CampaignConfig, est: Estimate) -> str:
    """One line: the estimate, its conversion, the budget, and the headroom or shortfall."""
    in_budget = to_budget_currency(cfg, est.total, est.currency)
    converted = "" if est.currency == cfg.budget_currency else \
        f" = {in_budget:.2f} {cfg.budget_currency} at {cfg.fx_rates[est.currency]}"
    gap = cfg.budget - in_budget
    verdict = f"{gap:.2f} to spare" if gap >= 0 else f"SHORT by {-gap:.2f} {cfg.budget_currency}"
    return (f"campaign estimate {est.total:.2f} {est.currency}{converted} with fees over {len(est.parts)} "
            f"part(s), budget {cfg.budget:.2f} {cfg.budget_currency}: {verdict}")


def qualification_money(store: Store, campaign: str, planned: Decimal, takers: int) -> tuple[Decimal, Decimal]:
    """(committed, spent) of the paid qualification test HIT: its whole planned cost once it is
    posted, and the per-taker share (reward + fees) of every taker approved so far."""
    if not planned or not takers:
        return Decimal("0.00"), Decimal("0.00")
    posted = store.table("hits").count_where("campaign = ? AND batch = 0", [campaign])
    paid = store.table("ledger").count_where("campaign = ? AND batch = 0 AND operation = 'ApproveAssignment' "
                                             "AND status IN ('ok', 'adopted')", [campaign])
    return (planned if posted else Decimal("0.00")), (planned / takers * paid).quantize(CENT)


def check_campaign_budget(run: Run) -> Estimate:
    """Refuse (exit 6) before anything is posted when the whole campaign does not fit the budget."""
    cfg = run.cfg
    rows = run.store.rows("SELECT batch, count(DISTINCT hit_index) AS n FROM items WHERE campaign = ? "
                          "GROUP BY batch", [cfg.name])
    est = campaign_estimate(cfg, {r["batch"]: r["n"] for r in rows}, run.platform, run.client)
    line = describe(cfg, est)
    if to_budget_currency(cfg, est.total, est.currency) > cfg.budget:
        raise BudgetError(f"{line}; nothing was posted. Raise [campaign].budget, lower the reward or "
                          "assignments, or run fewer items (--limit N)")
    run.progress(line)
    return est
