"""MTurk's dry run: qualification types, HIT types, every HIT checked, the cost; touches nothing."""

from __future__ import annotations

from collections import Counter
from typing import Any

from flows.core.config.money import describe
from flows.core.pages.mturk_forms import MAX_QUESTION_BYTES, QuestionError, html_question, parse_question
from flows.core.run.run_context import Run
from flows.platforms.interface import Groups
from flows.platforms.mturk.batch_publish import hit_type_params
from flows.platforms.mturk.estimate import mturk_estimate
from flows.platforms.mturk.qualification_stage import test_page
from flows.platforms.mturk.qualifications import (
    block_qualification_name,
    mturk_test_qualification_name,
    qualification_test_cost,
    score_qualification_name,
)
from flows.platforms.plan_checks import priced
from flows.platforms.plan_pages import planned_pages
from flows.platforms.units import hit_token


def mturk_plan(run: Run, groups: Groups, invitees: list[str]) -> dict[str, Any]:
    """MTurk: the qualification types, one HIT type per batch, every HIT with its token and page size."""
    cfg = run.cfg
    calls = []
    if cfg.gating.block_mode == "soft":
        calls.append(f"CreateQualificationType Name={block_qualification_name(cfg)}")
    problems: list[str] = []
    calls += _qualification_calls(run, problems)
    largest = 0
    gate = ("<test qualification id>", cfg.gating.qualification_min_score) if cfg.gating.qualification_key else ("", 0)
    for batch in sorted({b for b, _ in groups}):
        params = hit_type_params(run, "<soft-block qualification id>", gate)
        calls.append(f"CreateHITType batch={batch} Reward={params['Reward']} "
                     f"QualificationRequirements={len(params['QualificationRequirements'])}")
        for page in planned_pages(run, sorted((k, v) for k, v in groups.items() if k[0] == batch)):
            (b, index), items = page.key, page.items
            question = html_question(page.html)
            size = len(question.encode())
            largest = max(largest, size)
            _check_question(question, f"batch {b} HIT {index}", problems, size if page.checked_xml else None)
            ids = [i["item_id"] for i in items]
            calls.append(f"CreateHITWithHITType batch={b} hit={index} MaxAssignments={cfg.assignments_per_image} "
                         f"UniqueRequestToken={hit_token(cfg, b, index, ids)} items={','.join(ids)} bytes={size}")
        calls.append(f"then per batch {batch}: ListAssignmentsForHIT (every page), Approve/RejectAssignment per "
                     "assignment, AssociateQualificationWithWorker per flagged worker")
    n_assignments = len(groups) * cfg.assignments_per_image
    estimate = mturk_estimate(cfg, dict(Counter(b for b, _ in groups)))
    cost = priced(cfg, estimate, problems, "posting")
    return {"calls": calls, "hits": len(groups), "assignments": n_assignments, "cost": f"{cost:.2f}",
            "budget": f"{cfg.budget:.2f}", "largest_question_bytes": largest, "limit_bytes": MAX_QUESTION_BYTES,
            "problems": problems, "estimate": describe(cfg, estimate)}


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


def _check_question(question: str, where: str, problems: list[str], size: int | None = None) -> None:
    """MTurk's own checks on a question (size, well-formed XML) as a problem line; ``size``: only its size."""
    try:
        if size is None:
            parse_question(question)
        elif size > MAX_QUESTION_BYTES:
            raise QuestionError(f"Question is {size} bytes; the limit is {MAX_QUESTION_BYTES}")
    except QuestionError as exc:
        problems.append(f"{where}: {exc}")
