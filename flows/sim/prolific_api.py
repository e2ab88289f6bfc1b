"""Prolific's researcher API (``/api/v1/``) on the simulator, for hitflow and any httpx client.

Token auth (any non-empty ``Authorization: Token <x>``; missing or malformed gets 401),
Prolific's list shape (``results``, ``_links``, ``meta``) and error shape, the study and
submission state machines, participant groups, bonuses (set up, then pay), messages and a
workspace balance in minor units. Participants come from :mod:`flows.sim.prolific_people`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from flows.sim.prolific_state import FEE_RATE, ProlificError, ProlificState, cost_of, new_id

Handler = Callable[[ProlificState, dict[str, Any], dict[str, str], list[str]], tuple[int, Any]]
ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []
PAGE_SIZE = 20
REJECTION_CATEGORIES = {"TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
                        "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER"}


def route(method: str, pattern: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        ROUTES.append((method, re.compile(f"^/api/v1/{pattern}/?$"), fn))
        return fn
    return register


def dispatch(state: ProlificState, method: str, path: str, query: dict[str, str], body: dict[str, Any],
             auth: str, base: str = "") -> tuple[int, Any]:
    """``base``: scheme and host the client used, so ``_links`` hold absolute URLs as Prolific's do."""
    if not re.fullmatch(r"Token \S+", auth or ""):
        return 401, error(401, 140100, "Authentication credentials were not provided or are malformed.",
                          {"Authorization": ["Send 'Authorization: Token <your API token>'."]})
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


def error(status: int, code: int, title: str, detail: Any) -> dict[str, Any]:
    return {"error": {"status": status, "error_code": code, "title": title, "detail": detail,
                      "additional_information": "/api/v1/errors/", "interactive": False}}


def listing(items: list[dict[str, Any]], query: dict[str, str], path: str) -> dict[str, Any]:
    """Prolific's paged list: ``results``, ``_links`` (``next.href`` null on the last page), ``meta``."""
    base = query.get("_base", "")
    query = {k: v for k, v in query.items() if k != "_base"}
    size = max(1, min(int(query.get("page_size", PAGE_SIZE)), 200))
    page = max(1, int(query.get("page", 1)))
    last = max(1, -(-len(items) // size))

    def href(n: int) -> dict[str, str | None]:
        return {"href": f"{base}/api/v1/{path}?{urlencode({**query, 'page': n, 'page_size': size})}"
                if 1 <= n <= last else None, "title": "Page"}

    return {"results": items[(page - 1) * size: page * size],
            "_links": {"self": href(page), "next": href(page + 1), "previous": href(page - 1), "last": href(last)},
            "meta": {"count": len(items)}}


def public(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if not k.startswith("_")}


def need(body: dict[str, Any], *keys: str) -> None:
    missing = [k for k in keys if body.get(k) in (None, "", [])]
    if missing:
        raise ProlificError(400, 140001, "Request is not valid", {k: ["This field is required."] for k in missing})


# users, workspaces, projects --------------------------------------------------------------
@route("GET", "users/me")
def me(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    return 200, state.user


@route("GET", "workspaces")
def workspaces(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    return 200, listing(list(state.workspaces.values()), query, "workspaces/")


@route("GET", "workspaces/([0-9a-f]{24})/balance")
def balance(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    state.workspace(ids[0])
    return 200, state.balance_view()


@route("GET", "workspaces/([0-9a-f]{24})/projects")
def projects(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    state.workspace(ids[0])
    return 200, listing([p for p in state.projects.values() if p["workspace"] == ids[0]], query,
                        f"workspaces/{ids[0]}/projects/")


@route("POST", "workspaces/([0-9a-f]{24})/projects")
def create_project(state: ProlificState, body: dict[str, Any], query: dict[str, str],
                   ids: list[str]) -> tuple[int, Any]:
    state.workspace(ids[0])
    need(body, "title")
    project = {"id": new_id(state.rng), "title": body["title"], "workspace": ids[0],
               "owner": state.user["id"]}
    state.projects[project["id"]] = project
    return 201, project


# studies ------------------------------------------------------------------------------------
@route("POST", "studies")
def create_study(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    return 201, state.create_study(body)


@route("GET", "studies")
def list_studies(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    return 200, listing([state.study_view(s) for s in state.studies.values()], query, "studies/")


@route("GET", "studies/([0-9a-f]{24})")
def get_study(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    return 200, state.study_view(state.study(ids[0]))


@route("PATCH", "studies/([0-9a-f]{24})")
def update_study(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    return 200, state.study_view(state.update_study(ids[0], body))


@route("POST", "studies/([0-9a-f]{24})/transition")
def transition_study(state: ProlificState, body: dict[str, Any], query: dict[str, str],
                     ids: list[str]) -> tuple[int, Any]:
    need(body, "action")
    return 200, state.study_view(state.transition_study(ids[0], str(body["action"])))


@route("GET", "studies/([0-9a-f]{24})/submissions")
def study_submissions(state: ProlificState, body: dict[str, Any], query: dict[str, str],
                      ids: list[str]) -> tuple[int, Any]:
    state.study(ids[0])
    subs = [public(s) for s in state.submissions.values() if s["study_id"] == ids[0]]
    return 200, listing(subs, query, f"studies/{ids[0]}/submissions/")


@route("POST", "study-cost-calculator")
def cost_calculator(state: ProlificState, body: dict[str, Any], query: dict[str, str],
                    ids: list[str]) -> tuple[int, Any]:
    need(body, "reward", "total_available_places")
    rewards, fees = cost_of(int(body["reward"]), int(body["total_available_places"]))
    return 200, {"total_cost": rewards + fees, "rewards": rewards, "fees": fees, "fee_rate": FEE_RATE,
                 "currency_code": state.currency}


# submissions ------------------------------------------------------------------------------
@route("GET", "submissions")
def list_submissions(state: ProlificState, body: dict[str, Any], query: dict[str, str],
                     ids: list[str]) -> tuple[int, Any]:
    study = query.get("study", "")
    subs = [public(s) for s in state.submissions.values() if not study or s["study_id"] == study]
    return 200, listing(subs, query, "submissions/")


@route("GET", "submissions/([0-9a-f]{24})")
def get_submission(state: ProlificState, body: dict[str, Any], query: dict[str, str],
                   ids: list[str]) -> tuple[int, Any]:
    return 200, public(state.submission(ids[0]))


@route("POST", "submissions/([0-9a-f]{24})/transition")
def transition_submission(state: ProlificState, body: dict[str, Any], query: dict[str, str],
                          ids: list[str]) -> tuple[int, Any]:
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
    return 200, public(state.review(ids[0], action, body))


@route("POST", "submissions/bulk-approve")
def bulk_approve(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    need(body, "study_id")
    wanted = body.get("submission_ids") or []
    people = set(body.get("participant_ids") or [])
    if not wanted and not people:
        raise ProlificError(400, 140001, "Request is not valid",
                            {"submission_ids": ["Give submission_ids or participant_ids."]})
    subs = [s for s in state.submissions.values() if s["study_id"] == body["study_id"]
            and (s["id"] in wanted or s["participant_id"] in people)]
    for s in subs:
        state.review(s["id"], "APPROVE", {})
    return 200, {"detail": "The request to bulk approve has been made successfully.", "approved": len(subs)}


@route("POST", "submissions/([0-9a-f]{24})/request-return")
def request_return(state: ProlificState, body: dict[str, Any], query: dict[str, str],
                   ids: list[str]) -> tuple[int, Any]:
    need(body, "request_return_reasons")
    sub = state.submission(ids[0])
    if sub["status"] not in ("ACTIVE", "AWAITING REVIEW"):
        raise ProlificError(400, 140002, "Request is not valid", {"status": [f"Cannot ask a {sub['status']} "
                                                                              "submission to return."]})
    sub["return_requested"] = list(body["request_return_reasons"])
    return 200, public(sub)


@route("POST", "submissions/bonus-payments")
def set_up_bonus(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    need(body, "study_id", "csv_bonuses")
    return 201, state.set_up_bonus(str(body["study_id"]), str(body["csv_bonuses"]))


@route("POST", "bulk-bonus-payments/([0-9a-f]{24})/pay")
def pay_bonus(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    return 202, state.pay_bonus(ids[0])


# participant groups and messages ---------------------------------------------------------
@route("GET", "participant-groups")
def list_groups(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    groups = [state.group_view(g) for g in state.groups.values()
              if query.get("workspace_id", g["workspace_id"]) == g["workspace_id"]]
    return 200, listing(groups, query, "participant-groups/")


@route("POST", "participant-groups")
def create_group(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    need(body, "name", "workspace_id")
    state.workspace(str(body["workspace_id"]))
    group = {"id": new_id(state.rng), "name": body["name"], "workspace_id": body["workspace_id"],
             "participants": {}}
    state.groups[group["id"]] = group
    return 201, state.group_view(group)


@route("GET", "participant-groups/([0-9a-f]{24})/participants")
def group_members(state: ProlificState, body: dict[str, Any], query: dict[str, str],
                  ids: list[str]) -> tuple[int, Any]:
    members = [{"participant_id": p, "datetime_created": t} for p, t in state.group(ids[0])["participants"].items()]
    return 200, listing(members, query, f"participant-groups/{ids[0]}/participants/")


@route("POST", "participant-groups/([0-9a-f]{24})/participants")
def add_members(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    need(body, "participant_ids")
    group = state.group(ids[0])
    for pid in body["participant_ids"]:
        group["participants"].setdefault(str(pid), state.iso(state.now))
    return 200, group_members(state, {}, {}, ids)[1]


@route("POST", "messages")
def send_message(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    need(body, "recipient_id", "body", "study_id")
    message = {"id": new_id(state.rng), "sender_id": state.user["id"], "recipient_id": body["recipient_id"],
               "body": body["body"], "study_id": body["study_id"], "sent_at": state.iso(state.now)}
    state.messages.append(message)
    return 201, message


@route("GET", "messages")
def list_messages(state: ProlificState, body: dict[str, Any], query: dict[str, str], ids: list[str]) -> tuple[int, Any]:
    user = query.get("user_id", "")
    found = [m for m in state.messages if not user or user in (m["recipient_id"], m["sender_id"])]
    return 200, listing(found, query, "messages/")
