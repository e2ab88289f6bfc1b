"""``--dry-run``: render every page, check it against the platform's limits, estimate the cost with
fees, and list exactly which calls a real run would make (HITs on MTurk, studies on Prolific,
invite rounds for links: each platform's ``dry_run``, platforms/<name>/dry_run.py). Touches no
platform and no money."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from flows.campaigns.campaign_plan import item_plan
from flows.campaigns.task_pages import task_page
from flows.core.config.config import CampaignConfig
from flows.core.run.run_context import Run
from flows.platforms.interface import Groups
from flows.platforms.registry import platform_for


def plan_calls(cfg: CampaignConfig, limit: int | None = None, scale: int = 1,
               platform: str = "mturk", invitees: tuple[str, ...] = ()) -> dict[str, Any]:
    """The calls, page sizes and cost of a campaign on ``platform``, computed offline (the
    estimate is the one a real run checks against the budget before its first post)."""
    run = Run(cfg, store=None, client=None, target=None, progress=lambda _: None,  # type: ignore[arg-type]
              platform=platform, page=task_page)
    groups: Groups = defaultdict(list)
    for row in item_plan(cfg, limit, scale):
        groups[(row["batch"], row["hit_index"])].append(row)
    return platform_for(platform).dry_run(run, groups, list(invitees))


def format_plan(plan: dict[str, Any], page_lines: list[str] | None = None) -> str:
    """The plan, then what the dry run read of the page (``page_lines``, a custom page's fields and
    rules), then the verdict last: every PROBLEM (the plan's and the page's), or that there is none."""
    head = [plan.get("head") or f"dry run: {plan['hits']} HITs, {plan['assignments']} assignments; largest page "
            f"{plan['largest_question_bytes']} of {plan['limit_bytes']} bytes", plan["estimate"]]
    page = [line for line in page_lines or [] if not line.startswith("PROBLEM")]
    problems = [f"PROBLEM: {p}" for p in plan["problems"]] + [line for line in page_lines or []
                                                               if line.startswith("PROBLEM")]
    tail = problems or ["no problems found; nothing was sent anywhere"]
    return "\n".join(head + [f"  {plan.get('verb', 'would call')} {c}" for c in plan["calls"]] + page + tail)
