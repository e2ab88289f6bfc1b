"""``--dry-run``: render every page, check it against the platform's limits, estimate the cost with
fees, and list exactly which calls a real run would make (HITs on MTurk, studies on Prolific,
invite rounds for links: each platform's ``dry_run`` is one of the plans here). Touches no
platform and no money."""

from __future__ import annotations

from collections import Counter, defaultdict
from decimal import Decimal
from typing import Any

from flows.campaigns.budget import Estimate, describe, mturk_estimate, prolific_estimate, to_budget_currency
from flows.campaigns.campaign_plan import (
    block_qualification_name,
    hit_token,
    item_plan,
    mturk_test_qualification_name,
    qualification_test_cost,
    score_qualification_name,
)
from flows.core.config import CampaignConfig
from flows.core.mturk_forms import MAX_QUESTION_BYTES, QuestionError, html_question, parse_question
from flows.core.run_context import Run
from flows.platforms.interface import Groups
from flows.platforms.mturk.batch_publish import hit_type_params, page_html
from flows.platforms.mturk.qualification_stage import test_page


def plan_calls(cfg: CampaignConfig, limit: int | None = None, scale: int = 1,
               platform: str = "mturk", invitees: tuple[str, ...] = ()) -> dict[str, Any]:
    """The calls, page sizes and cost of a campaign on ``platform``, computed offline (the
    estimate is the one a real run checks against the budget before its first post)."""
    from flows.platforms import platform_for

    run = Run(cfg, store=None, client=None, target=None, progress=lambda _: None, platform=platform)  # type: ignore[arg-type]
    groups: Groups = defaultdict(list)
    for row in item_plan(cfg, limit, scale):
        groups[(row["batch"], row["hit_index"])].append(row)
    return platform_for(platform).dry_run(run, groups, list(invitees))


def mturk_plan(run: Run, groups: Groups, invitees: list[str]) -> dict[str, Any]:
    """MTurk: the qualification types, one HIT type per batch, every HIT with its token and page size."""
    cfg = run.cfg
    calls = []
    if cfg.gating.block_mode == "soft":
        calls.append(f"CreateQualificationType Name={block_qualification_name(cfg)}")
    problems: list[str] = []
    calls += _qualification_calls(run, problems)
    largest = 0
    gate = "<test qualification id>" if cfg.gating.qualification_key is not None else ""
    for batch in sorted({b for b, _ in groups}):
        params = hit_type_params(run, "<soft-block qualification id>", gate)
        calls.append(f"CreateHITType batch={batch} Reward={params['Reward']} "
                     f"QualificationRequirements={len(params['QualificationRequirements'])}")
        for (b, index), items in sorted(groups.items()):
            if b != batch:
                continue
            question = html_question(page_html(run, items))
            size = len(question.encode())
            largest = max(largest, size)
            _check_question(question, f"batch {b} HIT {index}", problems)
            ids = [i["item_id"] for i in items]
            calls.append(f"CreateHITWithHITType batch={b} hit={index} MaxAssignments={cfg.assignments_per_image} "
                         f"UniqueRequestToken={hit_token(cfg, b, index, ids)} items={','.join(ids)} bytes={size}")
        calls.append(f"then per batch {batch}: ListAssignmentsForHIT (every page), Approve/RejectAssignment per "
                     "assignment, AssociateQualificationWithWorker per flagged worker")
    n_assignments = len(groups) * cfg.assignments_per_image
    estimate = mturk_estimate(cfg, dict(Counter(b for b, _ in groups)))
    cost = _priced(cfg, estimate, problems, "posting")
    return {"calls": calls, "hits": len(groups), "assignments": n_assignments, "cost": f"{cost:.2f}",
            "budget": f"{cfg.budget:.2f}", "largest_question_bytes": largest, "limit_bytes": MAX_QUESTION_BYTES,
            "problems": problems, "estimate": describe(cfg, estimate)}


def prolific_plan(run: Run, groups: Groups, invitees: list[str]) -> dict[str, Any]:
    """Prolific: one study per batch, its calls and its cost in the study's currency against the budget."""
    from flows.campaigns.dry_run_live import prolific_calls

    problems: list[str] = []
    calls = prolific_calls(run.cfg, groups, problems)
    estimate = prolific_estimate(run.cfg, dict(Counter(b for b, _ in groups)))
    plan = _live_plan(run, groups, calls, problems, estimate, "Prolific", "studies")
    return {**plan, "estimate": describe(run.cfg, estimate), "verb": "would call"}


def links_plan(run: Run, groups: Groups, invitees: list[str]) -> dict[str, Any]:
    """Invite links: who gets a link, and each round's units and responses; nobody is paid."""
    from flows.campaigns.dry_run_live import links_calls

    problems: list[str] = []
    calls = links_calls(run.cfg, groups, invitees, problems)
    plan = _live_plan(run, groups, calls, problems, Estimate(run.cfg.budget_currency), "invite links",
                      "invite rounds")
    return {**plan, "estimate": "no platform costs: invitees are not paid through a platform", "verb": "plan:"}


def _live_plan(run: Run, groups: Groups, calls: list[str], problems: list[str], estimate: Estimate, label: str,
               rounds: str) -> dict[str, Any]:
    """A route whose pages the task server serves: every page rendered, the cost against the budget."""
    cfg = run.cfg
    largest = max(len(page_html(run, items).encode()) for items in groups.values())
    cost = _priced(cfg, estimate, problems, "publishing")
    units, places = len(groups), len(groups) * cfg.assignments_per_image
    head = (f"dry run ({label}): {len({b for b, _ in groups})} {rounds}, {units} units, {places} places; "
            f"largest page {largest} bytes")
    return {"calls": calls, "hits": units, "assignments": places, "cost": f"{cost:.2f}",
            "budget": f"{cfg.budget:.2f}", "largest_question_bytes": largest, "limit_bytes": None,
            "problems": problems, "head": head}


def _qualification_calls(run: Run, problems: list[str]) -> list[str]:
    """The qualification test's calls: a scored Test type, or the paid test HIT and its grants."""
    g = run.cfg.gating
    if g.qualification_key is None:
        return []
    if g.qualification_mode == "mturk_test":
        return [f"CreateQualificationType Name={mturk_test_qualification_name(run.cfg)} "
                "Test=<40-question QuestionForm> "
                f"AnswerKey=<from {g.qualification_key.name}> RetryDelayInSeconds={g.qualification_retry_delay_s}"]
    question = html_question(test_page(run))
    _check_question(question, "qualification test page", problems)
    return [f"CreateQualificationType Name={score_qualification_name(run.cfg)} (value = test score)",
            f"CreateHITType batch=0 Reward={g.qualification_reward:.2f} (the qualification test)",
            f"CreateHITWithHITType batch=0 MaxAssignments={g.qualification_takers} bytes={len(question.encode())} "
            f"cost=${qualification_test_cost(run.cfg):.2f} with fees",
            "then: ListAssignmentsForHIT, score, AssociateQualificationWithWorker (value = score) per taker, "
            "ApproveAssignment per taker"]


def _check_question(question: str, where: str, problems: list[str]) -> None:
    """MTurk's own checks on a question (size, well-formed XML), as a problem line."""
    try:
        parse_question(question)
    except QuestionError as exc:
        problems.append(f"{where}: {exc}")


def _priced(cfg: CampaignConfig, estimate: Estimate, problems: list[str], verb: str) -> Decimal:
    """The estimate in the budget's currency; over the budget is a problem a real run stops on."""
    cost = to_budget_currency(cfg, estimate.total, estimate.currency)
    if cost > cfg.budget:
        problems.append(f"the estimate exceeds the budget by {cost - cfg.budget:.2f} {cfg.budget_currency}; "
                        f"a real run would stop with exit 6 before {verb} anything")
    return cost


def format_plan(plan: dict[str, Any]) -> str:
    head = [plan.get("head") or f"dry run: {plan['hits']} HITs, {plan['assignments']} assignments; largest page "
            f"{plan['largest_question_bytes']} of {plan['limit_bytes']} bytes", plan["estimate"]]
    tail = [f"PROBLEM: {p}" for p in plan["problems"]] or ["no problems found; nothing was sent anywhere"]
    return "\n".join(head + [f"  {plan.get('verb', 'would call')} {c}" for c in plan["calls"]] + tail)
