"""The rest of MTurk's HIT operations on the simulator."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from flows.core.pages.mturk_forms import NS_FORM
from flows.sim.mturk.market import Hit, Marketplace, MTurkError
from flows.sim.mturk.market_records import SYSTEM_QUALS
from flows.sim.mturk.mturk_api import TYPE_FIELDS, _assignment, _hit, _qual_type, op, repeated
from flows.sim.mturk.validation import bad, check_enum, listed, need, page

POLICY_LEVELS = {"Assignment", "HIT"}


@op("ListHITsForQualificationType")
def list_hits_for_qual(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    """HITs of any status but deleted whose requirements name the type (system types included)."""
    need(p, "QualificationTypeId")
    type_id = p["QualificationTypeId"]
    if type_id not in SYSTEM_QUALS:
        _qual_type(m, type_id)
    hits = [h for h in m.hits.values() if not h.disposed
            and any(r["QualificationTypeId"] == type_id for r in h.fields.get("QualificationRequirements", []))]
    return listed(hits, p, "HITs", m.hit_view)


@op("UpdateHITTypeOfHIT")
def update_hit_type_of_hit(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    """The HIT takes the new type's properties; workers yet to accept it are chosen again under its requirements."""
    hit = _hit(m, p.get("HITId"))
    need(p, "HITTypeId")
    if p["HITTypeId"] not in m.hit_types:
        raise MTurkError("AWS.MechanicalTurk.HITTypeDoesNotExist", f"HIT type {p['HITTypeId']} does not exist.")
    if hit.disposed:
        raise MTurkError("AWS.MechanicalTurk.InvalidHITState", f"HIT {hit.fields['HITId']} has been deleted.")
    spec = m.hit_types[p["HITTypeId"]]
    hit.fields.update({key: spec.get(key, "" if key == "Keywords" else []) for key in TYPE_FIELDS})
    hit.fields["AssignmentDurationInSeconds"] = int(spec["AssignmentDurationInSeconds"])
    hit.fields["HITTypeId"], hit.fields["HITGroupId"] = p["HITTypeId"], "G" + p["HITTypeId"][1:]
    m.hits.touch(hit.fields["HITId"])
    _choose_again(m, hit)
    return {}


def _choose_again(m: Marketplace, hit: Hit) -> None:
    """Open slots (untaken, or not yet accepted) go to workers who meet the new requirements."""
    for aid in [aid for aid in hit.assignment_ids if m.assignments[aid].accept_time > m.now]:
        hit.assignment_ids.remove(aid)
        del m.assignments[aid]
    open_slots = int(hit.fields["MaxAssignments"]) - len(hit.assignment_ids) - hit.waiting - len(hit.reopened)
    if open_slots > 0 and m.now < hit.fields["Expiration"]:
        m.schedule_later(hit, open_slots)


@op("ListReviewPolicyResultsForHIT")
def list_review_policy_results(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    """No HIT here has a review policy (CreateHIT refuses them), so there is nothing to report."""
    hit = _hit(m, p.get("HITId"))
    for level in p.get("PolicyLevels") or []:
        check_enum(level, POLICY_LEVELS, "PolicyLevel")
    page([], p)  # MaxResults and NextToken are checked as on any paged call
    return {"HITId": hit.fields["HITId"]}


@op("GetFileUploadURL")
def get_file_upload_url(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    """Always MTurk's error: simulated workers upload no files (why: docs/mturk_api.md)."""
    a = _assignment(m, p.get("AssignmentId"))
    need(p, "QuestionIdentifier")
    name = p["QuestionIdentifier"]
    if name not in _upload_questions(m.hits[a.hit_id]):
        raise bad(f"QuestionIdentifier {name!r} is not a FileUploadAnswer question of HIT {a.hit_id}.")
    raise MTurkError("AWS.MechanicalTurk.FileUploadAnswerNotFound",
                     f"Assignment {a.assignment_id} has no uploaded file for {name!r}.")


def _upload_questions(hit: Hit) -> set[str]:
    if hit.question.kind != "QuestionForm":
        return set()
    q = f"{{{NS_FORM}}}"
    root = ET.fromstring(hit.question_xml().strip())
    return {(el.findtext(f"{q}QuestionIdentifier") or "").strip() for el in root.iter(f"{q}Question")
            if el.find(f"{q}AnswerSpecification/{q}FileUploadAnswer") is not None}


@op("CreateAdditionalAssignmentsForHIT")
def add_assignments(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    """More assignments on a HIT, as MTurk's API reference and botocore's model say (a repeated token refused)."""
    hit = _hit(m, p.get("HITId"))
    extra = int(p.get("NumberOfAdditionalAssignments", 0))
    if extra < 1:
        raise bad("NumberOfAdditionalAssignments must be at least 1.")
    # a repeat is answered before the HIT is judged again, as the request it repeats
    token = p.get("UniqueRequestToken")
    if seen := repeated(m, token, "extend:"):
        raise MTurkError("AWS.MechanicalTurk.DuplicateRequest",
                         f"The HIT was already extended with this UniqueRequestToken. RequestId: {seen[0]}")
    current = int(hit.fields["MaxAssignments"])
    if current < 10 <= current + extra:
        raise MTurkError("AWS.MechanicalTurk.InvalidMaximumAssignmentsIncrease",
                         f"HIT {hit.fields['HITId']} has {current} assignments: a HIT created with fewer than 10 "
                         "assignments cannot be extended to 10 or more.")
    if token is not None:
        m.tokens[f"extend:{token}"] = (f"{hit.fields['HITId']}:{token}", m.now)
    hit.fields["MaxAssignments"] = current + extra
    hit.reviewing = False
    m.hits.touch(hit.fields["HITId"])
    m.schedule_later(hit, extra)
    m.notify(hit, "HITExtended", m.now)
    return {}
