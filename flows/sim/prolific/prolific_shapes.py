"""The shapes the simulated Prolific API answers in, as Prolific's OpenAPI describes them."""

from __future__ import annotations

from typing import Any

from flows.platforms.prolific.fees import cost_of

LIST_SPELLING = {"TIMED-OUT": "TIME-OUT"}  # SubmissionShort.status's enum
STUDY_DEFAULTS: dict[str, Any] = {"internal_name": None, "peripheral_requirements": [], "study_labels": [],
                                  "content_warnings": [], "content_warning_details": "",
                                  "submissions_config": {"max_submissions_per_participant": 1,
                                                         "max_concurrent_submissions": -1}}
STUDY_SHORT = ("id", "name", "internal_name", "status", "total_available_places", "reward", "published_at",
               "date_created")


def study_full(study: dict[str, Any], subs: list[dict[str, Any]], taken: tuple[str, ...]) -> dict[str, Any]:
    """``GET /studies/{id}/``: the study as created, with the fields Prolific adds."""
    view = {**STUDY_DEFAULTS, **{k: v for k, v in study.items() if not k.startswith("_")}}
    view["places_taken"] = sum(s["status"] in taken for s in subs)
    view["number_of_submissions"] = len(subs)
    view["total_cost"] = sum(cost_of(study["reward"], study["total_available_places"]))
    return view


def study_short(full: dict[str, Any]) -> dict[str, Any]:
    """A ``GET /studies/`` item: no completion codes, no URL, no filters (StudyShort)."""
    return {**{k: full.get(k) for k in STUDY_SHORT}, "study_type": "SINGLE", "publish_at": None,
            "places_taken": full["places_taken"], "number_of_submissions": full["number_of_submissions"],
            "total_cost": full["total_cost"]}


def submission_short(sub: dict[str, Any], siblings: int) -> dict[str, Any]:
    """A ``GET /studies/{id}/submissions/`` item (SubmissionShort)."""
    return {"id": sub["id"], "participant_id": sub["participant_id"],
            "status": LIST_SPELLING.get(sub["status"], sub["status"]), "started_at": sub["started_at"],
            "completed_at": sub["completed_at"], "has_siblings": siblings > 1, "study_code": sub["study_code"]}


def submission_detail(sub: dict[str, Any], bonuses: list[float] | None = None) -> dict[str, Any]:
    """``GET /submissions/{id}/`` (SubmissionDetail); without ``bonuses``, a transition's reply (Submission)."""
    view = {"id": sub["id"], "study_id": sub["study_id"], "participant": sub["participant_id"],
            "status": sub["status"], "started_at": sub["started_at"], "completed_at": sub["completed_at"],
            "entered_code": sub["study_code"]}
    return view if bonuses is None else {**view, "bonus_payments": bonuses}


def return_requested(sub: dict[str, Any]) -> dict[str, Any]:
    """``POST /submissions/{id}/request-return/`` (ReturnRequestedResponse): when it was asked."""
    return {"id": sub["id"], "status": sub["status"], "participant": sub["participant_id"],
            "return_requested": sub["_return_requested_at"]}


def group(record: dict[str, Any]) -> dict[str, Any]:
    """A participant group (ParticipantGroup)."""
    return {"id": record["id"], "name": record["name"], "project_id": None, "workspace_id": record["workspace_id"],
            "organisation_id": None, "description": record.get("description"),
            "participant_count": len(record["participants"]), "is_deleted": False, "feeder_studies": []}


def message(record: dict[str, Any]) -> dict[str, Any]:
    """A message (Message): the channel is the researcher-participant pair."""
    return {"sender_id": record["sender_id"], "body": record["body"], "sent_at": record["sent_at"],
            "channel_id": record["channel_id"], "type": "message", "data": {"study_id": record["study_id"]}}


def workspace(record: dict[str, Any], projects: list[dict[str, Any]], user: dict[str, Any]) -> dict[str, Any]:
    return {**short(record, user), "projects": [short(p, user) for p in projects], "wallet": record["wallet"]}


def short(record: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
    """A workspace or project as listed (WorkspaceShort, ProjectShort: the same members)."""
    return {"id": record["id"], "title": record["title"], "description": record.get("description", ""),
            "owner": record["owner"],
            "users": [{"id": user["id"], "name": user["name"], "email": user["email"], "roles": ["WORKSPACE_ADMIN"]}]}


def project(record: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
    return {**short(record, user), "workspace": record["workspace"]}


def study_total_cost(study: dict[str, Any], bonus_total: int, currency: str) -> dict[str, Any]:
    """``GET /studies/{id}/cost/`` (StudyTotalCost): rewards and bonuses, each with its fees."""
    rewards, fees = cost_of(int(study["reward"]), int(study["total_available_places"]))
    bonus_fees = cost_of(bonus_total, 1)[1] if bonus_total else 0

    def money(amount: int) -> dict[str, Any]:
        return {"amount": amount, "currency": currency}

    return {"rewards": {"rewards": money(rewards), "fees": money(fees), "tax": money(0)},
            "bonuses": {"rewards": money(bonus_total), "fees": money(bonus_fees), "tax": money(0)},
            "_links": {}}
