"""What a look at a Prolific study stores."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flows.core.run.run_context import Run
from flows.platforms.prolific.statuses import UNPAID

NOT_ON_PROLIFIC = "NOT ON PROLIFIC"  # a stored response whose session Prolific does not know
AUTO_APPROVAL_S = 21 * 86400


def _epoch(value: str | None) -> float | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() if value else None


# what a look at a study can change about a stored submission (its row and its response's times follow it)
SUBMISSION_STATE = ("submission_id", "status", "started_at", "completed_at", "has_response")
RESPONSE_STATE = ("status", "accept_time", "submit_time", "auto_approval_time")


def store_submissions(run: Run, batch: int, study_id: str, subs: list[dict[str, Any]]) -> None:
    """Store every submission's state; give stored responses Prolific's start and finish times."""
    stored = {r["assignment_id"]: r for r in run.store.rows(
        f"SELECT assignment_id, {', '.join(RESPONSE_STATE)} FROM assignments WHERE campaign = ? AND batch = ?",
        [run.cfg.name, batch])}
    known = {r["submission_id"]: r for r in run.store.rows(
        f"SELECT {', '.join(SUBMISSION_STATE)} FROM platform_submissions WHERE campaign = ? AND study_id = ?",
        [run.cfg.name, study_id])}
    with run.store.transaction():
        for s in subs:
            row = {"submission_id": s["id"], "campaign": run.cfg.name, "batch": batch, "study_id": study_id,
                   "participant_id": s["participant_id"], "status": s["status"], "started_at": _epoch(s["started_at"]),
                   "completed_at": _epoch(s.get("completed_at")), "has_response": int(s["id"] in stored)}
            done = _epoch(s.get("completed_at"))
            times = {"status": s["status"], "accept_time": row["started_at"], "submit_time": done or row["started_at"],
                     "auto_approval_time": done + AUTO_APPROVAL_S if done else None}
            # as stored at an earlier look: nothing to write (each poll used to rewrite every row of the study)
            same = s["id"] in known and all(known[s["id"]][k] == row[k] for k in SUBMISSION_STATE)
            if same and (s["id"] not in stored or all(stored[s["id"]][k] == v for k, v in times.items())):
                continue
            run.store.table("platform_submissions").upsert(row, pk=("campaign", "submission_id"))
            if s["id"] in stored:
                run.store.table("assignments").update((run.cfg.name, s["id"]), times)
            if s["status"] in UNPAID:  # its unit may go to someone else
                run.store.execute("UPDATE task_sessions SET released = 1 WHERE campaign = ? AND session_id = ?",
                                  [run.cfg.name, s["id"]])
            elif s["id"] in stored:  # listed after all (stored just after an earlier look): its work holds its unit
                run.store.execute("UPDATE task_sessions SET released = 0 WHERE campaign = ? AND session_id = ? "
                                  "AND released = 1", [run.cfg.name, s["id"]])
        _mark_unknown_sessions(run, batch, study_id, {s["id"] for s in subs})


def _mark_unknown_sessions(run: Run, batch: int, study_id: str, known: set[str]) -> None:
    """Responses for a SESSION_ID Prolific never reported are kept but left out of everything."""
    stored = run.store.rows("SELECT assignment_id FROM assignments WHERE campaign = ? AND batch = ? AND hit_id LIKE ? "
                            "AND status != ?", [run.cfg.name, batch, f"{study_id}:%", NOT_ON_PROLIFIC])
    for row in stored:
        if row["assignment_id"] not in known:
            run.store.execute("UPDATE assignments SET status = ? WHERE campaign = ? AND assignment_id = ?",
                              [NOT_ON_PROLIFIC, run.cfg.name, row["assignment_id"]])
            run.store.execute("UPDATE task_sessions SET released = 1 WHERE campaign = ? AND session_id = ?",
                              [run.cfg.name, row["assignment_id"]])
