"""``--dry-run``: render every page, check it against MTurk's limits, estimate the cost with
fees, and list exactly which calls a real run would make. Touches no platform and no money."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from flows.batch_publish import hit_type_params, page_html
from flows.campaign_plan import Run, cost_per_assignment, hit_token, item_plan
from flows.config import CampaignConfig
from flows.sim.forms import MAX_QUESTION_BYTES, QuestionError, html_question, parse_question


def plan_calls(cfg: CampaignConfig, limit: int | None = None, scale: int = 1) -> dict[str, Any]:
    """The calls, page sizes and cost of a campaign, computed offline."""
    run = Run(cfg, store=None, client=None, target=None, progress=lambda _: None)  # type: ignore[arg-type]
    groups: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for row in item_plan(cfg, limit, scale):
        groups[(row["batch"], row["hit_index"])].append(row)
    calls = []
    if cfg.gating.block_mode == "soft":
        calls.append(f"CreateQualificationType Name={cfg.gating.soft_block_qualification or cfg.name + '-blocked'}")
    problems, largest = [], 0
    for batch in sorted({b for b, _ in groups}):
        params = hit_type_params(run, "<soft-block qualification id>")
        calls.append(f"CreateHITType batch={batch} Reward={params['Reward']} "
                     f"QualificationRequirements={len(params['QualificationRequirements'])}")
        for (b, index), items in sorted(groups.items()):
            if b != batch:
                continue
            question = html_question(page_html(run, items))
            size = len(question.encode())
            largest = max(largest, size)
            try:
                parse_question(question)
            except QuestionError as exc:
                problems.append(f"batch {b} HIT {index}: {exc}")
            ids = [i["item_id"] for i in items]
            calls.append(f"CreateHITWithHITType batch={b} hit={index} MaxAssignments={cfg.assignments_per_image} "
                         f"UniqueRequestToken={hit_token(cfg, b, index, ids)} items={','.join(ids)} bytes={size}")
        calls.append(f"then per batch {batch}: ListAssignmentsForHIT (every page), Approve/RejectAssignment per "
                     "assignment, AssociateQualificationWithWorker per flagged worker")
    n_assignments = len(groups) * cfg.assignments_per_image
    cost = cost_per_assignment(cfg) * n_assignments
    if cost > cfg.budget:
        problems.append(f"estimated ${cost:.2f} exceeds the budget of ${cfg.budget:.2f}")
    return {"calls": calls, "hits": len(groups), "assignments": n_assignments, "cost": f"{cost:.2f}",
            "budget": f"{cfg.budget:.2f}", "largest_question_bytes": largest, "limit_bytes": MAX_QUESTION_BYTES,
            "problems": problems}


def format_plan(plan: dict[str, Any]) -> str:
    head = [f"dry run: {plan['hits']} HITs, {plan['assignments']} assignments, estimated ${plan['cost']} with fees "
            f"(budget ${plan['budget']}); largest page {plan['largest_question_bytes']} of "
            f"{plan['limit_bytes']} bytes"]
    tail = [f"PROBLEM: {p}" for p in plan["problems"]] or ["no problems found; nothing was sent anywhere"]
    return "\n".join(head + [f"  would call {c}" for c in plan["calls"]] + tail)
