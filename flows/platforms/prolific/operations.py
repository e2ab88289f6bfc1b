"""Prolific's side of reconcile and cancel, adopting only our own studies."""

from __future__ import annotations

import json
import time
from typing import Any

from flows.core.ledger.ledger_calls import LedgeredCall, adopt, ledgered
from flows.core.ledger.store import SETTLED
from flows.core.run.run_context import Run
from flows.core.site_secrets import completion_code, task_secret
from flows.platforms.interface import Review
from flows.platforms.operation_steps import UNDECIDED, each_call, finish_cancel
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific.batches import prolific_client, record_submissions, stop_study
from flows.platforms.prolific.extend import stop_key
from flows.platforms.prolific.statuses import FINISHED, PENDING

OPEN = ("ACTIVE", "PAUSED")


def _unsettled(run: Run, operation: str) -> list[dict[str, Any]]:
    return [e for e in run.store.rows("SELECT * FROM ledger WHERE campaign = ? AND operation = ?",
                                      [run.cfg.name, operation]) if e["status"] not in SETTLED]


def _internal_name(run: Run, batch: int) -> str:
    return f"{run.cfg.name} batch {batch}"


def _ours(run: Run, study: dict[str, Any], batch: int) -> bool:
    """A full study (``GET /studies/{id}/``) with the batch's internal name and this ledger's code."""
    code = completion_code(task_secret(run.store.location), run.cfg.name, batch)
    return study.get("internal_name") == _internal_name(run, batch) and \
        any(c.get("code") == code for c in study.get("completion_codes") or [])


def _find_ours(run: Run, listed: list[dict[str, Any]], batch: int) -> dict[str, Any] | None:
    """Our study among the candidates by internal name, known by its completion code (fetched whole)."""
    client = prolific_client(run)
    for item in listed:
        if item.get("internal_name") == _internal_name(run, batch):
            study = prolific.get_study(client, str(item["id"]))
            if _ours(run, study, batch):
                return study
    return None


def _adopt_study(run: Run, entry: dict[str, Any], study: dict[str, Any]) -> None:
    run.store.table("studies").upsert({"study_id": study["id"], "campaign": run.cfg.name, "batch": entry["batch"],
                                       "status": study["status"], "places": study["total_available_places"],
                                       "created_at": time.time()}, pk=("campaign", "study_id"))
    adopt(run.store, entry["idem_key"], {"id": study["id"]})


def reconcile(run: Run, dry_run: bool = False) -> dict[str, Any]:
    """Adopt the study a crashed run created (or published) without recording it; refresh the rest."""
    report: dict[str, Any] = {"adopted": [], "expired_strays": [], "fetched": 0, "refreshed": 0}
    created = _unsettled(run, "CreateStudy")
    studies = prolific.every_page(prolific_client(run), "studies/") if created else []
    for entry in created:
        found = _find_ours(run, studies, entry["batch"])
        if found:
            if not dry_run:
                _adopt_study(run, entry, found)
            report["adopted"].append(found["id"])
    for entry in _unsettled(run, "PublishStudy"):  # published, the answer lost: PUBLISH again is refused
        study_id = str(json.loads(entry["params"] or "{}").get("study_id", ""))
        status = prolific.get_study(prolific_client(run), study_id)["status"] if study_id else "UNPUBLISHED"
        if status != "UNPUBLISHED" and not dry_run:
            adopt(run.store, entry["idem_key"], {"status": status})
    if not dry_run:
        report["refreshed"] = refresh(run)
    run.progress(f"reconcile{' (dry run)' if dry_run else ''}: adopted {len(report['adopted'])} study(ies), "
                 f"refreshed the status of {report['refreshed']} stored submission(s) from Prolific")
    return report


def refresh(run: Run) -> int:
    """Prolific's current word on every study's submissions; how many stored statuses changed."""
    def statuses() -> dict[str, str]:
        return {r["submission_id"]: r["status"] for r in run.store.rows(
            "SELECT submission_id, status FROM platform_submissions WHERE campaign = ?", [run.cfg.name])}

    before = statuses()
    for study in run.store.rows("SELECT study_id, batch FROM studies WHERE campaign = ?", [run.cfg.name]):
        record_submissions(run, study["batch"], study["study_id"])
    return sum(before.get(sid) != status for sid, status in statuses().items() if sid in before)


def _open_studies(run: Run) -> list[dict[str, Any]]:
    rows = run.store.rows("SELECT study_id, batch FROM studies WHERE campaign = ?", [run.cfg.name])
    return [r for r in rows if prolific.get_study(prolific_client(run), r["study_id"])["status"] in OPEN]


def cancel_plan(run: Run) -> dict[str, Any]:
    undecided = run.store.rows(UNDECIDED, [run.cfg.name])
    report = {"would_stop": [s["study_id"] for s in _open_studies(run)], "would_review": undecided[0]["n"]}
    run.progress(f"cancel (dry run): would stop {len(report['would_stop'])} open study(ies) and review "
                 f"{report['would_review']} stored response(s)")
    return report


def _stop(run: Run, study: dict[str, Any]) -> int:
    """Stop one open study, once (the key collect_study, or the last adaptive round, stops it under)."""
    result = ledgered(run.store, run.cfg.name, study["batch"], LedgeredCall(
        "StopStudy", stop_key(run, study["batch"]), {"study_id": study["study_id"]},
        lambda: {"status": stop_study(run, study["study_id"])}))
    run.store.table("studies").update((run.cfg.name, study["study_id"]), {"status": result["status"]})
    return 1


def cancel(run: Run, review_undecided: Review) -> dict[str, Any]:
    """Stop every open study, store what came in, review it by policy. Safe to run twice."""
    errors: list[str] = []
    reconcile(run)
    stopped = sum(each_call(errors, f"stop {s['study_id']}", _stop, run, s) for s in _open_studies(run))
    studies = run.store.rows("SELECT study_id, batch FROM studies WHERE campaign = ?", [run.cfg.name])
    finished = working = 0
    for study in studies:
        subs = each_call(errors, f"fetch {study['study_id']}", record_submissions, run, study["batch"],
                         study["study_id"]) or []
        finished += sum(s["status"] in FINISHED for s in subs)
        working += sum(s["status"] in PENDING for s in subs)
    review_undecided(run, errors)
    # a participant still working when the study stopped may yet finish: their decision waits for that
    later = (f"; {working} participant(s) were still working: run `hitflow cancel` again once they finish, "
             "to decide their work") if working else ""
    finish_cancel(run, errors, f"cancel: {finished} finished submission(s) reviewed by the campaign's policy{later}")
    return {"closed": stopped, "stopped": stopped, "finished": finished, "still_working": working}
