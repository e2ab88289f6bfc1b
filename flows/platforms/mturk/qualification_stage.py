"""The qualification stage before a gated campaign's first batch (``html_hit`` or ``mturk_test``)."""

from __future__ import annotations

import json
import time
from typing import Any

import pandas as pd

from flows.core.config.config import CampaignConfig
from flows.core.errors import BudgetError
from flows.core.inputs.answer_key import load_key
from flows.core.inputs.csv_files import read_csv_table
from flows.core.ledger.ledger_calls import Adopted, LedgeredCall, ledgered, ledgered_all
from flows.core.ledger.store import SETTLED
from flows.core.pages.mturk_forms import html_question
from flows.core.pages.templates import render
from flows.core.run.run_context import Run
from flows.platforms.interface import GATE_BATCH, Step
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.batch_collect import collect_batch
from flows.platforms.mturk.decisions import verdict_call
from flows.platforms.mturk.hit_owner import planned, post_hit
from flows.platforms.mturk.qualifications import (
    block_qualification,
    gating_requirements,
    qualification_test_cost,
    requester_qualification,
    score_qualification_name,
    scored_test_qualification,
)
from flows.platforms.mturk.quiz_requests import quiz_qualification
from flows.platforms.units import hit_token
from qc.qualification import score_answers

SCORE_COLUMNS = ["worker_id", "answered", "correct", "score", "spelling_score", "grammar_score",
                 "judging_score", "passed"]


def pays_a_test_hit(cfg: CampaignConfig) -> bool:
    return cfg.gating.qualification_key is not None and cfg.gating.qualification_mode == "html_hit"


def gate_test(cfg: CampaignConfig) -> Step | None:
    """The paid test HIT (``html_hit``) as the step before the first batch; ``mturk_test`` needs none."""
    return qualify_workers if pays_a_test_hit(cfg) else None


def gate_qualification(run: Run) -> tuple[str, int]:
    """The qualification the campaign's HITs require, and the score they require of it (("", 0) when ungated)."""
    if pays_a_test_hit(run.cfg):
        return score_qualification(run), run.cfg.gating.qualification_min_score
    if test := scored_test_qualification(run):
        return test, run.cfg.gating.qualification_min_score
    return (quiz, 1) if (quiz := quiz_qualification(run)) else ("", 0)  # granted to those who pass it


def score_qualification(run: Run) -> str:
    """hitflow's own qualification type whose value is the worker's test score."""
    return requester_qualification(run, score_qualification_name(run.cfg), "test score", "Score (percent) on the "
                                   f"qualification test of {run.cfg.name}, granted by the requester.")


def test_items(run: Run) -> list[dict[str, Any]]:
    """The key's items in order, each judging item with the campaign's image for it."""
    g = run.cfg.gating
    assert g.qualification_key is not None
    images: dict[str, str] = {}
    if g.qualification_images is not None:
        rows = read_csv_table(g.qualification_images, ("item_id", "url"), "the qualification images").rows
        images = {r["item_id"]: r["url"] for r in rows}
    key = load_key(g.qualification_key)
    return [{"index": i, "item_id": r.item_id, "section": r.section, "text": getattr(r, "text", r.item_id),
             "text_2": getattr(r, "text_2", ""), "image_url": images.get(r.item_id, "")}
            for i, r in enumerate(key.itertuples())]


def test_page(run: Run) -> str:
    context = {"title": f"Qualification test for {run.cfg.title}", "pass_score": run.cfg.gating.qualification_min_score,
               "rules": {"min_words": 0, "one_sentence": False, "max_chars": None, "required": False,
                         "canned_text": "", "banned_prefixes": []},
               "items": test_items(run)}
    return render("qualification.html.j2", context)


def _test_hit_type(run: Run, score_qual: str) -> str:
    cfg, g = run.cfg, run.cfg.gating
    block_qual = block_qualification(run) if g.block_mode == "soft" else ""
    retake_guard = {"QualificationTypeId": score_qual, "Comparator": "DoesNotExist",
                    "ActionsGuarded": "DiscoverPreviewAndAccept"}  # one attempt per worker
    reqs = [*gating_requirements(cfg, block_qual), retake_guard]
    params = {"Title": f"Qualification test: {cfg.title}", "Description": "Spelling, grammar and judging image "
              "descriptions (40 short questions); passing opens the description HITs.",
              "Keywords": cfg.keywords + ", qualification", "Reward": f"{g.qualification_reward:.2f}",
              "AssignmentDurationInSeconds": 1800, "AutoApprovalDelayInSeconds": cfg.auto_approval_delay_s,
              "QualificationRequirements": reqs}
    call = LedgeredCall("CreateHITType", f"{cfg.name}:b{GATE_BATCH}:hittype", params,
                        lambda: {"HITTypeId": mturk.create_hit_type(run.client, params)})
    return str(ledgered(run.store, cfg.name, GATE_BATCH, call)["HITTypeId"])


def post_test(run: Run, score_qual: str) -> str:
    """The one test HIT (ledgered, so a resumed run never posts it twice)."""
    cfg = run.cfg
    key = f"{cfg.name}:b{GATE_BATCH}:h0"
    params = {"MaxAssignments": cfg.gating.qualification_takers, "LifetimeInSeconds": cfg.hit_lifetime_s,
              "RequesterAnnotation": key, "Question": html_question(test_page(run))}
    entry = run.store.ledger_entry(key)
    if (entry is None or entry["status"] not in SETTLED) and qualification_test_cost(cfg) > cfg.budget:
        raise BudgetError(f"the qualification test HIT would commit ${qualification_test_cost(cfg):.2f} against a "
                          f"budget of ${cfg.budget:.2f}; lower [gating].qualification_takers or raise the budget")
    item_ids = [i["item_id"] for i in test_items(run)]
    token, since = hit_token(cfg, GATE_BATCH, 0, item_ids), planned(run)

    def post() -> dict[str, Any]:
        hit_id, was_dup = post_hit(run.client, since, _test_hit_type(run, score_qual), params, token)
        with run.store.transaction():
            run.store.table("hits").upsert({"hit_id": hit_id, "campaign": cfg.name, "batch": GATE_BATCH,
                                            "hit_index": 0, "token": token, "item_ids": json.dumps(item_ids),
                                            "created_at": time.time(), "status": "posted"}, pk=("campaign", "hit_id"))
        run.progress(f"qualification: test HIT posted for {cfg.gating.qualification_takers} takers, "
                     f"estimate ${qualification_test_cost(cfg):.2f} with fees")
        return Adopted(HITId=hit_id) if was_dup else {"HITId": hit_id}

    return str(ledgered(run.store, cfg.name, GATE_BATCH,
                        LedgeredCall("CreateHITWithHITType", key, params, post))["HITId"])


def test_answers(run: Run) -> pd.DataFrame:
    """``worker_id, item_id, answer`` from the stored test submissions (blank when left out)."""
    rows = run.store.rows(
        "SELECT a.worker_id, n.item_id, n.value AS answer FROM assignments a JOIN answers n "
        "ON n.campaign = a.campaign AND n.assignment_id = a.assignment_id WHERE a.campaign = ? AND a.batch = ? AND "
        "n.field = 'answer'",
        [run.cfg.name, GATE_BATCH])
    return pd.DataFrame(rows, columns=["worker_id", "item_id", "answer"])


def score_and_grant(run: Run, score_qual: str) -> pd.DataFrame:
    """Score every taker, store the scores in one transaction, then grant each score once."""
    cfg, g = run.cfg, run.cfg.gating
    assert g.qualification_key is not None
    answers = test_answers(run)
    submitted = run.store.rows("SELECT worker_id, assignment_id FROM assignments WHERE campaign = ? AND batch = ?",
                               [cfg.name, GATE_BATCH])
    takers = pd.DataFrame(submitted, columns=["worker_id", "assignment_id"])
    # A taker who answered nothing still gets a row (score 0): unanswered items count as wrong.
    padded = pd.concat([answers, takers.assign(item_id="", answer="")[["worker_id", "item_id", "answer"]]])
    scores, problems = score_answers(padded, load_key(g.qualification_key), g.qualification_min_score)
    problems = problems[problems["item_id"] != ""]
    scores = scores.merge(takers, on="worker_id", how="left")
    _store_scores(run, scores, problems, "html_hit")
    for row in scores.itertuples():
        _grant_once(run, score_qual, str(row.worker_id), int(row.score))
    return scores


def _store_scores(run: Run, scores: pd.DataFrame, problems: pd.DataFrame, mode: str) -> None:
    now = time.time()
    with run.store.transaction():
        for r in scores.to_dict("records"):
            run.store.table("qualification_scores").upsert(
                {**{c: r.get(c) for c in SCORE_COLUMNS}, "campaign": run.cfg.name, "mode": mode,
                 "assignment_id": r.get("assignment_id", ""), "passed": int(bool(r["passed"])),
                 "granted": int(r["score"]), "recorded_at": now}, pk=("campaign", "worker_id"))
        run.store.execute("DELETE FROM qualification_problems WHERE campaign = ?", [run.cfg.name])
        run.store.table("qualification_problems").insert_all(
            [{**p, "campaign": run.cfg.name} for p in problems.astype(str).to_dict("records")])


def _grant_once(run: Run, qual_id: str, worker_id: str, value: int) -> None:
    def grant() -> dict[str, Any]:
        mturk.grant_qualification(run.client, qual_id, worker_id, value)
        return {"IntegerValue": value}

    ledgered(run.store, run.cfg.name, GATE_BATCH, LedgeredCall(
        "AssociateQualificationWithWorker", f"{run.cfg.name}:grant:{qual_id}:{worker_id}",
        {"QualificationTypeId": qual_id, "WorkerId": worker_id, "IntegerValue": value}, grant))


def pay_takers(run: Run) -> int:
    """Approve every test submission that carried answers: the test is paid work, pass or fail."""
    rows = run.store.rows("SELECT assignment_id, parse_error FROM assignments WHERE campaign = ? AND batch = ?",
                          [run.cfg.name, GATE_BATCH])
    calls = [verdict_call(run, "reject" if r["parse_error"] else "approve", r["assignment_id"],
                          "The answers could not be read.") for r in rows]
    approvals = {c.key for c in calls if c.operation == "ApproveAssignment"}
    before = {k for k in approvals if (e := run.store.ledger_entry(k)) and e["status"] in SETTLED}
    ledgered_all(run.store, run.cfg.name, GATE_BATCH, calls)
    return len(approvals - before)


def qualify_workers(run: Run, batch: int = GATE_BATCH) -> dict[str, Any]:
    """The whole stage: post the test, collect it, score, grant, pay. Idempotent step by step."""
    if not pays_a_test_hit(run.cfg):
        return {"mode": run.cfg.gating.qualification_mode if run.cfg.gating.qualification_key else "none"}
    score_qual = score_qualification(run)
    post_test(run, score_qual)
    collected = collect_batch(run, GATE_BATCH, per_hit=run.cfg.gating.qualification_takers)
    scores = score_and_grant(run, score_qual)
    paid = pay_takers(run)
    passed = int(scores["passed"].sum())
    run.progress(f"qualification: {len(scores)} took the test, {passed} passed "
                 f"(>= {run.cfg.gating.qualification_min_score}%), {paid} paid")
    return {"takers": len(scores), "passed": passed, "paid": paid, "assignments": collected["assignments"]}


def record_test_scores(run: Run) -> int:
    """The MTurk-scored test's scores (``mturk_test``), stored for the dataset's lineage; 0 without one."""
    return record_native_scores(run, scored_test_qualification(run), run.cfg.gating.qualification_min_score)


def record_native_scores(run: Run, test_qual: str, threshold: int) -> int:
    """The MTurk-scored qualification test: read the granted values back so the dataset's lineage can carry them."""
    if not test_qual:
        return 0
    quals = list(mturk.paginate(run.client, "list_workers_with_qualification_type", "Qualifications",
                                QualificationTypeId=test_qual, Status="Granted"))
    scores = pd.DataFrame([{"worker_id": q["WorkerId"], "answered": None, "correct": None,
                            "score": float(q.get("IntegerValue", 0)), "spelling_score": None,
                            "grammar_score": None, "judging_score": None,
                            "passed": int(q.get("IntegerValue", 0)) >= threshold} for q in quals],
                          columns=SCORE_COLUMNS)
    _store_scores(run, scores, pd.DataFrame(columns=["worker_id", "item_id", "answer", "problem"]), "mturk_test")
    return len(scores)
