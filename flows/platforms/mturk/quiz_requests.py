"""The control quiz on MTurk, judged by hitflow from each worker's qualification request."""

from __future__ import annotations

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
from flows.platforms.quiz_record import ANSWERS, keep_quiz, stored_quiz


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
    failed = keep_quiz(run, request_answers(requests, key, record.get("options") or []))
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
