"""Prolific's researcher API (``/api/v1/``) on the simulator, for hitflow and any httpx client."""

from __future__ import annotations

import re
from typing import Any

from flows.sim.prolific import prolific_routes  # noqa: F401  (registers the rest of the API)
from flows.sim.prolific import prolific_shapes as shapes
from flows.sim.prolific.prolific_http import ROUTES, Body, Query, Reply, error, listing, need, route
from flows.sim.prolific.prolific_state import FEE_RATE, ProlificError, ProlificState, cost_of, new_id

REJECTION_CATEGORIES = {"TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
                        "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER"}


def dispatch(state: ProlificState, method: str, path: str, query: dict[str, str], body: dict[str, Any],
             auth: str, base: str = "") -> tuple[int, Any]:
    """``base``: scheme and host the client used, so ``_links`` hold absolute URLs as Prolific's do."""
    if not re.fullmatch(r"Token \S+", auth or ""):
        return 401, error(401, 140100, "Authentication credentials were not provided or are malformed.",
                          {"Authorization": ["Send 'Authorization: Token <your API token>'."]})
    if auth != f"Token {state.token}":
        return 401, error(401, 140101, "Invalid token.", {"Authorization": ["This token is not valid."]})
    for verb, pattern, fn in ROUTES:
        match = pattern.match(path)
        if match and verb == method:
            with state.lock:
                try:
                    state.pump()
                    return fn(state, body, {**query, "_base": base}, list(match.groups()))
                except ProlificError as exc:
                    return exc.status, error(exc.status, exc.code, exc.title, exc.detail)
    return 404, error(404, 140400, "Not found.", {"path": [path]})


# users, workspaces, projects --------------------------------------------------------------
@route("GET", "users/me")
def me(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    return 200, {"id": state.user["id"], "email": state.user["email"], "name": state.user["name"],
                 "user_type": state.user["user_type"], "currency_code": state.currency}


@route("GET", "workspaces")
def workspaces(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    return 200, listing([shapes.short(w, state.user) for w in state.workspaces.values()], query,
                        "workspaces/")


@route("GET", "workspaces/([0-9a-f]{24})/balance")
def balance(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    state.workspace(ids[0])
    return 200, state.balance_view()


@route("GET", "workspaces/([0-9a-f]{24})/projects")
def projects(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    state.workspace(ids[0])
    return 200, listing([shapes.short(p, state.user) for p in state.projects.values()
                         if p["workspace"] == ids[0]], query, f"workspaces/{ids[0]}/projects/")


@route("POST", "workspaces/([0-9a-f]{24})/projects")
def create_project(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    state.workspace(ids[0])
    need(body, "title")
    project = {"id": new_id(state.rng), "title": body["title"], "workspace": ids[0],
               "owner": state.user["id"]}
    state.projects[project["id"]] = project
    return 201, shapes.project(project, state.user)


# studies ------------------------------------------------------------------------------------
@route("POST", "studies")
def create_study(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    return 201, state.create_study(body)


@route("GET", "studies")
def list_studies(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    wanted = set(query.get("state", "").split(",")) - {""}  # Prolific's filter, e.g. ?state=ACTIVE
    found = [shapes.study_short(state.study_view(s)) for s in state.studies.values()
             if not wanted or s["status"] in wanted]
    return 200, listing(found, query, "studies/")


@route("GET", "studies/([0-9a-f]{24})")
def get_study(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    return 200, state.study_view(state.study(ids[0]))


@route("PATCH", "studies/([0-9a-f]{24})")
def update_study(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    return 200, state.study_view(state.update_study(ids[0], body))


@route("POST", "studies/([0-9a-f]{24})/transition")
def transition_study(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    need(body, "action")
    return 200, state.study_view(state.transition_study(ids[0], str(body["action"])))


@route("GET", "studies/([0-9a-f]{24})/submissions")
def study_submissions(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    state.study(ids[0])
    return 200, listing(short_submissions(state, ids[0]), query, f"studies/{ids[0]}/submissions/")


def short_submissions(state: ProlificState, study_id: str = "") -> list[dict[str, Any]]:
    subs = [s for s in state.submissions.values() if not study_id or s["study_id"] == study_id]
    times: dict[str, int] = {}
    for s in state.submissions.values():
        times[s["participant_id"]] = times.get(s["participant_id"], 0) + 1
    return [shapes.submission_short(s, times[s["participant_id"]]) for s in subs]


@route("POST", "study-cost-calculator")
def cost_calculator(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    need(body, "reward", "total_available_places")
    rewards, fees = cost_of(int(body["reward"]), int(body["total_available_places"]))
    return 200, {"total_cost": rewards + fees, "rewards": rewards, "fees": fees, "fee_rate": FEE_RATE,
                 "currency_code": state.currency}


# submissions ------------------------------------------------------------------------------
@route("GET", "submissions")
def list_submissions(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    return 200, listing(short_submissions(state, query.get("study", "")), query, "submissions/")


@route("GET", "submissions/([0-9a-f]{24})")
def get_submission(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    sub = state.submission(ids[0])
    paid = [p / 100 for b in state.bonuses.values() if b["paid"] for pid, p in b["rows"]
            if pid == sub["participant_id"] and b["study"] == sub["study_id"]]
    return 200, shapes.submission_detail(sub, paid)


@route("POST", "submissions/([0-9a-f]{24})/transition")
def transition_submission(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    need(body, "action")
    action = str(body["action"])
    if action == "REJECT":
        message = str(body.get("message") or "")
        detail: dict[str, list[str]] = {}
        if len(message) < 100:
            detail["message"] = [f"Ensure this field has at least 100 characters (it has {len(message)})."]
        if body.get("rejection_category") not in REJECTION_CATEGORIES:
            detail["rejection_category"] = [f"Must be one of {', '.join(sorted(REJECTION_CATEGORIES))}."]
        if detail:
            raise ProlificError(400, 140001, "Request is not valid", detail)
    return 200, shapes.submission_detail(state.review(ids[0], action, body))


@route("POST", "submissions/bulk-approve")
def bulk_approve(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    """``{submission_ids}`` or ``{study_id, participant_ids}``, as the schema says; its 200 reply is a string."""
    wanted = set(body.get("submission_ids") or [])
    people = set(body.get("participant_ids") or [])
    if people:
        need(body, "study_id")
    if not wanted and not people:
        raise ProlificError(400, 140001, "Request is not valid",
                            {"submission_ids": ["Give submission_ids, or study_id and participant_ids."]})
    subs = [s for s in state.submissions.values() if s["id"] in wanted
            or (s["participant_id"] in people and s["study_id"] == body["study_id"])]
    for s in subs:
        state.review(s["id"], "APPROVE", {})
    return 200, "The request to bulk approve has been made successfully."


@route("POST", "submissions/([0-9a-f]{24})/request-return")
def request_return(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    need(body, "request_return_reasons")
    sub = state.submission(ids[0])
    if sub["status"] not in ("ACTIVE", "AWAITING REVIEW"):
        raise ProlificError(400, 140002, "Request is not valid", {"status": [f"Cannot ask a {sub['status']} "
                                                                              "submission to return."]})
    sub["_return_reasons"] = list(body["request_return_reasons"])
    sub["_return_requested_at"] = state.iso(state.now)
    return 200, shapes.return_requested(sub)


@route("POST", "submissions/bonus-payments")
def set_up_bonus(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    need(body, "study_id", "csv_bonuses")
    return 201, state.set_up_bonus(str(body["study_id"]), str(body["csv_bonuses"]))


@route("POST", "bulk-bonus-payments/([0-9a-f]{24})/pay")
def pay_bonus(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    return 202, state.pay_bonus(ids[0])


# messages ---------------------------------------------------------------------------------
@route("POST", "messages")
def send_message(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    need(body, "recipient_id", "body", "study_id")
    pair = sorted((state.user["id"], str(body["recipient_id"])))
    message = {"id": new_id(state.rng), "sender_id": state.user["id"], "recipient_id": body["recipient_id"],
               "body": body["body"], "study_id": body["study_id"], "sent_at": state.iso(state.now),
               "channel_id": "-".join(pair)}
    state.messages.append(message)
    return 204, None


@route("GET", "messages")
def list_messages(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    user = query.get("user_id", "")
    found = [shapes.message(m) for m in state.messages if not user or user in (m["recipient_id"], m["sender_id"])]
    return 200, listing(found, query, "messages/")

