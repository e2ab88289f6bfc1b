"""Every operation of botocore's MTurk model, as one ordered plan of calls any client can run.

``prepare`` sets up the marketplace with boto3 (HITs with submitted work, a qualification type
workers have asked for); ``plan`` is then a list of calls with concrete inputs: each operation
with valid inputs, error inputs where it takes any, and paginated listings. A call is a dict:
``op``, ``params`` (the API's own member names; a timestamp is ``{"$epoch": seconds}``),
``error`` (the TurkErrorCode expected, or None), ``expect`` (dotted paths into the reply and
the values they must hold) and, for listings, ``paginate`` (the member that holds the items).
"""

from __future__ import annotations

from typing import Any

from botocore import xform_name

from flows.core.pages.mturk_forms import NS_FORM, html_question
from tests.conftest import advance

NOBODY = "3NOSUCHTHING00000000000000000"
PAGE = "<form><textarea name='caption_0' data-sim-fill='caption' data-item='1'></textarea></form>"
TEST_FORM = (f'<QuestionForm xmlns="{NS_FORM}"><Question><QuestionIdentifier>why</QuestionIdentifier>'
             "<QuestionContent><Text>Why do you want to describe images?</Text></QuestionContent>"
             "<AnswerSpecification><FreeTextAnswer/></AnswerSpecification></Question></QuestionForm>")
SQS = {"Destination": "https://sqs.us-east-1.amazonaws.com/123456789012/hitflow-events", "Transport": "SQS",
       "Version": "2006-05-05", "EventTypes": ["AssignmentSubmitted", "HITReviewable"]}
TYPE = {"Title": "Describe", "Description": "Describe an image", "Reward": "0.25", "Keywords": "image",
        "AssignmentDurationInSeconds": 3600, "AutoApprovalDelayInSeconds": 86400}
# the operations with a paginator in botocore's paginators-1.json, and the member holding the items
PAGINATED = {"ListHITs": "HITs", "ListReviewableHITs": "HITs", "ListHITsForQualificationType": "HITs",
             "ListAssignmentsForHIT": "Assignments", "ListBonusPayments": "BonusPayments",
             "ListQualificationTypes": "QualificationTypes", "ListQualificationRequests": "QualificationRequests",
             "ListWorkerBlocks": "WorkerBlocks", "ListWorkersWithQualificationType": "Qualifications"}


def prepare(client: Any, sim: Any) -> dict[str, Any]:
    """HITs with submitted work and open qualification requests; the ids the plan needs."""
    ids: dict[str, Any] = {"now": int(sim.market.now)}
    q = client.create_qualification_type(Name="walk-asked", Description="asked for", Test=TEST_FORM,
                                         QualificationTypeStatus="Active", TestDurationInSeconds=600)
    ids["q"] = q["QualificationType"]["QualificationTypeId"]
    ids["q_gone"] = client.create_qualification_type(Name="walk-gone", Description="to delete",
                                                     QualificationTypeStatus="Active")["QualificationType"][
                                                         "QualificationTypeId"]
    ids["t"] = client.create_hit_type(**TYPE)["HITTypeId"]
    asked = client.create_hit_type(**{**TYPE, "QualificationRequirements": [
        {"QualificationTypeId": ids["q"], "Comparator": "Exists"}]})["HITTypeId"]

    def post(type_id: str, n: int, note: str) -> str:
        return client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=n, LifetimeInSeconds=5 * 86400,
                                               Question=html_question(PAGE), RequesterAnnotation=note)["HIT"]["HITId"]
    ids["h"], ids["h_one"], ids["h_asked"] = post(ids["t"], 5, "walk-h"), post(ids["t"], 1, "walk-one"), \
        post(asked, 1, "walk-asked")
    gated = client.create_hit_type(**{**TYPE, "QualificationRequirements": [  # system type: listed by paging
        {"QualificationTypeId": "00000000000000000040", "Comparator": "GreaterThan", "IntegerValues": [0]}]})
    for i in range(3):
        post(gated["HITTypeId"], 1, f"walk-gated-{i}")
    for i in range(3):
        client.create_worker_block(WorkerId=f"ABLOCKED{i}", Reason="walk")
    advance(sim, 12 * 3600)
    work = client.list_assignments_for_hit(HITId=ids["h"], MaxResults=100)["Assignments"]
    ids["a"] = [a["AssignmentId"] for a in work]
    ids["w"] = [a["WorkerId"] for a in work]
    ids["a_one"] = client.list_assignments_for_hit(HITId=ids["h_one"])["Assignments"][0]["AssignmentId"]
    requests = client.list_qualification_requests(QualificationTypeId=ids["q"], MaxResults=100)
    ids["r"] = [r["QualificationRequestId"] for r in requests["QualificationRequests"]]
    assert len(ids["a"]) >= 4 and len(ids["r"]) >= 3, f"too little happened in the walk's marketplace: {ids}"
    return ids


def call(op: str, params: dict[str, Any], error: str | None = None, **expect: Any) -> dict[str, Any]:
    return {"op": op, "params": params, "error": error, "expect": expect}


def plan(ids: dict[str, Any]) -> list[dict[str, Any]]:
    """Valid calls, then error calls, then paginated listings (over the state the calls left)."""
    return _valid_calls(ids) + _error_calls(ids) + _paginated_calls(ids)


def _valid_calls(ids: dict[str, Any]) -> list[dict[str, Any]]:
    h, q, t, a, w = ids["h"], ids["q"], ids["t"], ids["a"], ids["w"]
    question = html_question(PAGE)
    return [
        call("CreateQualificationType", {"Name": "walk-new", "Description": "new", "QualificationTypeStatus":
                                         "Active"}, **{"QualificationType.Name": "walk-new"}),
        call("GetQualificationType", {"QualificationTypeId": q}, **{"QualificationType.IsRequestable": True}),
        call("ListQualificationTypes", {"MustBeRequestable": False, "Query": "walk-asked"}, NumResults=1),
        call("UpdateQualificationType", {"QualificationTypeId": q, "Description": "changed"},
             **{"QualificationType.Description": "changed"}),
        call("CreateHITType", TYPE, HITTypeId=t),  # identical properties: the same HIT type
        call("CreateHIT", {**TYPE, "MaxAssignments": 2, "LifetimeInSeconds": 3600, "Question": question},
             **{"HIT.MaxAssignments": 2, "HIT.HITStatus": "Assignable"}),
        call("CreateHITWithHITType", {"HITTypeId": t, "MaxAssignments": 1, "LifetimeInSeconds": 600,
                                      "Question": question, "UniqueRequestToken": "walk-token"},
             **{"HIT.HITTypeId": t}),
        call("GetHIT", {"HITId": h}, **{"HIT.HITId": h, "HIT.RequesterAnnotation": "walk-h"}),
        call("ListHITs", {"MaxResults": 100}),
        call("ListReviewableHITs", {"HITTypeId": t, "MaxResults": 100}),
        call("ListHITsForQualificationType", {"QualificationTypeId": q}, NumResults=1,
             **{"HITs.0.HITId": ids["h_asked"]}),
        call("UpdateHITTypeOfHIT", {"HITId": ids["h_asked"], "HITTypeId": t}),
        call("GetHIT", {"HITId": ids["h_asked"]}, **{"HIT.HITTypeId": t, "HIT.QualificationRequirements": []}),
        call("UpdateExpirationForHIT", {"HITId": h, "ExpireAt": {"$epoch": ids["now"] + 4 * 86400}}),
        call("CreateAdditionalAssignmentsForHIT", {"HITId": h, "NumberOfAdditionalAssignments": 1}),
        call("GetHIT", {"HITId": h}, **{"HIT.MaxAssignments": 6}),
        call("ListAssignmentsForHIT", {"HITId": h, "AssignmentStatuses": ["Submitted"], "MaxResults": 100}),
        call("GetAssignment", {"AssignmentId": a[0]}, **{"Assignment.WorkerId": w[0], "HIT.HITId": h}),
        call("ApproveAssignment", {"AssignmentId": a[0], "RequesterFeedback": "thanks"}),
        call("RejectAssignment", {"AssignmentId": a[1], "RequesterFeedback": "empty caption"}),
        call("ApproveAssignment", {"AssignmentId": a[1], "OverrideRejection": True}),
        call("GetAssignment", {"AssignmentId": a[1]}, **{"Assignment.AssignmentStatus": "Approved"}),
        call("SendBonus", {"WorkerId": w[0], "BonusAmount": "0.10", "AssignmentId": a[0], "Reason": "detail",
                           "UniqueRequestToken": "walk-bonus"}),
        call("ListBonusPayments", {"HITId": h}, NumResults=1, **{"BonusPayments.0.BonusAmount": "0.10"}),
        call("NotifyWorkers", {"Subject": "Thanks", "MessageText": "More soon.", "WorkerIds": [w[0], "ANOBODY"]},
             **{"NotifyWorkersFailureStatuses.0.WorkerId": "ANOBODY"}),
        call("GetAccountBalance", {}),
        call("CreateWorkerBlock", {"WorkerId": w[2], "Reason": "copied captions"}),
        call("ListWorkerBlocks", {"MaxResults": 100}, NumResults=4, **{"WorkerBlocks.3.WorkerId": w[2]}),
        call("DeleteWorkerBlock", {"WorkerId": w[2], "Reason": "appealed"}),
        call("AssociateQualificationWithWorker", {"QualificationTypeId": q, "WorkerId": w[0], "IntegerValue": 5,
                                                  "SendNotification": False}),
        call("GetQualificationScore", {"QualificationTypeId": q, "WorkerId": w[0]},
             **{"Qualification.IntegerValue": 5, "Qualification.Status": "Granted"}),
        call("ListWorkersWithQualificationType", {"QualificationTypeId": q, "Status": "Granted"}, NumResults=1),
        call("DisassociateQualificationFromWorker", {"QualificationTypeId": q, "WorkerId": w[0], "Reason": "x"}),
        call("ListQualificationRequests", {"QualificationTypeId": q, "MaxResults": 100},
             NumResults=len(ids["r"])),
        call("AcceptQualificationRequest", {"QualificationRequestId": ids["r"][0], "IntegerValue": 3}),
        call("RejectQualificationRequest", {"QualificationRequestId": ids["r"][1], "Reason": "no reason given"}),
        call("UpdateNotificationSettings", {"HITTypeId": t, "Notification": SQS, "Active": True}),
        call("UpdateNotificationSettings", {"HITTypeId": t, "Active": False}),
        call("SendTestEventNotification", {"Notification": SQS, "TestEventType": "Ping"}),
        call("ListReviewPolicyResultsForHIT", {"HITId": h, "PolicyLevels": ["Assignment", "HIT"]}, HITId=h),
        call("ApproveAssignment", {"AssignmentId": ids["a_one"]}),
        call("UpdateHITReviewStatus", {"HITId": ids["h_one"], "Revert": False}),
        call("GetHIT", {"HITId": ids["h_one"]}, **{"HIT.HITStatus": "Reviewing"}),
        call("DeleteHIT", {"HITId": ids["h_one"]}),
        call("DeleteQualificationType", {"QualificationTypeId": ids["q_gone"]}),
    ]


def _error_calls(ids: dict[str, Any]) -> list[dict[str, Any]]:
    h, q, t, a = ids["h"], ids["q"], ids["t"], ids["a"]
    no_hit, no_assignment, no_qual = ("AWS.MechanicalTurk.HITDoesNotExist", "AWS.MechanicalTurk.AssignmentDoesNotExist",
                                      "AWS.MechanicalTurk.QualificationTypeDoesNotExist")
    invalid, no_type = "AWS.MechanicalTurk.ParameterValidationError", "AWS.MechanicalTurk.HITTypeDoesNotExist"
    no_request = "AWS.MechanicalTurk.QualificationRequestDoesNotExist"
    state = "AWS.MechanicalTurk.InvalidAssignmentState"
    question = html_question(PAGE)
    return [
        call("CreateQualificationType", {"Name": "walk-asked", "Description": "again", "QualificationTypeStatus":
                                         "Active"}, "AWS.MechanicalTurk.QualificationTypeAlreadyExists"),
        call("GetQualificationType", {"QualificationTypeId": NOBODY}, no_qual),
        call("ListQualificationTypes", {"MustBeRequestable": False, "MaxResults": 101}, invalid),
        call("UpdateQualificationType", {"QualificationTypeId": NOBODY, "Description": "x"}, no_qual),
        call("DeleteQualificationType", {"QualificationTypeId": ids["q_gone"]}, no_qual),
        call("CreateHITType", {**TYPE, "Reward": "0.255"}, invalid),
        call("CreateHIT", {**TYPE, "MaxAssignments": 1, "LifetimeInSeconds": 10, "Question": question}, invalid),
        call("CreateHIT", {**TYPE, "MaxAssignments": 1, "LifetimeInSeconds": 600, "Question": question,
                           "AssignmentReviewPolicy": {"PolicyName": "ScoreMyKnownAnswers/2011-09-01"}}, invalid),
        call("CreateHITWithHITType", {"HITTypeId": NOBODY, "MaxAssignments": 1, "LifetimeInSeconds": 600,
                                      "Question": question}, no_type),
        call("CreateHITWithHITType", {"HITTypeId": t, "MaxAssignments": 1, "LifetimeInSeconds": 600,
                                      "Question": question, "UniqueRequestToken": "walk-token"},
             "AWS.MechanicalTurk.HitAlreadyExists"),
        call("GetHIT", {"HITId": NOBODY}, no_hit),
        call("ListHITs", {"NextToken": "not-a-token"}, invalid),
        call("ListReviewableHITs", {"Status": "Assignable"}, invalid),
        call("ListHITsForQualificationType", {"QualificationTypeId": NOBODY}, no_qual),
        call("UpdateHITTypeOfHIT", {"HITId": h, "HITTypeId": NOBODY}, no_type),
        call("UpdateExpirationForHIT", {"HITId": NOBODY, "ExpireAt": {"$epoch": ids["now"]}}, no_hit),
        call("CreateAdditionalAssignmentsForHIT", {"HITId": NOBODY, "NumberOfAdditionalAssignments": 1}, no_hit),
        call("UpdateHITReviewStatus", {"HITId": h}, "AWS.MechanicalTurk.InvalidHITState"),
        call("DeleteHIT", {"HITId": h}, "AWS.MechanicalTurk.InvalidHITState"),
        call("ListAssignmentsForHIT", {"HITId": NOBODY}, no_hit),
        call("GetAssignment", {"AssignmentId": NOBODY}, no_assignment),
        call("ApproveAssignment", {"AssignmentId": a[0]}, state),
        call("RejectAssignment", {"AssignmentId": a[0], "RequesterFeedback": "late"}, state),
        call("SendBonus", {"WorkerId": ids["w"][0], "BonusAmount": "0.10", "AssignmentId": a[0], "Reason": "again",
                           "UniqueRequestToken": "walk-bonus"}, "AWS.MechanicalTurk.BonusAlreadyPaid"),
        call("ListBonusPayments", {}, invalid),
        call("NotifyWorkers", {"Subject": "x", "MessageText": "y", "WorkerIds": [f"A{i}" for i in range(101)]},
             invalid),
        call("CreateWorkerBlock", {"WorkerId": "not-a-worker", "Reason": "x"}, "AWS.MechanicalTurk.WorkerDoesNotExist"),
        call("DeleteWorkerBlock", {"WorkerId": "not-a-worker"}, "AWS.MechanicalTurk.WorkerDoesNotExist"),
        call("ListWorkerBlocks", {"MaxResults": 101}, invalid),
        call("AssociateQualificationWithWorker", {"QualificationTypeId": NOBODY, "WorkerId": ids["w"][0]}, no_qual),
        call("DisassociateQualificationFromWorker", {"QualificationTypeId": q, "WorkerId": "ANEVERGRANTED"},
             "AWS.MechanicalTurk.QualificationDoesNotExist"),
        call("GetQualificationScore", {"QualificationTypeId": q, "WorkerId": "ANEVERGRANTED"},
             "AWS.MechanicalTurk.QualificationDoesNotExist"),
        call("ListWorkersWithQualificationType", {"QualificationTypeId": NOBODY}, no_qual),
        call("ListQualificationRequests", {"MaxResults": 101}, invalid),
        call("AcceptQualificationRequest", {"QualificationRequestId": ids["r"][0]}, no_request),
        call("RejectQualificationRequest", {"QualificationRequestId": NOBODY}, no_request),
        call("UpdateNotificationSettings", {"HITTypeId": t, "Notification": {**SQS, "Destination": "me@example.org"}},
             invalid),
        call("UpdateNotificationSettings", {"HITTypeId": NOBODY, "Active": True}, no_type),
        call("SendTestEventNotification", {"Notification": {**SQS, "Version": "2020-01-01"}, "TestEventType": "Ping"},
             invalid),
        call("ListReviewPolicyResultsForHIT", {"HITId": NOBODY}, no_hit),
        call("GetFileUploadURL", {"AssignmentId": a[0], "QuestionIdentifier": "photo"}, invalid),
        call("GetFileUploadURL", {"AssignmentId": NOBODY, "QuestionIdentifier": "photo"}, no_assignment),
    ]


def _paginated_calls(ids: dict[str, Any]) -> list[dict[str, Any]]:
    params = {"ListHITs": {}, "ListReviewableHITs": {}, "ListHITsForQualificationType":
              {"QualificationTypeId": "00000000000000000040"}, "ListAssignmentsForHIT": {"HITId": ids["h"]},
              "ListBonusPayments": {"HITId": ids["h"]}, "ListQualificationTypes": {"MustBeRequestable": False},
              "ListQualificationRequests": {}, "ListWorkerBlocks": {},
              "ListWorkersWithQualificationType": {"QualificationTypeId": ids["q"]}}
    return [{**call(op, params[op]), "paginate": key} for op, key in PAGINATED.items()]


ID_KEYS = ("HITId", "AssignmentId", "QualificationTypeId", "QualificationRequestId", "WorkerId")


def item_ids(items: list[dict[str, Any]]) -> list[str]:
    """What names each listed item (a bonus by its assignment, a block or a grant by its worker)."""
    return [next(str(item[k]) for k in ID_KEYS if k in item) for item in items]


def dig(reply: Any, path: str) -> Any:
    for part in path.split("."):
        reply = reply[int(part)] if isinstance(reply, list) else reply.get(part, "<absent>")
    return reply


def mismatches(calls: list[dict[str, Any]], results: list[dict[str, Any]], truth: Any) -> list[str]:
    """What a client saw that the plan did not expect. A result: ``ok``, ``code`` (TurkErrorCode of
    an error), ``reply`` (the parsed reply; for a paginated call, every item of every page).
    ``truth(op, params)``: every item of a listing, read in one page with boto3."""
    problems = []
    assert len(results) == len(calls), f"{len(results)} results for {len(calls)} calls"
    for i, (c, r) in enumerate(zip(calls, results, strict=True)):
        where = f"#{i} {c['op']} {'(paged)' if c.get('paginate') else ''}"
        if r["ok"] != (c["error"] is None) or (c["error"] and r["code"] != c["error"]):
            problems.append(f"{where}: expected {c['error'] or 'success'}, got {r.get('code') or r.get('reply')}")
            continue
        for path, want in c["expect"].items():
            if dig(r["reply"], path) != want:
                problems.append(f"{where}: {path} is {dig(r['reply'], path)!r}, expected {want!r}")
        if c.get("paginate"):
            want_ids = item_ids(truth(c["op"], c["params"]))
            if item_ids(r["reply"]) != want_ids or len(want_ids) < 1:
                problems.append(f"{where}: paged items {item_ids(r['reply'])} != one page's {want_ids}")
    return problems


def snake(op: str) -> str:
    return str(xform_name(op))


def truth_from(client: Any) -> Any:
    """Every item of a listing in one page (MaxResults 100), read with boto3."""
    def everything(op: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return list(getattr(client, snake(op))(**params, MaxResults=100)[PAGINATED[op]])
    return everything
