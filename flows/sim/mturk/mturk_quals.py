"""MTurk qualification operations on the simulator (types, grants, requests, tests)."""

from __future__ import annotations

from typing import Any

from flows.core.pages.mturk_forms import QuestionError, parse_question
from flows.sim.mturk.market import Marketplace, MTurkError
from flows.sim.mturk.mturk_api import _qual_type, _worker, op
from flows.sim.mturk.validation import QUAL_STATUSES, bad, check_enum, listed, need
from flows.sim.people import qual_tests


def _qual_view(q: dict[str, Any]) -> dict[str, Any]:
    """A member that was never set is left out, as MTurk does (JSON null is no Long)."""
    return {k: v for k, v in q.items() if not k.startswith("_") and v is not None}


@op("CreateQualificationType")
def create_qual_type(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    need(p, "Name", "Description", "QualificationTypeStatus")
    check_enum(p["QualificationTypeStatus"], QUAL_STATUSES, "QualificationTypeStatus")
    if any(q["Name"] == p["Name"] for q in m.qual_types.values()):
        raise MTurkError("AWS.MechanicalTurk.QualificationTypeAlreadyExists",
                         f"You have already created a QualificationType with this name: {p['Name']}")
    if p.get("AnswerKey") and not p.get("Test"):
        raise bad("An AnswerKey needs a Test.")
    scored = None
    if p.get("Test"):
        try:
            parse_question(p["Test"])
        except QuestionError as exc:
            raise MTurkError("AWS.MechanicalTurk.XMLParseError", f"Test: {exc}") from exc
        if p.get("AutoGranted"):
            raise bad("A QualificationType with a Test cannot also be AutoGranted.")
        if p.get("AnswerKey"):
            try:
                scored = qual_tests.parse_scored_test(p["Test"], p["AnswerKey"])
            except (ValueError, SyntaxError) as exc:
                raise MTurkError("AWS.MechanicalTurk.XMLParseError", f"AnswerKey: {exc}") from exc
    type_id = m.new_id()
    m.qual_types[type_id] = {
        "QualificationTypeId": type_id, "CreationTime": m.now, "Name": p["Name"],
        "Description": p["Description"], "Keywords": p.get("Keywords", ""),
        "QualificationTypeStatus": p["QualificationTypeStatus"],
        "RetryDelayInSeconds": p.get("RetryDelayInSeconds"), "IsRequestable": bool(p.get("Test")),
        "AutoGranted": bool(p.get("AutoGranted", False)), "AutoGrantedValue": p.get("AutoGrantedValue", 1),
        **({"Test": p["Test"], "TestDurationInSeconds": p.get("TestDurationInSeconds")} if p.get("Test") else {}),
        **({"AnswerKey": p["AnswerKey"], "_scored_test": scored} if p.get("AnswerKey") else {}),
    }
    return {"QualificationType": _qual_view(m.qual_types[type_id])}


@op("GetQualificationType")
def get_qual_type(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    return {"QualificationType": _qual_view(_qual_type(m, p.get("QualificationTypeId")))}


@op("ListQualificationTypes")
def list_qual_types(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    if "MustBeRequestable" not in p:
        raise bad("MustBeRequestable is required.")
    query = (p.get("Query") or "").lower()
    rows = [_qual_view(q) for q in m.qual_types.values()
            if query in q["Name"].lower() and (q["IsRequestable"] or not p["MustBeRequestable"])]
    return listed(rows, p, "QualificationTypes")


@op("UpdateQualificationType")
def update_qual_type(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    q = _qual_type(m, p.get("QualificationTypeId"))
    if "QualificationTypeStatus" in p:
        check_enum(p["QualificationTypeStatus"], QUAL_STATUSES, "QualificationTypeStatus")
    for key in ("Description", "QualificationTypeStatus", "RetryDelayInSeconds", "Test",
                "AnswerKey", "TestDurationInSeconds", "AutoGranted", "AutoGrantedValue"):
        if key in p:
            q[key] = p[key]
    m.qual_types.touch(q["QualificationTypeId"])
    return {"QualificationType": _qual_view(q)}


@op("DeleteQualificationType")
def delete_qual_type(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    q = _qual_type(m, p.get("QualificationTypeId"))
    del m.qual_types[q["QualificationTypeId"]]
    for key in [k for k in m.worker_quals if k[0] == q["QualificationTypeId"]]:
        del m.worker_quals[key]
    return {}


@op("AssociateQualificationWithWorker")
def associate(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    need(p, "QualificationTypeId", "WorkerId")
    q = _qual_type(m, p["QualificationTypeId"])
    worker = _worker(m, p["WorkerId"])
    m.worker_quals[(q["QualificationTypeId"], worker)] = {
        "QualificationTypeId": q["QualificationTypeId"], "WorkerId": worker, "GrantTime": m.now,
        "IntegerValue": int(p.get("IntegerValue", 1)), "Status": "Granted"}
    return {}


@op("DisassociateQualificationFromWorker")
def disassociate(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    need(p, "QualificationTypeId", "WorkerId")
    key = (_qual_type(m, p["QualificationTypeId"])["QualificationTypeId"], _worker(m, p["WorkerId"]))
    if key not in m.worker_quals:
        raise MTurkError("AWS.MechanicalTurk.QualificationDoesNotExist",
                         f"Worker {key[1]} does not have qualification {key[0]}.")
    del m.worker_quals[key]
    return {}


@op("ListWorkersWithQualificationType")
def list_workers_with_qual(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    q = _qual_type(m, p.get("QualificationTypeId"))
    rows = [v for (t, _), v in m.worker_quals.items() if t == q["QualificationTypeId"]
            and (not p.get("Status") or v["Status"] == p["Status"])]
    return listed(rows, p, "Qualifications")


@op("GetQualificationScore")
def get_score(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    key = (_qual_type(m, p.get("QualificationTypeId"))["QualificationTypeId"], _worker(m, p.get("WorkerId")))
    if key not in m.worker_quals:
        raise MTurkError("AWS.MechanicalTurk.QualificationDoesNotExist",
                         f"You requested a Qualification that does not exist for worker {key[1]}.")
    return {"Qualification": m.worker_quals[key]}


@op("ListQualificationRequests")
def list_requests(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    rows = [r for r in m.qual_requests.values()
            if not p.get("QualificationTypeId") or r["QualificationTypeId"] == p["QualificationTypeId"]]
    return listed(rows, p, "QualificationRequests")


def _request(m: Marketplace, request_id: Any) -> dict[str, Any]:
    if request_id not in m.qual_requests:
        raise MTurkError("AWS.MechanicalTurk.QualificationRequestDoesNotExist",
                         f"Qualification request {request_id} does not exist.")
    return m.qual_requests[request_id]


@op("AcceptQualificationRequest")
def accept_request(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    req = _request(m, p.get("QualificationRequestId"))
    associate(m, {"QualificationTypeId": req["QualificationTypeId"], "WorkerId": req["WorkerId"],
                  "IntegerValue": p.get("IntegerValue", 1)})
    del m.qual_requests[req["QualificationRequestId"]]
    return {}


@op("RejectQualificationRequest")
def reject_request(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    req = _request(m, p.get("QualificationRequestId"))
    del m.qual_requests[req["QualificationRequestId"]]
    return {}
