"""The control quiz as a campaign stores it, and judged where a route asks it apart from any page."""

from __future__ import annotations

import time
from typing import Any

import pandas as pd

from flows.core.ledger.store import Store
from flows.core.run.run_context import Run
from postprocess.answers.control_items import control_scores, quiz_verdicts

KEPT, FAILED = "quiz:", "quiz-failed:"
ANSWERS = ["worker_id", "item_id", "field", "value"]


def stored_quiz(store: Store, campaign: str) -> dict[str, Any]:
    return store.recorded_config(campaign).get("quiz") or {}


def keep_quiz(run: Run, mine: pd.DataFrame) -> dict[str, str]:
    """The quiz judged on its takers' answers alone (``mine``), kept apart from any page (a failed taker's judge the
    file's items, never the taker again) with each taker's score; those who failed, with the rule's words."""
    record, campaign = stored_quiz(run.store, run.cfg.name), run.cfg.name
    key = pd.DataFrame(record["key"], columns=["item_id", "field", "answer"])
    before = run.store.frame("SELECT assignment_id AS worker_id, item_id, field, value FROM answers WHERE campaign = ? "
                             "AND assignment_id LIKE 'quiz%:%'", [campaign], ANSWERS)  # (instr is SQLite's alone)
    before["worker_id"] = before["worker_id"].astype(str).str.split(":", n=1).str[1]
    failed = quiz_verdicts(mine, pd.concat([before, mine], ignore_index=True), record)
    with run.store.transaction():
        run.store.insert_raw("answers", [{"campaign": campaign, "item_id": r.item_id, "field": r.field,
                                          "value": r.value, "assignment_id": (FAILED if r.worker_id in failed else
                                                                              KEPT) + r.worker_id}
                                         for r in mine.itertuples(index=False)], "REPLACE")
    keep_scores(run, mine, key, failed)
    return failed


def keep_scores(run: Run, mine: pd.DataFrame, key: pd.DataFrame, failed: dict[str, str]) -> None:
    """Each taker's score, kept for the dataset's lineage as a qualification test's is."""
    scores = control_scores(mine, key).set_index("worker_id")
    now = time.time()
    right = {w: int(scores["correct"].get(w, 0)) for w in sorted(set(mine["worker_id"]))}
    with run.store.transaction():  # one statement for all: a row's upsert reads the table's columns again
        run.store.table("qualification_scores").upsert_all(
            [{"campaign": run.cfg.name, "worker_id": worker, "assignment_id": "", "mode": "control_quiz",
              "answered": len(key), "correct": n, "score": round(100 * n / max(len(key), 1)),
              "passed": int(worker not in failed), "granted": int(worker not in failed), "recorded_at": now}
             for worker, n in right.items()], pk=("campaign", "worker_id"))
