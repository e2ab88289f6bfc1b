"""Prolific's dry run: one study per batch, its calls and cost; nothing is sent."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.config.money import describe
from flows.core.errors import BudgetError
from flows.core.run.run_context import Run
from flows.platforms.interface import Groups
from flows.platforms.plan_checks import live_plan, open_for
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific.estimate import offline_prolific_quote, prolific_estimate
from flows.platforms.prolific.screening import screening_places

# A real run refuses what its dry run lists here (flows/platforms/prolific/platform.py gate_test).
NO_GATE_TEST = ("[gating] qualification_key: the qualification test runs as an MTurk HIT; the Prolific route does "
                "not run it (screen with [prolific] filters, or drop the key for this route)")

def prolific_plan(run: Run, groups: Groups, invitees: list[str]) -> dict[str, Any]:
    """Prolific: one study per batch, its calls and its cost in the study's currency against the budget."""
    problems: list[str] = []
    calls = prolific_calls(run.cfg, groups, problems)
    estimate = prolific_estimate(run.cfg, dict(Counter(b for b, _ in groups)))
    plan = live_plan(run, groups, calls, problems, estimate, "Prolific", "studies")
    return {**plan, "estimate": describe(run.cfg, estimate), "verb": "would call"}


def prolific_calls(cfg: CampaignConfig, groups: Groups, problems: list[str]) -> list[str]:
    """The Prolific API calls a real run makes, in order, one study per batch."""
    p, reward = cfg.prolific, int(cfg.prolific.reward * 100)
    try:
        hourly = f"{prolific.check_hourly_pay(reward, p.estimated_minutes, p.currency)} {p.currency}/hour"
    except BudgetError as exc:
        problems.append(str(exc))
        hourly = "below Prolific's floor"
    if cfg.gating.qualification_key is not None:
        problems.append(NO_GATE_TEST)
    calls = ["GET workspaces/ (the default workspace)",
             f"GET participant-groups/, then POST participant-groups/ name=hitflow-{cfg.name}-blocked (once)",
             *screening_calls(cfg, groups)]
    admitted = ",allowlist=screened" if p.screening else ""
    for batch in sorted({b for b, _ in groups}):
        places = sum(1 for b, _ in groups if b == batch) * cfg.assignments_per_image
        cost = Decimal(offline_prolific_quote(reward, places)) / 100
        calls += [f"POST study-cost-calculator/ reward={reward} total_available_places={places} -> {cost:.2f} "
                  f"{p.currency} with fees",
                  f"POST studies/ internal_name='{cfg.name} batch {batch}' places={places} reward={p.reward} "
                  f"{p.currency} ({hourly} on {p.estimated_minutes} min, max {p.maximum_minutes} min) "
                  f"filters=approval_rate>={p.min_approval_rate},blocklist{admitted}",
                  f"POST studies/<id>/transition/ PUBLISH (batch {batch})",
                  f"then, batch {batch}: GET studies/<id>/submissions/ (every page) until full or "
                  f"{open_for(cfg)} have passed (a live run leaves and comes back, exit 9), "
                  "POST studies/<id>/transition/ STOP, POST submissions/bulk-approve/, POST "
                  "submissions/<id>/transition/ REJECT per rejection, POST participant-groups/<id>/participants/ "
                  "for flagged participants"]
        if cfg.answers.adaptive:  # rounds of more places, each a PATCH with the study's new total
            calls.append(f"then, batch {batch}, up to {cfg.answers.max_judgements - cfg.answers.min_judgements} "
                         "round(s): PATCH studies/<id>/ total_available_places=<more, one a still-uncertain unit>, "
                         "the same collection, STOP and decisions")
    return calls


def screening_calls(cfg: CampaignConfig, groups: Groups) -> list[str]:
    """The control quiz's screening study, before any batch's (screening.py); none without a quiz."""
    if cfg.prolific.screening is None:
        return []
    (reward, minutes, most), name = cfg.prolific.screening, cfg.name
    places = screening_places([n * cfg.assignments_per_image for n in Counter(b for b, _ in groups).values()])
    cost = Decimal(offline_prolific_quote(int(reward * 100), places)) / 100
    return [f"POST participant-groups/ name=hitflow-{name}-screened (once)",
            f"POST study-cost-calculator/ reward={int(reward * 100)} total_available_places={places} -> {cost:.2f} "
            f"{cfg.prolific.currency} with fees (the control quiz's screening study, once a screened participant)",
            f"POST studies/ internal_name='{name} batch 0' places={places} reward={reward} {cfg.prolific.currency} "
            f"(the control quiz alone, {minutes} min, max {most} min), PUBLISH, its submissions until full or "
            f"{open_for(cfg)} have passed, STOP, POST submissions/bulk-approve/ (every finished taker: one who fails "
            "did the work too), POST participant-groups/<id>/participants/ for those who pass"]
