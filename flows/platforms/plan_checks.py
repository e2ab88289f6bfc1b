"""What every platform's dry run shares: the cost against the budget, a served route's plan; sends nothing."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.config.money import Estimate, to_budget_currency
from flows.core.run.run_context import Run
from flows.platforms.batch_window import span
from flows.platforms.interface import Groups
from flows.platforms.plan_pages import planned_pages


def live_plan(run: Run, groups: Groups, calls: list[str], problems: list[str], estimate: Estimate, label: str,
               rounds: str) -> dict[str, Any]:
    """A route whose pages the task server serves: every page rendered, the cost against the budget."""
    cfg = run.cfg
    largest = max(len(page.html.encode()) for page in planned_pages(run, groups.items()))
    cost = priced(cfg, estimate, problems, "publishing")
    units, places = len(groups), len(groups) * cfg.assignments_per_image
    head = (f"dry run ({label}): {len({b for b, _ in groups})} {rounds}, {units} units, {places} places; "
            f"largest page {largest} bytes")
    return {"calls": calls, "hits": units, "assignments": places, "cost": f"{cost:.2f}",
            "budget": f"{cfg.budget:.2f}", "largest_question_bytes": largest, "limit_bytes": None,
            "problems": problems, "head": head}


def priced(cfg: CampaignConfig, estimate: Estimate, problems: list[str], verb: str) -> Decimal:
    """The estimate in the budget's currency; over the budget is a problem a real run stops on."""
    cost = to_budget_currency(cfg, estimate.total, estimate.currency)
    if cost > cfg.budget:
        problems.append(f"the estimate exceeds the budget by {cost - cfg.budget:.2f} {cfg.budget_currency}; "
                        f"a real run would stop with exit 6 before {verb} anything")
    return cost


def open_for(cfg: CampaignConfig) -> str:
    return span(cfg.batch_open_s or cfg.hit_lifetime_s)
