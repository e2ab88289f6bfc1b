"""More of the simulated Prolific API (groups, costs, projects, workspaces)."""

from __future__ import annotations

from typing import Any

from flows.sim.prolific import prolific_shapes as shapes
from flows.sim.prolific.prolific_http import Body, Query, Reply, listing, need, route
from flows.sim.prolific.prolific_state import ProlificError, ProlificState, new_id


# participant groups -----------------------------------------------------------------------
@route("GET", "participant-groups")
def list_groups(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    groups = [shapes.group(g) for g in state.groups.values()
              if query.get("workspace_id", g["workspace_id"]) == g["workspace_id"]]
    return 200, listing(groups, query, "participant-groups/")


@route("POST", "participant-groups")
def create_group(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    need(body, "name", "workspace_id")
    state.workspace(str(body["workspace_id"]))
    group = {"id": new_id(state.rng), "name": body["name"], "workspace_id": body["workspace_id"],
             "participants": {}}
    state.groups[group["id"]] = group
    return 201, shapes.group(group)


@route("GET", "participant-groups/([0-9a-f]{24})/participants")
def group_members(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    members = [{"participant_id": p, "datetime_created": t} for p, t in state.group(ids[0])["participants"].items()]
    return 200, listing(members, query, f"participant-groups/{ids[0]}/participants/")


@route("POST", "participant-groups/([0-9a-f]{24})/participants")
def add_members(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    need(body, "participant_ids")
    group = state.group(ids[0])
    for pid in body["participant_ids"]:
        group["participants"].setdefault(str(pid), state.iso(state.now))
    return 200, group_members(state, {}, {}, ids)[1]


@route("GET", "participant-groups/([0-9a-f]{24})")
def get_group(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    return 200, shapes.group(state.group(ids[0]))


@route("DELETE", "participant-groups/([0-9a-f]{24})")
def delete_group(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    state.group(ids[0])
    del state.groups[ids[0]]
    return 204, None


@route("DELETE", "participant-groups/([0-9a-f]{24})/participants")
def remove_members(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    need(body, "participant_ids")
    members = state.group(ids[0])["participants"]
    for pid in body["participant_ids"]:
        members.pop(str(pid), None)
    return 200, group_members(state, {}, {}, ids)[1]


# studies: deleting, costs, a project's studies -------------------------------------------------
@route("DELETE", "studies/([0-9a-f]{24})")
def delete_study(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    state.delete_study(ids[0])
    return 200, None  # Prolific's OpenAPI: 200 with no body


@route("GET", "studies/([0-9a-f]{24})/cost")
def study_cost(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    study = state.study(ids[0])
    bonus = sum(int(b["amount"]) for b in state.bonuses.values() if b["study"] == ids[0] and b["paid"])
    return 200, shapes.study_total_cost(study, bonus, state.currency)


@route("GET", "projects/([0-9a-f]{24})")
def get_project(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    return 200, shapes.project(_project(state, ids[0]), state.user)


@route("GET", "projects/([0-9a-f]{24})/studies")
def project_studies(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    _project(state, ids[0])
    found = [shapes.study_short(state.study_view(s)) for s in state.studies.values() if s["project"] == ids[0]]
    return 200, listing(found, query, f"projects/{ids[0]}/studies/")


@route("GET", "workspaces/([0-9a-f]{24})")
def get_workspace(state: ProlificState, body: Body, query: Query, ids: list[str]) -> Reply:
    projects = [p for p in state.projects.values() if p["workspace"] == ids[0]]
    return 200, shapes.workspace(state.workspace(ids[0]), projects, state.user)


def _project(state: ProlificState, key: str) -> dict[str, Any]:
    if key not in state.projects:
        raise ProlificError(404, 140400, "Project not found.", {"id": [key]})
    return state.projects[key]
