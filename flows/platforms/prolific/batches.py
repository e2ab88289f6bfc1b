"""The batch steps on Prolific: one study per batch on hitflow's task server."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any

from flows.core.config.money import to_budget_currency
from flows.core.errors import BudgetError, PlatformError
from flows.core.ledger.ledger_calls import LedgeredCall, ledgered
from flows.core.ledger.store import SETTLED
from flows.core.run.run_context import Run
from flows.core.site_secrets import completion_code, task_secret
from flows.platforms.batch_window import closes_now, record_unfilled
from flows.platforms.interface import GATE_BATCH
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific.grounds import ground_category, ground_message, rejection_evidence
from flows.platforms.prolific.statuses import (
    PENDING,
    SPELLINGS,
    UNPAID,
    bulk_approve_key,
    place_counts,
    rejection_message,
)
from flows.platforms.prolific.submission_records import store_submissions
from flows.platforms.units import hit_groups

MAX_POLL_S = 6 * 3600
# Prolific approves what awaits review after 21 days: the review gate stops waiting before that.


def prolific_client(run: Run) -> prolific.ProlificClient:
    """The run's client, which on this route is Prolific's (a run opened for another platform is refused)."""
    if not isinstance(run.client, prolific.ProlificClient):
        raise PlatformError(f"{run.cfg.name} runs on {run.platform}, not Prolific: its session has no Prolific client")
    return run.client


def _ledgered(run: Run, batch: int, operation: str, key: str, params: dict[str, Any],
              send: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    return ledgered(run.store, run.cfg.name, batch, LedgeredCall(operation, key, params, send))


def blocklist_group(run: Run) -> str:
    """The campaign's participant group every study excludes (created even while empty)."""
    def create() -> dict[str, str]:
        client = prolific_client(run)
        name = f"hitflow-{run.cfg.name}-blocked"
        return {"id": prolific.ensure_group(client, prolific.default_workspace(client), name)}

    return str(_ledgered(run, 0, "CreateParticipantGroup", f"{run.cfg.name}:prolific:blocklist", {}, create)["id"])


def study_body(run: Run, batch: int, places: int, group: str, admitted: str = "") -> dict[str, Any]:
    cfg, p = run.cfg, run.cfg.prolific
    url = (f"{run.notes['task_url']}/task/{cfg.name}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
           f"&STUDY_ID={{{{%STUDY_ID%}}}}&SESSION_ID={{{{%SESSION_ID%}}}}")
    secret = task_secret(run.store.location)
    filters: list[dict[str, Any]] = [
        {"filter_id": "approval_rate", "selected_range": {"lower": p.min_approval_rate, "upper": 100}},
        {"filter_id": "participant_group_blocklist", "selected_values": [group]}]
    if admitted:  # those who passed the control quiz's screening study alone (screening.py)
        filters.append({"filter_id": "participant_group_allowlist", "selected_values": [admitted]})
    if p.min_approvals:
        filters.append({"filter_id": "approval_numbers", "selected_range": {"lower": p.min_approvals}})
    return {"name": cfg.title, "internal_name": f"{cfg.name} batch {batch}", "description": cfg.description,
            "external_study_url": url, "prolific_id_option": "url_parameters",
            "completion_codes": [{"code": completion_code(secret, cfg.name, batch), "code_type": "COMPLETED",
                                  "actions": [{"action": "MANUALLY_REVIEW"}]}],
            "total_available_places": places, "estimated_completion_time": p.estimated_minutes,
            "maximum_allowed_time": p.maximum_minutes, "reward": int(p.reward * 100),
            "device_compatibility": list(p.device_compatibility), "filters": filters}


def _committed(run: Run, batch: int) -> int:
    """Places of the campaign's other studies still counted against the budget (released ones are not)."""
    rows = run.store.rows("SELECT places, released FROM studies WHERE campaign = ? AND batch != ? AND batch > 0",
                          [run.cfg.name, batch])
    return sum(int(r["places"]) - int(r["released"] or 0) for r in rows)


def _screening_cost(run: Run, batch: int) -> Decimal:
    """The quiz's screening study's places still committed, at its own reward (none for itself)."""
    screening = run.cfg.prolific.screening
    if screening is None or batch == GATE_BATCH:
        return Decimal(0)
    rows = run.store.rows("SELECT places, released FROM studies WHERE campaign = ? AND batch = ?",
                          [run.cfg.name, GATE_BATCH])
    if not rows:
        return Decimal(0)
    places = int(rows[0]["places"]) - int(rows[0]["released"] or 0)
    return Decimal(prolific.study_cost(prolific_client(run), int(screening[0] * 100), places)) / 100


def publish_study(run: Run, batch: int, admitted: str = "") -> dict[str, Any]:
    """The batch's study, only ``admitted``'s members let in where a group is named."""
    return post_study(run, batch, len(hit_groups(run, batch)) * run.cfg.assignments_per_image, admitted)


def post_study(run: Run, batch: int, places: int, admitted: str) -> dict[str, Any]:
    cfg = run.cfg
    reward = int(cfg.prolific.reward * 100)
    prolific.check_currency(prolific_client(run), cfg.prolific.currency)  # before any money is estimated
    hourly = prolific.check_hourly_pay(reward, cfg.prolific.estimated_minutes, cfg.prolific.currency)
    cost = Decimal(prolific.study_cost(prolific_client(run), reward, places + _committed(run, batch))) / 100 \
        + _screening_cost(run, batch)
    if to_budget_currency(cfg, cost, cfg.prolific.currency) > cfg.budget:
        raise BudgetError(f"batch {batch} would commit {cost:.2f} {cfg.prolific.currency} with Prolific's fees "
                          f"against a budget of {cfg.budget:.2f} {cfg.budget_currency}; raise [campaign].budget or "
                          "post fewer items")
    body = study_body(run, batch, places, blocklist_group(run), admitted)
    made = _ledgered(run, batch, "CreateStudy", f"{cfg.name}:b{batch}:study", {**body, "external_study_url": "<url>"},
                     lambda: {"id": prolific.create_study(prolific_client(run), body)})
    run.store.table("studies").upsert({"study_id": made["id"], "campaign": cfg.name, "batch": batch,
                                    "status": "UNPUBLISHED", "places": places, "created_at": time.time()},
                                   pk=("campaign", "study_id"))
    _current_link(run, batch, made["id"], body["external_study_url"])
    _ledgered(run, batch, "PublishStudy", f"{cfg.name}:b{batch}:publish", {"study_id": made["id"]},
              lambda: {"status": prolific.transition(prolific_client(run), made["id"], "PUBLISH")})
    run.store.table("studies").update((run.cfg.name, made["id"]), {"status": "ACTIVE"})
    what = f"batch {batch}" if batch != GATE_BATCH else "control quiz"
    run.progress(f"{what}: study {made['id']} published, {places} places at {cfg.prolific.reward} "
                 f"{cfg.prolific.currency} ({hourly}/hour), committed {cost:.2f} with fees")
    return {"study_id": made["id"], "places": places, "committed": str(cost)}


def _current_link(run: Run, batch: int, study_id: str, url: str) -> None:
    """A draft from an earlier run may point at a gone task server: this run's link goes in before publishing."""
    published = run.store.ledger_entry(f"{run.cfg.name}:b{batch}:publish")
    if published is not None and published["status"] in SETTLED:
        return
    study = prolific.get_study(prolific_client(run), study_id)
    if study["status"] == "UNPUBLISHED" and study.get("external_study_url") != url:
        digest = hashlib.sha256(url.encode()).hexdigest()[:12]
        _ledgered(run, batch, "UpdateStudy", f"{run.cfg.name}:b{batch}:link:{digest}",
                  {"study_id": study_id, "external_study_url": "<url>"},
                  lambda: {"status": str(prolific.call(prolific_client(run), "PATCH", f"studies/{study_id}/",
                                                       {"external_study_url": url})["status"])})


def record_submissions(run: Run, batch: int, study_id: str) -> list[dict[str, Any]]:
    """Every submission of the study as Prolific reports it now, stored (submission_records.py)."""
    subs = [{**s, "status": SPELLINGS.get(s["status"], s["status"])}
            for s in prolific.submissions(prolific_client(run), study_id)]
    store_submissions(run, batch, study_id, subs)
    return subs


def collect_study(run: Run, batch: int) -> dict[str, Any]:
    """Look until the study is full or its time is up, then stop it; unfilled places leave the budget."""
    study = run.store.rows("SELECT * FROM studies WHERE campaign = ? AND batch = ?", [run.cfg.name, batch])[0]
    interval = float(run.cfg.poll_interval_s)
    while True:
        subs = record_submissions(run, batch, study["study_id"])
        count = place_counts([s["status"] for s in subs])
        finished, pending = count["finished"], count["pending"]
        unpaid = f", {count['unpaid']} returned, timed out or screened out"
        if closes_now(run, batch, finished, study["places"], pending, unpaid):
            break
        interval = float(run.cfg.poll_interval_s) if pending else min(interval * 2, MAX_POLL_S)
        run.wait(interval)
    status = _ledgered(run, batch, "StopStudy", f"{run.cfg.name}:b{batch}:stop", {"study_id": study["study_id"]},
                       lambda: {"status": stop_study(run, study["study_id"])})
    subs = record_submissions(run, batch, study["study_id"])
    # Counted again after the stop: a participant may have finished between the last look and the stop.
    after = place_counts([s["status"] for s in subs])
    taken, finished = after["taken"], after["finished"]
    released = max(0, study["places"] - taken) if run.cfg.unfilled_places == "release" else 0
    run.store.table("studies").update((run.cfg.name, study["study_id"]),
                                      {"status": status["status"], "released": released})
    if released:
        run.progress(f"batch {batch}: {released} place(s) never filled, released from the committed budget")
    record_unfilled(run, batch, len(hit_groups(run, batch)), study["places"], finished)
    return {"submissions": len(subs), "finished": finished, "released": released,
            "unpaid": sum(s["status"] in UNPAID for s in subs)}


def stop_study(run: Run, study_id: str) -> str:
    client = prolific_client(run)
    current = prolific.get_study(client, study_id)["status"]
    return prolific.transition(client, study_id, "STOP") if current in ("ACTIVE", "PAUSED") else str(current)


def apply_decisions(run: Run, batch: int, decisions: list[dict[str, Any]]) -> dict[str, int]:
    """Approve in bulk, reject one by one, and leave unpaid what Prolific says was not finished."""
    status = {r["submission_id"]: r["status"] for r in run.store.rows(
        "SELECT submission_id, status FROM platform_submissions WHERE campaign = ? AND batch = ?",
        [run.cfg.name, batch])}
    study_id = run.store.rows("SELECT study_id FROM studies WHERE campaign = ? AND batch = ?",
                              [run.cfg.name, batch])[0]["study_id"]
    outcome: dict[str, str] = {}
    approvals = [d["assignment_id"] for d in decisions if d["action"] == "approve"
                 and status.get(d["assignment_id"]) == "AWAITING REVIEW"]
    def approve_all() -> dict[str, int]:
        prolific.approve(prolific_client(run), study_id, approvals)
        return {"approved": len(approvals)}

    def reject_one(sid: str, category: str, message: str) -> dict[str, bool]:
        prolific.reject(prolific_client(run), sid, category, message)
        return {"ok": True}

    if approvals:  # nothing to approve is no call: an empty set would get a ledger key of its own
        _ledgered(run, batch, "BulkApprove", bulk_approve_key(run.store, run.cfg.name, batch, approvals),
                  {"submission_ids": approvals}, approve_all)
    outcome.update(dict.fromkeys(approvals, "APPROVED"))
    for d in decisions:
        sid, state = d["assignment_id"], status.get(d["assignment_id"], "unknown")
        category = ground_category(str(d["reasons"]))
        if d["action"] == "reject" and state == "AWAITING REVIEW" and category is None:
            outcome[sid] = f"not sent: {d['reasons']} is no ground Prolific allows a rejection on; for a person"
        elif d["action"] == "reject" and state == "AWAITING REVIEW" and category is not None:
            message = ground_message(rejection_evidence(run, sid, str(d["reasons"])))
            _ledgered(run, batch, "RejectSubmission", f"{run.cfg.name}:reject:{sid}", {"category": category},
                      partial(reject_one, sid, category, message))
            outcome[sid] = "REJECTED"
        elif state not in ("AWAITING REVIEW", *PENDING) and sid not in outcome:  # a cancel's: PENDING waits, unsent
            outcome[sid] = f"not paid ({state})"
    with run.store.transaction():
        for sid, result in outcome.items():
            action = "unpaid" if result.startswith("not paid") else None
            run.store.table("decisions").update((run.cfg.name, sid),
                                                {"applied": result, **({"action": action} if action else {})})
    unanswered = settle_unanswered(run, batch, study_id)
    record_submissions(run, batch, study_id)  # the store ends with Prolific's final word on each
    return {"approved": len(approvals), "rejected": sum(v == "REJECTED" for v in outcome.values()),
            "unpaid": sum(v.startswith("not paid") for v in outcome.values()), "completed_without_response":
            unanswered}


def unanswered_decision(study_code: str | None, expected_code: str) -> tuple[str, str]:
    """Prolific's rules for a submission with no stored response: with our code NO_DATA, else ask a return."""
    if study_code == expected_code:
        return "reject", ("NO_DATA: completed on Prolific with this study's completion code, but the task server "
                          "stored no response for this session")
    return "return", (f"completed on Prolific with code {str(study_code or 'none')[:20]!r}, not this study's, and no "
                      "response stored: return requested")


def settle_unanswered(run: Run, batch: int, study_id: str) -> int:
    """Decide every AWAITING REVIEW submission without a stored response (ledgered: each acted on once)."""
    stored = {r["assignment_id"] for r in run.store.rows(
        "SELECT assignment_id FROM assignments WHERE campaign = ? AND batch = ?", [run.cfg.name, batch])}
    code = completion_code(task_secret(run.store.location), run.cfg.name, batch)
    todo = [s for s in prolific.submissions(prolific_client(run), study_id)
            if s["status"] == "AWAITING REVIEW" and s["id"] not in stored]
    for s in todo:
        action, reason = unanswered_decision(s.get("study_code"), code)

        def act(sid: str = s["id"], action: str = action, reason: str = reason) -> dict[str, str]:
            if action == "reject":
                prolific.reject(prolific_client(run), sid, "NO_DATA", rejection_message(run, reason))
            else:
                prolific.request_return(prolific_client(run), sid, ["Didn't finish the study"])
            return {"action": action}

        _ledgered(run, batch, "DecideUnanswered", f"{run.cfg.name}:unanswered:{s['id']}", {"action": action}, act)
        run.store.execute("UPDATE platform_submissions SET outcome = ? WHERE campaign = ? AND submission_id = ?",
                          [f"{action}: {reason}", run.cfg.name, s["id"]])
    return len(todo)


def exclude_participants(run: Run, participant_ids: list[str]) -> None:
    """Into the blocklist group, which every later study filters out before it is published."""
    known = {r["participant_id"] for r in run.store.rows(
        "SELECT DISTINCT participant_id FROM platform_submissions WHERE campaign = ?", [run.cfg.name])}
    reported = [p for p in participant_ids if p in known]  # made-up ids never reach Prolific
    if reported:
        prolific.add_to_group(prolific_client(run), blocklist_group(run), reported)
