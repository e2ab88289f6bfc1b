"""MTurk Requester API 2017-01-17 operations against the simulated marketplace."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flows.core.pages.mturk_forms import QuestionError, parse_question
from flows.sim.mturk.eligible_pool import KEEPS_ELIGIBLE
from flows.sim.mturk.market import Assignment, Hit, Marketplace, MTurkError
from flows.sim.mturk.market_records import new_hit
from flows.sim.mturk.mturk_input import check_input
from flows.sim.mturk.validation import (
    ASSIGNMENT_STATUSES,
    bad,
    check_enum,
    check_id,
    check_money,
    check_requirements,
    listed,
    need,
)

Handler = Callable[[Marketplace, dict[str, Any]], dict[str, Any]]
OPERATIONS: dict[str, Handler] = {}
TOKEN_WINDOW_S = 24 * 3600
NO_HIT = "AWS.MechanicalTurk.HITDoesNotExist"
NO_ASSIGNMENT = "AWS.MechanicalTurk.AssignmentDoesNotExist"
NO_QUAL = "AWS.MechanicalTurk.QualificationTypeDoesNotExist"
NO_WORKER = "AWS.MechanicalTurk.WorkerDoesNotExist"
# What a HIT takes from its HIT type (CreateHITType's parameters, as CreateHIT copies them).
TYPE_FIELDS = ("AutoApprovalDelayInSeconds", "AssignmentDurationInSeconds", "Reward", "Title", "Keywords",
               "Description", "QualificationRequirements")


def op(name: str) -> Callable[[Handler], Handler]:
    """Register ``fn`` as the operation ``name``, its request checked against the model's input shape first."""
    def wrap(fn: Handler) -> Handler:
        def checked(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
            check_input(name, p)
            if name not in KEEPS_ELIGIBLE:
                m.eligible.forget()
            return fn(m, p)
        OPERATIONS[name] = checked
        return fn
    return wrap


def _hit(m: Marketplace, hit_id: Any) -> Hit:
    check_id(hit_id, "HITId", NO_HIT)
    if hit_id not in m.hits:
        raise MTurkError(NO_HIT, f"Hit {hit_id} does not exist. (Operation on unknown HITId.)")
    return m.hits[hit_id]


def _assignment(m: Marketplace, assignment_id: Any) -> Assignment:
    check_id(assignment_id, "AssignmentId", NO_ASSIGNMENT)
    a = m.assignments.get(assignment_id)
    if a is None or not m.visible(a):
        raise MTurkError(NO_ASSIGNMENT, f"Assignment {assignment_id} does not exist.")
    return a


def _worker(m: Marketplace, worker_id: Any) -> str:
    check_id(worker_id, "WorkerId", NO_WORKER)
    return str(worker_id)


def _qual_type(m: Marketplace, type_id: Any) -> dict[str, Any]:
    check_id(type_id, "QualificationTypeId", NO_QUAL)
    if type_id not in m.qual_types:
        raise MTurkError(NO_QUAL, f"Qualification type {type_id} does not exist.")
    return m.qual_types[type_id]


def repeated(m: Marketplace, token: Any, prefix: str) -> tuple[str, float] | None:
    """What a UniqueRequestToken (under ``prefix``) was first sent for, if within MTurk's 24 hours; None for new."""
    if token is None:
        return None
    if not 1 <= len(token) <= 64:
        raise bad("UniqueRequestToken must be 1-64 characters.")
    seen = m.tokens.get(prefix + token)
    return seen if seen and m.now - seen[1] < TOKEN_WINDOW_S else None


def assignment_view(a: Assignment) -> dict[str, Any]:
    later = {"ApprovalTime": a.approval_time, "RejectionTime": a.rejection_time, "RequesterFeedback": a.feedback}
    return {"AssignmentId": a.assignment_id, "WorkerId": a.worker_id, "HITId": a.hit_id,
            "AssignmentStatus": a.status, "AcceptTime": a.accept_time, "SubmitTime": a.submit_time,
            "AutoApprovalTime": a.auto_approval_time, "Deadline": a.deadline, "Answer": a.answer,
            **{key: value for key, value in later.items() if value is not None}}


# HIT types and HITs ------------------------------------------------------------
@op("CreateHITType")
def create_hit_type(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    need(p, "AssignmentDurationInSeconds", "Reward", "Title", "Description")
    check_money(p["Reward"], "Reward")
    if not 30 <= int(p["AssignmentDurationInSeconds"]) <= 31536000:
        raise bad("AssignmentDurationInSeconds must be between 30 and 31536000.")
    if not 0 <= int(p.get("AutoApprovalDelayInSeconds", 2592000)) <= 2592000:
        raise bad("AutoApprovalDelayInSeconds must be between 0 and 2592000 (30 days).")
    check_requirements(p.get("QualificationRequirements", []))
    for req in p.get("QualificationRequirements", []):
        qid = req["QualificationTypeId"]
        if len(qid) > 20 and qid not in m.qual_types:
            raise MTurkError(NO_QUAL, f"Qualification type {qid} in QualificationRequirements does not exist.")
    key = repr(sorted((k, repr(v)) for k, v in p.items()))
    for type_id, spec in m.hit_types.items():
        if spec["_key"] == key:  # MTurk returns the same HITTypeId for identical properties
            return {"HITTypeId": type_id}
    type_id = m.id_for(f"hit-type:{key}", m.hit_types.__contains__)
    auto = int(p.get("AutoApprovalDelayInSeconds", 2592000))
    m.hit_types[type_id] = {**p, "_key": key, "AutoApprovalDelayInSeconds": auto}
    return {"HITTypeId": type_id}


def _create_hit(m: Marketplace, type_id: str, p: dict[str, Any]) -> dict[str, Any]:
    need(p, "LifetimeInSeconds")
    max_assign = int(p.get("MaxAssignments", 1))
    if not 1 <= max_assign <= 1000000000:
        raise bad("MaxAssignments must be at least 1.")
    if not 30 <= int(p["LifetimeInSeconds"]) <= 31536000:
        raise bad("LifetimeInSeconds must be between 30 and 31536000.")
    for unsimulated in ("AssignmentReviewPolicy", "HITReviewPolicy", "HITLayoutId"):
        if p.get(unsimulated):  # refused, not ignored: a requester relying on one would be misled
            raise bad(f"{unsimulated} is not supported by the simulator: send the Question itself and review "
                      "assignments with ApproveAssignment/RejectAssignment.")
    token = p.get("UniqueRequestToken")
    if seen := repeated(m, token, ""):
        raise MTurkError("AWS.MechanicalTurk.HitAlreadyExists",
                         f"There is already a HIT with this UniqueRequestToken. HITId: {seen[0]}")
    try:
        question = parse_question(p.get("Question") or "")
    except QuestionError as exc:
        raise MTurkError("AWS.MechanicalTurk.XMLParseError", str(exc)) from exc
    spec = m.hit_types[type_id]
    hit_id = m.id_for(f"hit:{token}", m.hits.__contains__) if token is not None else m.new_id()
    fields = {
        "HITId": hit_id, "HITTypeId": type_id, "HITGroupId": "G" + type_id[1:], "CreationTime": m.now,
        "Title": spec["Title"], "Description": spec["Description"], "Question": p["Question"],
        "Keywords": spec.get("Keywords", ""), "MaxAssignments": max_assign, "Reward": spec["Reward"],
        "AutoApprovalDelayInSeconds": spec["AutoApprovalDelayInSeconds"],
        "Expiration": m.now + int(p["LifetimeInSeconds"]),
        "AssignmentDurationInSeconds": int(spec["AssignmentDurationInSeconds"]),
        "QualificationRequirements": spec.get("QualificationRequirements", []),
        "RequesterAnnotation": p.get("RequesterAnnotation", ""),
    }
    hit = new_hit(fields, question, m.pages)
    if m.hit_cost(hit) > m.balance:
        raise MTurkError("AWS.MechanicalTurk.InsufficientFunds",
                         f"Balance {m.balance} is below the cost of one assignment ({m.hit_cost(hit)}).")
    m.hits[hit_id] = hit
    if token is not None:
        m.tokens[token] = (hit_id, m.now)
    m.schedule_later(hit, max_assign)
    m.notify(hit, "HITCreated", m.now)
    return {"HIT": m.hit_view(hit)}


@op("CreateHIT")
def create_hit(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    type_id = create_hit_type(m, {k: p[k] for k in TYPE_FIELDS if k in p})["HITTypeId"]
    return _create_hit(m, type_id, p)


@op("CreateHITWithHITType")
def create_hit_with_type(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    need(p, "HITTypeId")
    if p["HITTypeId"] not in m.hit_types:
        raise MTurkError("AWS.MechanicalTurk.HITTypeDoesNotExist", f"HIT type {p['HITTypeId']} does not exist.")
    return _create_hit(m, p["HITTypeId"], p)


@op("GetHIT")
def get_hit(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    return {"HIT": m.hit_view(_hit(m, p.get("HITId")))}


@op("ListHITs")
def list_hits(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    return listed([h for h in m.hits.values() if not h.disposed], p, "HITs", m.hit_view)  # views of this page only


@op("ListReviewableHITs")
def list_reviewable_hits(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    status = p.get("Status", "Reviewable")
    check_enum(status, {"Reviewable", "Reviewing"}, "Status")
    # a HIT under review is "Reviewing" whatever else holds: only the others need their view
    candidates = [h for h in m.hits.values() if not h.disposed and h.reviewing == (status == "Reviewing")
                  and (not p.get("HITTypeId") or h.fields["HITTypeId"] == p["HITTypeId"])]
    # views of this page only (a view unpacks the HIT's page); every "Reviewing" candidate is one
    states = [(h, None if status == "Reviewing" else m.hit_status(h)) for h in candidates]
    return listed([(h, s) for h, s in states if s is None or s["HITStatus"] == status], p, "HITs",
                  lambda pair: m.hit_view(*pair))


@op("UpdateExpirationForHIT")
def update_expiration(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    hit = _hit(m, p.get("HITId"))
    need(p, "ExpireAt")
    if float(p["ExpireAt"]) - m.now > 31536000:  # a HIT lives at most a year, as CreateHIT's lifetime
        raise bad("ExpireAt must be within 31536000 seconds (one year) from now.")
    before, hit.fields["Expiration"] = hit.fields["Expiration"], max(m.now, float(p["ExpireAt"]))  # past: now
    if hit.fields["Expiration"] != before:
        m.notify(hit, "HITExpired" if hit.fields["Expiration"] <= m.now else "HITExtended", m.now)
    m.hits.touch(hit.fields["HITId"])
    for aid in list(hit.assignment_ids):  # workers who had not yet accepted never will
        if m.assignments[aid].accept_time > hit.fields["Expiration"]:
            hit.assignment_ids.remove(aid)
            del m.assignments[aid]
    return {}


@op("UpdateHITReviewStatus")
def update_review_status(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    hit = _hit(m, p.get("HITId"))
    if m.hit_status(hit)["HITStatus"] not in ("Reviewable", "Reviewing"):
        raise MTurkError("AWS.MechanicalTurk.InvalidHITState", f"HIT {hit.fields['HITId']} is not reviewable.")
    hit.reviewing = not bool(p.get("Revert", False))
    return {}


@op("DeleteHIT")
def delete_hit(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    hit = _hit(m, p.get("HITId"))
    view = m.hit_status(hit)
    unreviewed = [a for a in hit.assignment_ids if m.assignments[a].status == "Submitted"]
    if view["HITStatus"] not in ("Reviewable", "Reviewing") or unreviewed or view["NumberOfAssignmentsPending"]:
        raise MTurkError("AWS.MechanicalTurk.InvalidHITState",
                         f"This HIT is currently in the state '{view['HITStatus']}' with "
                         f"{len(unreviewed)} unreviewed assignment(s); it cannot be deleted.")
    hit.disposed = True
    m.notify(hit, "HITDisposed", m.now)
    return {}


# assignments -------------------------------------------------------------------
@op("ListAssignmentsForHIT")
def list_assignments(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    hit = _hit(m, p.get("HITId"))
    statuses = p.get("AssignmentStatuses") or sorted(ASSIGNMENT_STATUSES)
    for s in statuses:
        check_enum(s, ASSIGNMENT_STATUSES, "AssignmentStatus")
    rows = [assignment_view(m.assignments[a]) for a in hit.assignment_ids
            if m.visible(m.assignments[a]) and m.assignments[a].status in statuses]
    return listed(rows, p, "Assignments")


@op("GetAssignment")
def get_assignment(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    a = _assignment(m, p.get("AssignmentId"))
    return {"Assignment": assignment_view(a), "HIT": m.hit_view(m.hits[a.hit_id])}


@op("ApproveAssignment")
def approve(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    a = _assignment(m, p.get("AssignmentId"))
    if a.status == "Rejected" and p.get("OverrideRejection"):
        m.pay_assignment(a, m.now)
        return {}
    if a.status != "Submitted":
        raise MTurkError("AWS.MechanicalTurk.InvalidAssignmentState",
                         f"This operation can be called with a status of: Submitted (assignment is {a.status}).")
    m.pay_assignment(a, m.now)
    if p.get("RequesterFeedback"):
        a.feedback = str(p["RequesterFeedback"])
    return {}


@op("RejectAssignment")
def reject(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    a = _assignment(m, p.get("AssignmentId"))
    need(p, "RequesterFeedback")
    if a.status != "Submitted":
        raise MTurkError("AWS.MechanicalTurk.InvalidAssignmentState",
                         f"This operation can be called with a status of: Submitted (assignment is {a.status}).")
    a.status, a.rejection_time, a.feedback = "Rejected", m.now, str(p["RequesterFeedback"])
    m.notify(m.hits[a.hit_id], "AssignmentRejected", m.now, a.assignment_id)
    worker = m.workers.get(a.worker_id)
    if worker:
        done = max(1, round(worker.hits_approved * 100 / max(1, worker.percent_approved)))
        worker.percent_approved = int(100 * worker.hits_approved / (done + 1))
        m.changed_workers.add(worker.worker_id)
    return {}
