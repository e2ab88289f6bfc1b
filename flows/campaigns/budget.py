"""Money up front: the campaign's whole estimate before the first post, and adaptive overlap's money."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from flows.core.config.money import CENT, Estimate, describe, to_budget_currency
from flows.core.errors import BudgetError
from flows.core.ledger.store import Store
from flows.core.run.run_context import PlatformClient, Run
from flows.platforms.registry import platform_for
from flows.platforms.unit_extensions import EXTENSION_OPS

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


def adaptive_saving(store: Store, name: str, info: dict[str, Any], unit: Decimal) -> dict[str, Any]:
    """Adaptive overlap: the assignments asked (posted + extensions) against fixed overlap's, and their cost."""
    fixed = int(info.get("fixed_overlap", 0))
    if not fixed:
        return {}
    units = posted_units(store, name)
    asked, full = units * int(info.get("assignments_per_image", 0)) + extra_assignments(store, name), units * fixed
    return {"asked": asked, "fixed": full, "cost": f"{unit * asked:.2f}", "fixed_cost": f"{unit * full:.2f}",
            "saving": f"{unit * (full - asked):.2f}", "share": round(asked / full, 3) if full else 0.0}


def extra_assignments(store: Store, name: str, batch: int | None = None) -> int:
    """Assignments the extensions the platform took added, of ``batch`` or of every batch."""
    where = "" if batch is None else " AND batch = ?"
    return sum(int(json.loads(r["params"] or "{}").get("NumberOfAdditionalAssignments", 1)) for r in store.rows(
        f"SELECT params FROM ledger WHERE campaign = ? AND operation IN ({','.join('?' * len(EXTENSION_OPS))}) "
        f"AND status IN ('ok', 'adopted'){where}", [name, *EXTENSION_OPS, *([] if batch is None else [batch])]))


def posted_units(store: Store, name: str) -> int:
    """Units posted: MTurk's HITs, or the task server's units of every published batch."""
    hits = int(store.table("hits").count_where("campaign = ? AND batch > 0", [name]))
    if hits:
        return hits
    return int(store.rows("SELECT count(*) AS n FROM (SELECT DISTINCT i.batch, i.hit_index FROM items i JOIN batches b "
                          "ON b.campaign = i.campaign AND b.batch = i.batch WHERE i.campaign = ? AND i.batch > 0 "
                          "AND b.status != 'planned') AS u", [name])[0]["n"])


def adaptive_line(a: dict[str, Any]) -> str:
    return (f"adaptive overlap: {a['asked']} assignments asked of fixed overlap's {a['fixed']} ({a['share']:.0%}): "
            f"${a['cost']} against ${a['fixed_cost']}, saving ${a['saving']}")
