"""Money every layer speaks: a platform's estimate and the budget's currency."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from flows.core.errors import BudgetError

if TYPE_CHECKING:  # a type here: `hitflow status` reads money without loading the config (~0.4 s)
    from flows.core.config.config import CampaignConfig

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


def describe(cfg: CampaignConfig, est: Estimate) -> str:
    """One line: the estimate, its conversion, the budget, and the headroom or shortfall."""
    if not est.parts:
        return (f"campaign estimate: nothing is paid through hitflow (no rewards or fees to price), "
                f"budget {cfg.budget:.2f} {cfg.budget_currency} untouched")
    in_budget = to_budget_currency(cfg, est.total, est.currency)
    converted = "" if est.currency == cfg.budget_currency else \
        f" = {in_budget:.2f} {cfg.budget_currency} at {cfg.fx_rates[est.currency]}"
    gap = cfg.budget - in_budget
    verdict = f"{gap:.2f} to spare" if gap >= 0 else f"SHORT by {-gap:.2f} {cfg.budget_currency}"
    return (f"campaign estimate {est.total:.2f} {est.currency}{converted} with fees over {len(est.parts)} "
            f"part(s), budget {cfg.budget:.2f} {cfg.budget_currency}: {verdict}")
