"""Every MTurk operation botocore's model lists, served by the simulator and checked against the
model's output shapes (tests/mturk_shapes.py): valid inputs, error inputs and paginators."""

from __future__ import annotations

import http.client
import json
import urllib.request
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.config import Config

from flows.sim.mturk.mturk_api import OPERATIONS
from tests.mturk_shapes import mturk_model, reply_problems
from tests.mturk_walk import mismatches, plan, prepare, snake, truth_from

REFUSED = {"GetFileUploadURL"}  # simulated workers upload no files: only MTurk's error comes back


def boto3_params(params: dict[str, Any]) -> dict[str, Any]:
    return {k: datetime.fromtimestamp(v["$epoch"], UTC) if isinstance(v, dict) and "$epoch" in v else v
            for k, v in params.items()}


def run_boto3(client: Any, calls: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[tuple[str, int, Any]]]:
    """Each call's result, and every raw reply (operation, HTTP status, JSON body) as it came."""
    raw: list[tuple[str, int, Any]] = []

    def keep(operation_model: Any, response_dict: dict[str, Any], **_: Any) -> None:
        raw.append((operation_model.name, response_dict["status_code"], json.loads(response_dict["body"] or b"{}")))
    client.meta.events.register("before-parse.mturk.*", keep)
    results = []
    for c in calls:
        method = getattr(client, snake(c["op"]))
        try:
            if c.get("paginate"):
                pages = client.get_paginator(snake(c["op"])).paginate(**c["params"], PaginationConfig={"PageSize": 2})
                results.append({"ok": True, "reply": [item for p in pages for item in p[c["paginate"]]]})
            else:
                results.append({"ok": True, "reply": method(**boto3_params(c["params"]))})
        except client.exceptions.ClientError as exc:
            results.append({"ok": False, "code": exc.response.get("TurkErrorCode"), "reply": exc.response})
    return results, raw


def test_every_modelled_operation_is_served_and_walked() -> None:
    model_ops = set(mturk_model().operation_names)
    assert model_ops <= set(OPERATIONS), f"not served: {sorted(model_ops - set(OPERATIONS))}"
    calls = plan({"h": "H", "q": "Q", "q_gone": "G", "t": "T", "a": list("ABCDE"), "w": list("VWXYZ"), "a_one": "O",
                  "h_one": "K", "h_asked": "S", "r": list("RST"), "now": 1_800_000_000})
    succeeds = {c["op"] for c in calls if c["error"] is None}
    fails = {c["op"] for c in calls if c["error"] is not None}
    assert succeeds == model_ops - REFUSED, sorted(model_ops - REFUSED - succeeds)
    inputs = {op for op in model_ops if mturk_model().operation_model(op).input_shape.members}
    assert fails == inputs - {"GetAccountBalance"}, sorted(inputs - fails)


def test_every_reply_matches_the_model(sim, client) -> None:
    calls = plan(prepare(client, sim))
    results, raw = run_boto3(client, calls)
    assert mismatches(calls, results, truth_from(client)) == []
    problems = [p for op, status, body in raw for p in reply_problems(op, status, body)]
    assert problems == []
    assert {op for op, _, _ in raw} == set(mturk_model().operation_names)
    sent = sim.market.sent_notifications
    assert len(sent) == 1 and sent[0]["Transport"] == "SQS"
    assert json.loads(sent[0]["Message"])["Events"][0]["EventType"] == "Ping"


def _planted(field: str, value: Any) -> Any:
    original = OPERATIONS["GetHIT"]

    def wrong(m: Any, p: dict[str, Any]) -> dict[str, Any]:
        reply = original(m, p)
        return {"HIT": {**reply["HIT"], field: value}}
    return wrong


@pytest.mark.parametrize(("field", "value", "named"), [
    ("HITStatus", "Open", "'Open' is not one of HITStatus's values"),
    ("NumberOfAssignmentsPending", "3", "expected an integer"),
    ("Expiration", "2026-11-24T00:00:00Z", "expected a number"),
    ("HITId", "3lower-case", "does not match EntityId's pattern"),
    ("Workers", [], "not a member of HIT"),
    ("RequesterAnnotation", None, "null where the model has a string"),
    ("QualificationRequirements", [{"Comparator": "Exists"}], "QualificationTypeId: required member missing"),
])
def test_the_check_catches_a_planted_wrong_field(sim, client, monkeypatch, field: str, value: Any,
                                                 named: str) -> None:
    type_id = client.create_hit_type(Title="t", Description="d", Reward="0.10",
                                     AssignmentDurationInSeconds=600)["HITTypeId"]
    from flows.core.pages.mturk_forms import html_question
    hit_id = client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=1, LifetimeInSeconds=600,
                                             Question=html_question("<form></form>"))["HIT"]["HITId"]
    _, clean_raw = run_boto3(client, [{"op": "GetHIT", "params": {"HITId": hit_id}, "error": None}])
    assert reply_problems(*clean_raw[0]) == []  # the same reply without the plant passes
    monkeypatch.setitem(OPERATIONS, "GetHIT", _planted(field, value))
    _, raw = run_boto3(client, [{"op": "GetHIT", "params": {"HITId": hit_id}, "error": None}])
    problems = reply_problems(*raw[0])
    assert len(problems) == 1 and named in problems[0], problems


def test_an_error_reply_outside_the_model_is_caught() -> None:
    assert reply_problems("GetHIT", 400, {"__type": "RequestError", "Message": "x",
                                          "TurkErrorCode": "AWS.MechanicalTurk.HITDoesNotExist"}) == []
    assert "not one of" in reply_problems("GetHIT", 400, {"__type": "UnknownOperationException"})[0]
    assert "without a TurkErrorCode" in reply_problems("GetHIT", 400, {"__type": "RequestError", "Message": "x"})[0]
    assert "Deleted: not a member of DeleteHITResponse" in reply_problems("DeleteHIT", 200, {"Deleted": True})[0]


def test_throttling_and_faults_come_back_in_shapes_clients_know(sim) -> None:
    """A throttled call and a 5xx fault, as the simulator answers them on demand."""
    slow = boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1", aws_access_key_id="dummy",
                        aws_secret_access_key="dummy", config=Config(retries={"total_max_attempts": 1}))
    for faults, status in (({"throttle_rate": 1.0}, 400), ({"throttle_rate": 0.0, "fault_rate": 1.0}, 500)):
        urllib.request.urlopen(urllib.request.Request(f"{sim.url}/_sim/faults", data=json.dumps(faults).encode(),
                                                      method="POST",
                                                      headers={"Content-Type": "application/json"})).read()
        results, raw = run_boto3(slow, [{"op": "GetAccountBalance", "params": {}, "error": None}])
        assert not results[0]["ok"] and raw[0][1] == status
        assert reply_problems(*raw[0]) == []


WRONG_VALUES = ["x", 7, True, [1], {"a": 1}, None, 1e308]


def test_members_of_the_wrong_type_get_errors_in_the_models_shape(sim, client) -> None:
    """Every member of every valid call of the walk replaced by values of other JSON types, sent as
    raw JSON (boto3 would refuse them before sending): each reply, success or error, is in the
    model's shape, and none is a dropped connection or a 5xx (the simulator used to store a Title
    of 7 and echo it, and to drop the connection on a NextToken of 7)."""
    calls = [c for c in plan(prepare(client, sim)) if c["error"] is None and not c.get("paginate")]
    conn = http.client.HTTPConnection(sim.url.removeprefix("http://"), timeout=20)
    problems, sent = [], 0
    for c in calls:
        base = {k: v["$epoch"] if isinstance(v, dict) and "$epoch" in v else v for k, v in c["params"].items()}
        for member, value in ((m, v) for m in base for v in WRONG_VALUES):
            conn.request("POST", "/", json.dumps({**base, member: value}),
                         {"X-Amz-Target": f"MTurkRequesterServiceV20170117.{c['op']}"})
            reply = conn.getresponse()
            body, sent = json.loads(reply.read()), sent + 1
            problems += [f"{member}={value!r}: {p}" for p in reply_problems(c["op"], reply.status, body)]
            problems += [f"{c['op']} {member}={value!r}: HTTP {reply.status}"] if reply.status >= 500 else []
    conn.close()
    assert sent > 500 and problems == []
