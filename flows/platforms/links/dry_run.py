"""The invite links' dry run: who gets a link, and each round's units and responses; nobody is paid."""

from __future__ import annotations

from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.config.money import Estimate
from flows.core.run.run_context import Run
from flows.platforms.interface import Groups
from flows.platforms.plan_checks import live_plan, open_for

# A real run refuses what its dry run lists here (flows/platforms/links/platform.py gate_test).
NO_GATE_TEST = ("[gating] qualification_key: the qualification test runs as an MTurk HIT; invite links do not "
                "run it (invite the people you trust, or drop the key for this route)")

def links_plan(run: Run, groups: Groups, invitees: list[str]) -> dict[str, Any]:
    """Invite links: who gets a link, and each round's units and responses; nobody is paid."""
    problems: list[str] = []
    calls = links_calls(run.cfg, groups, invitees, problems)
    plan = live_plan(run, groups, calls, problems, Estimate(run.cfg.budget_currency), "invite links",
                      "invite rounds")
    return {**plan, "estimate": "no platform costs: invitees are not paid through a platform", "verb": "plan:"}


def links_calls(cfg: CampaignConfig, groups: Groups, invitees: list[str], problems: list[str]) -> list[str]:
    """The invite plan: who gets a link, how many units and responses each batch wants."""
    who = ", ".join(invitees) if invitees else "the names given with --invite (none yet)"
    calls = [f"invite links to {len(invitees)} people ({who}), signed with HITFLOW_TASK_SECRET or the ledger's "
             "secret, written to invites.csv; served by the running `hitflow serve` (--task-url)"]
    for batch in sorted({b for b, _ in groups}):
        units = sum(1 for b, _ in groups if b == batch)
        calls.append(f"batch {batch}: {units} unit(s) x {cfg.assignments_per_image} responses = "
                     f"{units * cfg.assignments_per_image} responses wanted; open until full or {open_for(cfg)} "
                     "have passed, then QC, decisions and blocks before the next batch opens to the same links")
    if cfg.gating.qualification_key is not None:
        problems.append(NO_GATE_TEST)
    if len(invitees) < cfg.assignments_per_image:
        problems.append(f"{len(invitees)} invitee(s) cannot give each unit {cfg.assignments_per_image} different "
                        "people's responses; invite more with --invite NAME")
    return calls
