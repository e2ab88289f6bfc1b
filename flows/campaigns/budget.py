"""Money up front: the campaign's whole estimate, in the budget's currency, before the first post."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from flows.core.config.money import CENT, Estimate, describe, to_budget_currency
from flows.core.errors import BudgetError
from flows.core.ledger.store import Store
from flows.core.run.run_context import PlatformClient, Run
from flows.platforms.registry import platform_for

if TYPE_CHECKING:  # a type here: `hitflow status` reads money without loading the config (~0.4 s)
    from flows.core.config.config import CampaignConfig


def campaign_estimate(cfg: CampaignConfig, units_per_batch: dict[int, int], platform: str = "mturk",
                      client: PlatformClient = None) -> Estimate:
    """Every batch's cost with fees (and the test's), in the platform's currency (``client``: its own calculator)."""
    return platform_for(platform).estimate(cfg, units_per_batch, client)


def qualification_money(store: Store, campaign: str, planned: Decimal, takers: int) -> tuple[Decimal, Decimal]:
    """(committed, spent) of the paid qualification test HIT."""
    if not planned or not takers:
        return Decimal("0.00"), Decimal("0.00")
    posted = store.table("hits").count_where("campaign = ? AND batch = 0", [campaign])
    paid = store.table("ledger").count_where("campaign = ? AND batch = 0 AND operation = 'ApproveAssignment' "
                                             "AND status IN ('ok', 'adopted')", [campaign])
    return (planned if posted else Decimal("0.00")), (planned / takers * paid).quantize(CENT)


def check_campaign_budget(run: Run) -> None:
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
