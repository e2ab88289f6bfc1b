"""The control quiz on MTurk, judged by hitflow from each worker's qualification request as the task server judges
a first page's quiz (docs/how-to/control-items.md, "MTurk")."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from typing import Any

import pandas as pd

from flows.core.ledger.ledger_calls import LedgeredCall, ledgered_all
from flows.core.pages.mturk_forms import parse_answer_xml
from flows.core.run.run_context import Run
from flows.platforms.interface import GATE_BATCH
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.qualification_forms import build_quiz_form
from flows.platforms.mturk.qualifications import ledgered_qualification
from flows.platforms.quiz_record import FAILED, KEPT, stored_quiz
from postprocess.answers.control_items import control_scores, quiz_verdicts

ANSWERS = ["worker_id", "item_id", "field", "value"]


def quiz_qualification(run: Run) -> str:
    """The control quiz's qualification (created once), "" without a quiz or beside a qualification test."""
    quiz = stored_quiz(run.store, run.cfg.name)
    if not quiz or run.cfg.gating.qualification_key is not None:
        return ""
    name = f"hitflow-{run.cfg.name}-quiz"

    def create() -> str:
        return mturk.ensure_qualification_type(run.client, name, f"Questions of {run.cfg.title} whose answers are "
                                               "known; judged by the requester.", Test=build_quiz_form(quiz),
                                               TestDurationInSeconds=1800)

    return ledgered_qualification(run, name, "control quiz", create, {"Test": "<quiz>"})


def request_answers(requests: list[dict[str, Any]], key: pd.DataFrame, options: list[str] | None = None
                    ) -> pd.DataFrame:
    """Each request's answers as the control rules read them: a selection's identifier back to the page's option."""
    field = dict(zip(key["item_id"], key["field"], strict=True))
    answer = {str(a).strip().lower(): str(a) for a in [*(options or []), *key["answer"]]}
    rows = []
    for r in requests:
        try:
            given = parse_answer_xml(r.get("Answer") or "")
        except ET.ParseError:  # an answer that does not read is a quiz left unanswered
            given = {}
        rows += [[r["WorkerId"], item, name, answer.get(given.get(item, "").strip().lower(), given.get(item, ""))]
                 for item, name in field.items()]
    return pd.DataFrame(rows, columns=ANSWERS)


def judge_quiz_requests(run: Run) -> int:
    """Every waiting request to take the quiz judged, kept and answered (granted or refused); how many."""
    qual = quiz_qualification(run)
    if not qual:
        return 0
    requests = list(mturk.paginate(run.client, "list_qualification_requests", "QualificationRequests",
                                   QualificationTypeId=qual))
    if not requests:
        return 0
    record, campaign = stored_quiz(run.store, run.cfg.name), run.cfg.name
    key = pd.DataFrame(record["key"], columns=["item_id", "field", "answer"])
    mine = request_answers(requests, key, record.get("options") or [])
    before = run.store.frame("SELECT assignment_id AS worker_id, item_id, field, value FROM answers WHERE campaign = ? "
                             "AND assignment_id LIKE 'quiz%:%'", [campaign], ANSWERS)  # (instr is SQLite's alone)
    before["worker_id"] = before["worker_id"].astype(str).str.split(":", n=1).str[1]
    failed = quiz_verdicts(mine, pd.concat([before, mine], ignore_index=True), record)
    with run.store.transaction():  # a failed taker's answers judge the file's items, never the taker again
        run.store.insert_raw("answers", [{"campaign": campaign, "item_id": r.item_id, "field": r.field,
                                          "value": r.value, "assignment_id": (FAILED if r.worker_id in failed else
                                                                              KEPT) + r.worker_id}
                                         for r in mine.itertuples(index=False)], "REPLACE")
    keep_scores(run, mine, key, failed)
    ledgered_all(run.store, campaign, GATE_BATCH, [answer_call(run, r, r["WorkerId"] not in failed)
                                                   for r in requests])
    run.progress(f"quiz: {len(requests)} taken, {sum(r['WorkerId'] in failed for r in requests)} failed")
    return len(requests)


def answer_call(run: Run, request: dict[str, Any], passed: bool) -> LedgeredCall:
    """Grant the quiz's qualification, or refuse it (the quiz is taken once: no retry delay)."""
    rid, verb = request["QualificationRequestId"], "Accept" if passed else "Reject"

    def send() -> dict[str, Any]:
        mturk.answer_qualification_request(run.client, rid, passed, "Your answers to the questions whose answers "
                                           "are known fell short of the task's mark.")
        return {"outcome": verb.lower() + "ed"}

    return LedgeredCall(f"{verb}QualificationRequest", f"{run.cfg.name}:quiz:{rid}", {"QualificationRequestId": rid},
                        send)


def keep_scores(run: Run, mine: pd.DataFrame, key: pd.DataFrame, failed: dict[str, str]) -> None:
    """Each taker's score, kept for the dataset's lineage as a qualification test's is."""
    scores = control_scores(mine, key).set_index("worker_id")
    now = time.time()
    with run.store.transaction():
        for worker in sorted(set(mine["worker_id"])):
            right = int(scores["correct"].get(worker, 0))
            run.store.table("qualification_scores").upsert(
                {"campaign": run.cfg.name, "worker_id": worker, "assignment_id": "", "mode": "control_quiz",
                 "answered": len(key), "correct": right, "score": round(100 * right / max(len(key), 1)),
                 "passed": int(worker not in failed), "granted": int(worker not in failed), "recorded_at": now},
                pk=("campaign", "worker_id"))
