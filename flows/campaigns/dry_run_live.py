"""``--dry-run`` on the live routes: Prolific's calls and its costs, and the links' invite plan.

Nothing is sent. Prolific's cost is its published fee rule (a third of rewards, as its cost
calculator applies it; the real run asks the calculator itself), in the study's currency and
converted to the budget's; the hourly floor is checked on the estimated time.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from flows.core.config import CampaignConfig
from flows.core.errors import BudgetError

Groups = dict[tuple[int, int], list[dict[str, Any]]]


def prolific_calls(cfg: CampaignConfig, groups: Groups, problems: list[str]) -> list[str]:
    """The Prolific API calls a real run makes, in order, one study per batch."""
    from flows.campaigns.budget import offline_prolific_quote
    from flows.platforms.prolific import adapter as prolific

    p, reward = cfg.prolific, int(cfg.prolific.reward * 100)
    try:
        hourly = f"{prolific.check_hourly_pay(reward, p.estimated_minutes, p.currency)} {p.currency}/hour"
    except BudgetError as exc:
        problems.append(str(exc))
        hourly = "below Prolific's floor"
    if cfg.gating.qualification_key is not None:
        problems.append("[gating] qualification_key: the qualification test runs as an MTurk HIT; the Prolific "
                        "route does not run it (screen with [prolific] filters, or drop the key for this route)")
    calls = ["GET workspaces/ (the default workspace)",
             f"GET participant-groups/, then POST participant-groups/ name=hitflow-{cfg.name}-blocked (once)"]
    for batch in sorted({b for b, _ in groups}):
        places = sum(1 for b, _ in groups if b == batch) * cfg.assignments_per_image
        cost = Decimal(offline_prolific_quote(reward, places)) / 100
        calls += [f"POST study-cost-calculator/ reward={reward} total_available_places={places} -> {cost:.2f} "
                  f"{p.currency} with fees",
                  f"POST studies/ internal_name='{cfg.name} batch {batch}' places={places} reward={p.reward} "
                  f"{p.currency} ({hourly} on {p.estimated_minutes} min, max {p.maximum_minutes} min) "
                  f"filters=approval_rate>={p.min_approval_rate},blocklist",
                  f"POST studies/<id>/transition/ PUBLISH (batch {batch})",
                  f"then, batch {batch}: GET studies/<id>/submissions/ (every page) until full or "
                  f"{_open_for(cfg)} have passed (a live run leaves and comes back, exit 9), "
                  "POST studies/<id>/transition/ STOP, POST submissions/bulk-approve/, POST "
                  "submissions/<id>/transition/ REJECT per rejection, POST participant-groups/<id>/participants/ "
                  "for flagged participants"]
    return calls


def links_calls(cfg: CampaignConfig, groups: Groups, invitees: list[str], problems: list[str]) -> list[str]:
    """The invite plan: who gets a link, how many units and responses each batch wants."""
    who = ", ".join(invitees) if invitees else "the names given with --invite (none yet)"
    calls = [f"invite links to {len(invitees)} people ({who}), signed with HITFLOW_TASK_SECRET or the ledger's "
             "secret, written to invites.csv; served by the running `hitflow serve` (--task-url)"]
    for batch in sorted({b for b, _ in groups}):
        units = sum(1 for b, _ in groups if b == batch)
        calls.append(f"batch {batch}: {units} unit(s) x {cfg.assignments_per_image} responses = "
                     f"{units * cfg.assignments_per_image} responses wanted; open until full or {_open_for(cfg)} "
                     "have passed, then QC, decisions and blocks before the next batch opens to the same links")
    if len(invitees) < cfg.assignments_per_image:
        problems.append(f"{len(invitees)} invitee(s) cannot give each unit {cfg.assignments_per_image} different "
                        "people's responses; invite more with --invite NAME")
    return calls


def _open_for(cfg: CampaignConfig) -> str:
    from flows.platforms.batch_window import span

    return span(cfg.batch_open_s or cfg.hit_lifetime_s)
