"""The simulated Prolific API judged by Prolific's published schema (tests/prolific_schema.py):
a researcher's script written with pyrolific (a client generated from Prolific's OpenAPI, not
hitflow's) drives the whole life cycle, and every reply on the way, success or error, is checked
against the schema's model for its route. hitflow's own adapter is judged the same way."""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.core.site_secrets import completion_code
from flows.platforms.mturk import adapter as mturk
from flows.platforms.prolific import adapter as prolific
from flows.sim.service.server import SimServer
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer
from tests.prolific_schema import differences, error_differences, models

api = pytest.importorskip("pyrolific.api", reason="pyrolific drives the Prolific contract suite")
from pyrolific import AuthenticatedClient  # noqa: E402  (after the skip)

ROOT = Path(__file__).resolve().parents[1]
ID = "[0-9a-f]{24}"
# (method, path under /api/v1/) -> the schema's model for a 2xx reply (None: no body)
ROUTES: list[tuple[str, str, type | None]] = [
    ("GET", "users/me/", models.User),
    ("GET", "workspaces/", models.WorkspacesListResponse),
    ("GET", f"workspaces/{ID}/", models.Workspace),
    ("GET", f"workspaces/{ID}/balance/", models.WorkspaceBalance),
    ("GET", f"workspaces/{ID}/projects/", models.ProjectShortListResponse),
    ("POST", f"workspaces/{ID}/projects/", models.Project),
    ("GET", f"projects/{ID}/", models.Project),
    ("GET", f"projects/{ID}/studies/", models.StudiesListResponse),
    ("POST", "study-cost-calculator/", models.StudyCostResponse),
    ("POST", "studies/", models.Study),
    ("GET", "studies/", models.StudiesListResponse),
    ("GET", f"studies/{ID}/", models.Study),
    ("PATCH", f"studies/{ID}/", models.Study),
    ("DELETE", f"studies/{ID}/", None),
    ("POST", f"studies/{ID}/transition/", models.Study),
    ("GET", f"studies/{ID}/cost/", models.StudyTotalCost),
    ("GET", f"studies/{ID}/submissions/", models.SubmissionListResponse),
    ("GET", "submissions/", models.SubmissionListResponse),
    ("GET", f"submissions/{ID}/", models.SubmissionDetail),
    ("POST", f"submissions/{ID}/transition/", models.Submission),
    ("POST", "submissions/bulk-approve/", str),  # the schema's 200 is a string
    ("POST", f"submissions/{ID}/request-return/", models.ReturnRequestedResponse),
    ("POST", "submissions/bonus-payments/", models.BulkBonus),
    ("POST", f"bulk-bonus-payments/{ID}/pay/", None),
    ("GET", "participant-groups/", models.ParticipantGroupListResponse),
    ("POST", "participant-groups/", models.ParticipantGroup),
    ("GET", f"participant-groups/{ID}/", models.ParticipantGroup),
    ("DELETE", f"participant-groups/{ID}/", None),
    ("GET", f"participant-groups/{ID}/participants/", models.ParticipantGroupMembershipListResponse),
    ("POST", f"participant-groups/{ID}/participants/", models.ParticipantGroupMembershipListResponse),
    ("DELETE", f"participant-groups/{ID}/participants/", models.ParticipantGroupMembershipListResponse),
    ("POST", "messages/", None),
    ("GET", "messages/", models.Messages),
]
# the status codes the schema gives each route's success (all others are 200)
SUCCESS = {("POST", "studies/"): 201, ("POST", f"workspaces/{ID}/projects/"): 201,
           ("POST", "participant-groups/"): 201, ("POST", "submissions/bonus-payments/"): 201,
           ("POST", f"bulk-bonus-payments/{ID}/pay/"): 202, ("POST", "messages/"): 204,
           ("DELETE", f"participant-groups/{ID}/"): 204}
LONG = ("The submitted descriptions did not follow the task's instructions: each image needed one full sentence "
        "of at least eight words.")


def route_of(method: str, path: str) -> tuple[str, str, type | None]:
    rest = path.split("/api/v1/", 1)[1]
    for verb, pattern, model in ROUTES:
        if verb == method and re.fullmatch(pattern, rest):
            return verb, pattern, model
    raise AssertionError(f"{method} /api/v1/{rest} is not in the contract's route table")


class Judge:
    """Every reply the simulator gives, checked against the schema as it arrives."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, int]] = []
        self.diffs: list[str] = []

    def __call__(self, resp: httpx.Response) -> None:
        resp.read()
        verb, pattern, model = route_of(resp.request.method, resp.request.url.path)
        self.seen.append((verb, pattern, resp.status_code))
        where = f"{verb} {pattern} -> {resp.status_code}"
        if resp.status_code >= 400:
            self.diffs += [f"{where}: {d}" for d in error_differences(resp.json())]
            return
        expected = SUCCESS.get((verb, pattern), 200)
        if resp.status_code != expected:
            self.diffs.append(f"{where}: the schema answers {expected}")
        if model is None:
            if expected == 204 and resp.content:
                self.diffs.append(f"{where}: a 204 carries no body")
            return
        body = resp.json()
        if model is str:
            self.diffs += [] if isinstance(body, str) else [f"{where}: the schema answers a string, not {body!r}"]
            return
        self.diffs += [f"{where}: {d}" for d in differences(model, body)]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, Any]]:
    cfg = load_config(ROOT / "config" / "vizwiz_captions.toml")
    store = Store(tmp_path / "h.db")
    judge = Judge()
    with SimServer(seed=6) as sim:
        plan_items(Run(cfg, store, None, mturk.Target("sim", sim.url)), limit=50)
        store.set_batch(cfg.name, 1, status="published")
        site = TaskSite(store.path, {cfg.name: cfg}, secret=b"s" * 32)
        with TaskServer(site) as server:
            client = AuthenticatedClient(base_url=sim.url, token=prolific.SIM_TOKEN, prefix="Token",
                                         raise_on_unexpected_status=True,
                                         httpx_args={"event_hooks": {"response": [judge]}})
            yield {"sim": sim, "client": client, "judge": judge, "cfg": cfg, "task": server.url, "store": store,
                   "code": completion_code(site.secret, cfg.name, 1)}


def call(operation: str, *args: Any, **kw: Any) -> Any:
    """A pyrolific operation's reply (``pyrolific.api.<operation>.sync_detailed``), with the
    Authorization header where the generator made it a parameter."""
    fn = importlib.import_module(f"pyrolific.api.{operation}").sync_detailed
    if "authorization" in inspect.signature(fn).parameters:
        kw["authorization"] = f"Token {prolific.SIM_TOKEN}"
    return fn(*args, **kw)


def finish(sim_url: str) -> None:
    """Participants arrive on one clock move and finish by the next."""
    for _ in range(2):
        httpx.post(f"{sim_url}/_sim/clock", json={"advance_seconds": 3600})


def CODES(world: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"code": world["code"], "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}]}]


def new_study(world: dict[str, Any], places: int) -> Any:
    url = f"{world['task']}/task/{world['cfg'].name}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}" \
          "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    body = models.CreateStudy.from_dict({
        "name": "Describe images", "internal_name": "contract batch 1", "description": "Five images",
        "external_study_url": url, "prolific_id_option": "url_parameters",
        "completion_codes": CODES(world),
        "total_available_places": places, "estimated_completion_time": 6, "maximum_allowed_time": 30,
        "reward": 90, "device_compatibility": ["desktop"]})
    study = call("studies.create_study", client=world["client"], body=body).parsed
    world["store"].table("studies").insert({"study_id": study.id, "campaign": world["cfg"].name, "batch": 1,
                                            "status": "ACTIVE", "places": places, "created_at": 0.0},
                                           pk=("campaign", "study_id"))
    return study  # the task server serves batch 1 to this study's participants


def test_a_researchers_whole_life_cycle_matches_the_schema(world: dict[str, Any]) -> None:
    c, sim = world["client"], world["sim"]
    call("users.get_user", client=c)
    workspace = call("workspaces.get_workspaces", client=c).parsed.results[0].id
    call("workspaces.get_workspace", workspace, client=c)
    call("workspaces.get_workspace_balance", workspace, client=c)
    project = call("projects.create_project", workspace, client=c,
                   body=models.CreateProject.from_dict({"title": "Contract"})).parsed.id
    call("projects.get_projects", workspace, client=c)
    call("projects.get_project", project, client=c)
    call("studies.calculate_study_cost", client=c,
         body=models.StudyCostRequest.from_dict({"reward": 90, "total_available_places": 4}))
    draft = new_study(world, 1)
    call("studies.update_study", draft.id, client=c,  # the generated body sends its empty lists (codes, devices...)
         body=models.BaseStudy.from_dict({"description": "Five images, one sentence each"}))
    assert call("studies.get_study", draft.id, client=c).parsed.completion_codes, "an empty default changes nothing"
    call("studies.delete_study", draft.id, client=c)
    study = new_study(world, 4)
    call("studies.publish_study", study.id, client=c,
         body=models.StudyTransition.from_dict({"action": "PUBLISH"}))
    more = call("studies.update_study", study.id, client=c,  # "increase places", with the generated body
                body=models.BaseStudy.from_dict({"total_available_places": 5})).parsed
    assert more.total_available_places == 5
    finish(sim.url)
    call("studies.get_studies", client=c, state=models.GetStudiesState.ACTIVE)
    call("studies.get_project_studies", project, client=c)
    call("studies.get_study", study.id, client=c)
    subs = call("studies.get_study_submissions", study.id, client=c).parsed.results
    call("submissions.get_submissions", client=c, study=study.id)
    done = [s.id for s in subs if s.status == models.SubmissionShortStatus.AWAITING_REVIEW]
    assert len(done) >= 3, [(s.status, s.study_code) for s in subs]
    call("submissions.get_submission", done[0], client=c)
    call("submissions.request_submission_return", done[2], client=c,
         body=models.RequestSubmissionReturnBody.from_dict({"request_return_reasons": ["Didn't finish the study"]}))
    call("submissions.transition_submission", done[1], client=c, body=models.SubmissionTransition.from_dict(
        {"action": "REJECT", "rejection_category": "FAILED_INSTRUCTIONS", "message": LONG}))
    approved = call("submissions.bulk_approve_submissions", client=c,  # the schema's body: the ids alone
                    body=models.SubmissionIDs.from_dict({"submission_ids": [done[0]]}))
    assert isinstance(approved.parsed, str) and call("submissions.get_submission", done[0], client=c).parsed.status \
        == models.SubmissionDetailStatus.APPROVED
    pid = next(s.participant_id for s in subs if s.id == done[0])
    bonus = call("bonuses.create_bonus_payments", client=c, body=models.CreateBonusPaymentsBody.from_dict(
        {"study_id": study.id, "csv_bonuses": f"{pid},0.25"})).parsed
    call("bonuses.pay_bonus_payments", bonus.id, client=c)
    call("studies.get_study_cost", study.id, client=c)
    group = call("participant_groups.create_participant_group", client=c,
                 body=models.CreateParticipantGroupBody.from_dict({"workspace_id": workspace, "name": "g"})).parsed.id
    ids = models.ParticipantIDList.from_dict({"participant_ids": [pid]})
    call("participant_groups.add_to_participant_group", group, client=c, body=ids)
    call("participant_groups.get_participant_groups", client=c,
         filter_=models.WorkspaceID.from_dict({"workspace_id": workspace}))
    call("participant_groups.get_participant_group", group, client=c)
    call("participant_groups.get_participant_group_participants", group, client=c)
    call("participant_groups.remove_from_participant_group", group, client=c, body=ids)
    call("participant_groups.delete_participant_group", group, client=c)
    call("messages.send_message", client=c,
         body=models.SendMessage.from_dict({"recipient_id": pid, "body": "Thanks!", "study_id": study.id}))
    call("messages.get_messages", client=c, user_id=pid)
    judge = world["judge"]
    assert judge.diffs == []
    assert {(v, p) for v, p, _ in judge.seen} == {(v, p) for v, p, _ in ROUTES}, "every route in the table was called"


def test_error_replies_keep_prolifics_error_shape(world: dict[str, Any]) -> None:
    judge, sim = world["judge"], world["sim"]
    c = AuthenticatedClient(base_url=sim.url, token=prolific.SIM_TOKEN, prefix="Token",  # errors are expected
                            httpx_args={"event_hooks": {"response": [judge]}})
    missing = "0" * 24
    outcomes = [call("studies.get_study", missing, client=c).status_code,
                call("submissions.get_submission", missing, client=c).status_code,
                call("participant_groups.get_participant_group", missing, client=c).status_code]
    study = new_study(world, 1)
    call("studies.publish_study", study.id, client=c, body=models.StudyTransition.from_dict({"action": "PUBLISH"}))
    outcomes.append(call("studies.delete_study", study.id, client=c).status_code)  # published: refused
    outcomes.append(call("studies.publish_study", study.id, client=c,
                         body=models.StudyTransition.from_dict({"action": "PUBLISH"})).status_code)
    with httpx.Client(base_url=f"{sim.url}/api/v1/", event_hooks={"response": [judge]}) as raw:
        bad = raw.post("studies/", json={"name": "x"}, headers={"Authorization": f"Token {prolific.SIM_TOKEN}"})
        stranger = raw.get("users/me/", headers={"Authorization": "Token someone-elses-token"})
    assert outcomes == [404, 404, 404, 400, 400] and bad.status_code == 400 and stranger.status_code == 401
    assert judge.diffs == [] and sum(code >= 400 for _, _, code in judge.seen) == 7


def test_hitflows_adapter_meets_the_same_schema(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROLIFIC_TOKEN", raising=False)
    client = prolific.make_client(world["sim"].url, simulator=True)
    client.http.event_hooks["response"].append(world["judge"])
    workspace = prolific.default_workspace(client)
    assert prolific.check_currency(client, "GBP") == "GBP"
    group = prolific.ensure_group(client, workspace, "blocked")
    assert prolific.study_cost(client, 90, 4) == 480
    url = f"{world['task']}/task/{world['cfg'].name}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}" \
          "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    study = prolific.create_study(client, {
        "name": "n", "internal_name": "i", "description": "d", "external_study_url": url,
        "prolific_id_option": "url_parameters", "completion_codes": [{"code": world["code"], "code_type": "COMPLETED"}],
        "total_available_places": 3, "estimated_completion_time": 6, "maximum_allowed_time": 30, "reward": 90,
        "device_compatibility": ["desktop"], "filters": [{"filter_id": "participant_group_blocklist",
                                                          "selected_values": [group]}]})
    world["store"].table("studies").insert({"study_id": study, "campaign": world["cfg"].name, "batch": 1,
                                            "status": "ACTIVE", "places": 3, "created_at": 0.0},
                                           pk=("campaign", "study_id"))
    assert prolific.transition(client, study, "PUBLISH") == "ACTIVE"
    finish(world["sim"].url)
    subs = [s for s in prolific.submissions(client, study) if s["status"] == "AWAITING REVIEW"]
    prolific.approve(client, study, [subs[0]["id"]])
    prolific.reject(client, subs[1]["id"], "LOW_EFFORT", LONG)
    prolific.request_return(client, subs[2]["id"], ["Didn't finish the study"])
    prolific.pay_bonuses(client, study, {subs[0]["participant_id"]: Decimal("0.10")})
    prolific.add_to_group(client, group, [subs[1]["participant_id"]])
    assert prolific.get_study(client, study)["status"] in ("ACTIVE", "AWAITING REVIEW", "COMPLETED")
    assert prolific.balance(client, workspace) > 0
    assert world["judge"].diffs == [] and len(world["judge"].seen) >= 14
