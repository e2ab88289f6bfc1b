"""Raw boto3 (knowing nothing of hitflow) against the simulator over HTTP."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from decimal import Decimal

import boto3
import pytest
from botocore.config import Config

from flows.core.pages.mturk_forms import html_question, parse_answer_xml
from tests.conftest import advance

PAGE = """<form>
<script type="application/json" id="submit-rules">
{"min_words": 8, "one_sentence": true, "banned_prefixes": ["This is"]}</script>
<input type="hidden" name="image_id_0" value="{item}">
<textarea name="caption_0" data-sim-fill="caption" data-item="{item}" data-index="0"></textarea>
<input type="radio" name="text_present_0" value="yes" data-sim-fill="text_present" data-item="{item}">
<input type="radio" name="text_present_0" value="no">
<select name="mood"><option value="calm">calm</option><option value="busy">busy</option></select>
</form>"""
GATING = [{"QualificationTypeId": "00000000000000000040", "Comparator": "GreaterThan", "IntegerValues": [500]},
          {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo", "IntegerValues": [95]}]


def hit_type(client, reward: str = "0.50", quals=GATING, auto: int = 86400) -> str:
    return client.create_hit_type(Title="Describe", Description="Describe an image", Reward=reward,
                                  AssignmentDurationInSeconds=3600, AutoApprovalDelayInSeconds=auto,
                                  QualificationRequirements=quals)["HITTypeId"]


def post(client, type_id: str, n: int = 5, token: str | None = None, item: str = "1") -> str:
    extra = {"UniqueRequestToken": token} if token else {}
    return client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=n, LifetimeInSeconds=86400,
                                           Question=html_question(PAGE.replace("{item}", item)),
                                           **extra)["HIT"]["HITId"]


def code(exc: Exception) -> str:
    return exc.response["TurkErrorCode"]  # type: ignore[attr-defined]


def test_workers_answer_form_fields_in_question_form_answers(sim, client) -> None:
    hit_id = post(client, hit_type(client), item="9999")
    assert client.list_assignments_for_hit(HITId=hit_id)["NumResults"] == 0  # nobody done yet
    advance(sim, 6 * 3600)
    assignments = client.list_assignments_for_hit(HITId=hit_id, MaxResults=100)["Assignments"]
    assert len(assignments) == 5
    for a in assignments:
        assert a["AssignmentStatus"] == "Submitted" and a["WorkerId"].startswith("A")
        assert a["SubmitTime"] > a["AcceptTime"]
        answers = parse_answer_xml(a["Answer"])
        if sim.market.workers[a["WorkerId"]].profile == "rule_breaker":
            continue  # posts around the page: an unchecked radio is simply absent, as from a browser
        assert set(answers) == {"image_id_0", "caption_0", "text_present_0", "mood"}
        assert answers["image_id_0"] == "9999" and answers["mood"] in ("calm", "busy")
        assert answers["text_present_0"] in ("yes", "no")
    assert a["Answer"].startswith('<?xml version="1.0" encoding="ASCII"?><QuestionFormAnswers')


def test_only_qualified_unblocked_workers_take_hits(sim, client) -> None:
    truth = {w.worker_id: w for w in sim.market.workers.values()}
    low = [w for w, info in truth.items() if info.profile == "low_approval"]
    qual = client.create_qualification_type(Name="blocked", Description="soft block",
                                            QualificationTypeStatus="Active")["QualificationType"]["QualificationTypeId"]
    good = [w for w, info in truth.items() if info.profile == "diligent"]
    for w in good[:5]:
        client.associate_qualification_with_worker(QualificationTypeId=qual, WorkerId=w, IntegerValue=1,
                                                   SendNotification=False)
    client.create_worker_block(WorkerId=good[5], Reason="test")
    type_id = hit_type(client, quals=[*GATING, {"QualificationTypeId": qual, "Comparator": "DoesNotExist"}])
    hits = [post(client, type_id, n=10, item=str(i)) for i in range(6)]
    advance(sim, 2 * 86400)
    workers = {a["WorkerId"] for h in hits
               for a in client.list_assignments_for_hit(HITId=h, MaxResults=100)["Assignments"]}
    assert workers and not workers & set(low) and not workers & set(good[:6])


def test_unknown_ids_and_invalid_values_give_mturk_errors(client) -> None:
    with pytest.raises(client.exceptions.RequestError) as err:
        client.get_hit(HITId="3ABCDEFGHIJKLMNOPQRSTUVWXYZ012")
    assert code(err.value) == "AWS.MechanicalTurk.HITDoesNotExist"
    with pytest.raises(client.exceptions.RequestError, match="MaxResults"):
        client.list_hits(MaxResults=101)
    with pytest.raises(client.exceptions.RequestError, match="CurrencyAmount"):
        hit_type(client, reward="0.555")
    with pytest.raises(client.exceptions.RequestError, match="Comparator"):
        hit_type(client, quals=[{"QualificationTypeId": "00000000000000000040", "Comparator": "Bigger",
                                 "IntegerValues": [1]}])
    with pytest.raises(client.exceptions.RequestError, match="NextToken"):
        client.list_hits(NextToken="bogus")
    with pytest.raises(client.exceptions.RequestError) as err:
        client.get_assignment(AssignmentId="lower-case-bad")
    assert code(err.value) == "AWS.MechanicalTurk.AssignmentDoesNotExist"


@pytest.mark.parametrize(("question", "match"), [
    ("<HTMLQuestion>not closed", "well-formed"),
    ('<Foo xmlns="urn:x"/>', "not an HTMLQuestion"),
    (html_question("x" * 70000), "limit is 65535"),
])
def test_question_xml_is_checked(client, question: str, match: str) -> None:
    with pytest.raises(client.exceptions.RequestError, match=match):
        client.create_hit_with_hit_type(HITTypeId=hit_type(client), MaxAssignments=1, LifetimeInSeconds=600,
                                        Question=question)


def test_list_calls_page_with_next_token(sim, client) -> None:
    type_id = hit_type(client)
    posted = {post(client, type_id, n=1, item=str(i)) for i in range(23)}
    seen, token, pages = [], None, 0
    while True:
        page = client.list_hits(MaxResults=10, **({"NextToken": token} if token else {}))
        seen += [h["HITId"] for h in page["HITs"]]
        pages += 1
        token = page.get("NextToken")
        if not token:
            break
    assert pages == 3 and set(seen) == posted and len(seen) == 23
    assert len(client.list_hits()["HITs"]) == 10  # MTurk's default page size


def test_unique_request_token_is_idempotent_for_24_hours(sim, client) -> None:
    type_id = hit_type(client)
    first = post(client, type_id, token="tok-1")
    with pytest.raises(client.exceptions.RequestError) as err:
        post(client, type_id, token="tok-1")
    assert code(err.value) == "AWS.MechanicalTurk.HitAlreadyExists"
    assert first in str(err.value)
    advance(sim, 24 * 3600 + 1)
    assert post(client, type_id, token="tok-1") != first


def test_review_lifecycle_and_fees(sim, client) -> None:
    start = Decimal(client.get_account_balance()["AvailableBalance"])
    hit_id = post(client, hit_type(client, reward="0.50"), n=5)
    advance(sim, 6 * 3600)
    a1, a2, *_ = client.list_assignments_for_hit(HITId=hit_id)["Assignments"]
    client.approve_assignment(AssignmentId=a1["AssignmentId"])
    with pytest.raises(client.exceptions.RequestError) as err:
        client.approve_assignment(AssignmentId=a1["AssignmentId"])
    assert code(err.value) == "AWS.MechanicalTurk.InvalidAssignmentState"
    client.reject_assignment(AssignmentId=a2["AssignmentId"], RequesterFeedback="broke the rules")
    assert Decimal(client.get_account_balance()["AvailableBalance"]) == start - Decimal("0.60")
    with pytest.raises(client.exceptions.RequestError, match="cannot be deleted"):
        client.delete_hit(HITId=hit_id)
    client.approve_assignment(AssignmentId=a2["AssignmentId"], OverrideRejection=True)
    statuses = {a["AssignmentStatus"] for a in client.list_assignments_for_hit(HITId=hit_id)["Assignments"]}
    assert statuses == {"Approved", "Submitted"}
    advance(sim, 86400)  # auto-approval after AutoApprovalDelayInSeconds
    statuses = [a["AssignmentStatus"] for a in client.list_assignments_for_hit(HITId=hit_id)["Assignments"]]
    assert statuses == ["Approved"] * 5
    assert Decimal(client.get_account_balance()["AvailableBalance"]) == start - 5 * Decimal("0.60")
    client.delete_hit(HITId=hit_id)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Disposed"


@pytest.mark.parametrize(("reward", "n", "per_assignment"), [
    ("0.50", 9, "0.60"), ("0.50", 10, "0.70"), ("0.01", 1, "0.02"), ("1.00", 12, "1.40")])
def test_fee_schedule(sim, client, reward: str, n: int, per_assignment: str) -> None:
    start = Decimal(client.get_account_balance()["AvailableBalance"])
    hit_id = client.create_hit(Title="t", Description="d", Reward=reward, AssignmentDurationInSeconds=3600,
                               LifetimeInSeconds=86400, MaxAssignments=n, AutoApprovalDelayInSeconds=60,
                               Question=html_question(PAGE.replace("{item}", "1")))["HIT"]["HITId"]
    advance(sim, 3 * 86400)
    done = client.list_assignments_for_hit(HITId=hit_id, MaxResults=100)["NumResults"]
    assert done > 0
    assert start - Decimal(client.get_account_balance()["AvailableBalance"]) == done * Decimal(per_assignment)


def test_bonus_is_debited_with_fee(sim, client) -> None:
    hit_id = post(client, hit_type(client), n=1)
    advance(sim, 6 * 3600)
    a = client.list_assignments_for_hit(HITId=hit_id)["Assignments"][0]
    before = Decimal(client.get_account_balance()["AvailableBalance"])
    client.send_bonus(WorkerId=a["WorkerId"], BonusAmount="1.00", AssignmentId=a["AssignmentId"],
                      Reason="thanks", UniqueRequestToken="b1")
    assert before - Decimal(client.get_account_balance()["AvailableBalance"]) == Decimal("1.20")
    assert client.list_bonus_payments(HITId=hit_id)["BonusPayments"][0]["BonusAmount"] == "1.00"


def test_throttling_is_retried_by_boto3(sim) -> None:
    sim.market.faults.throttle_rate = 0.5
    retrying = boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1", aws_access_key_id="d",
                            aws_secret_access_key="d",
                            config=Config(retries={"mode": "standard", "max_attempts": 15}))
    retries = sum(retrying.get_account_balance()["ResponseMetadata"]["RetryAttempts"] for _ in range(10))
    assert retries > 0


def test_qualifications_grant_score_and_list(client) -> None:
    made = client.create_qualification_type(Name="skill", Description="d", QualificationTypeStatus="Active")
    qid = made["QualificationType"]["QualificationTypeId"]
    with pytest.raises(client.exceptions.RequestError, match="already created"):
        client.create_qualification_type(Name="skill", Description="d", QualificationTypeStatus="Active")
    client.associate_qualification_with_worker(QualificationTypeId=qid, WorkerId="AWORKER1", IntegerValue=87,
                                               SendNotification=False)
    score = client.get_qualification_score(QualificationTypeId=qid, WorkerId="AWORKER1")["Qualification"]
    assert score["IntegerValue"] == 87
    listed = client.list_workers_with_qualification_type(QualificationTypeId=qid)["Qualifications"]
    assert [q["WorkerId"] for q in listed] == ["AWORKER1"]
    client.disassociate_qualification_from_worker(QualificationTypeId=qid, WorkerId="AWORKER1")
    with pytest.raises(client.exceptions.RequestError):
        client.get_qualification_score(QualificationTypeId=qid, WorkerId="AWORKER1")


def test_ground_truth_and_manual_external_submit(sim, client) -> None:
    truth = json.loads(urllib.request.urlopen(f"{sim.url}/_sim/workers").read())
    assert {w["profile"] for w in truth} >= {"diligent", "speeder", "rule_breaker", "low_approval"}
    hit_id = post(client, hit_type(client), n=1, item="42")
    page = urllib.request.urlopen(f"{sim.url}/mturk/accept?hitId={hit_id}&workerId=AHUMAN1")
    query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
    assert b"caption_0" in page.read()
    form = urllib.parse.urlencode({"assignmentId": query["assignmentId"][0], "caption_0": "typed <by> hand",
                                   "image_id_0": "42"}).encode()
    assert b"Thank you" in urllib.request.urlopen(f"{sim.url}/mturk/externalSubmit", data=form).read()
    mine = [a for a in client.list_assignments_for_hit(HITId=hit_id)["Assignments"] if a["WorkerId"] == "AHUMAN1"]
    assert parse_answer_xml(mine[0]["Answer"])["caption_0"] == "typed <by> hand"


def test_review_status_expiry_and_extra_assignments(sim, client) -> None:
    type_id = hit_type(client)
    hit_id = post(client, type_id, n=2)
    client.create_additional_assignments_for_hit(HITId=hit_id, NumberOfAdditionalAssignments=2)
    advance(sim, 6 * 3600)
    assert client.get_hit(HITId=hit_id)["HIT"]["MaxAssignments"] == 4
    assert len(client.list_assignments_for_hit(HITId=hit_id)["Assignments"]) == 4
    reviewable = client.list_reviewable_hits(HITTypeId=type_id)["HITs"]
    assert [h["HITId"] for h in reviewable] == [hit_id]
    client.update_hit_review_status(HITId=hit_id, Revert=False)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewing"
    assert client.list_reviewable_hits(Status="Reviewing")["NumResults"] == 1
    client.update_hit_review_status(HITId=hit_id, Revert=True)
    other = post(client, type_id, n=3, item="2")
    client.update_expiration_for_hit(HITId=other, ExpireAt=0)
    view = client.get_hit(HITId=other)["HIT"]
    assert view["NumberOfAssignmentsAvailable"] == 0 and view["HITStatus"] in ("Reviewable", "Unassignable")
    assignment = client.list_assignments_for_hit(HITId=hit_id)["Assignments"][0]
    got = client.get_assignment(AssignmentId=assignment["AssignmentId"])
    assert got["HIT"]["HITId"] == hit_id and got["Assignment"]["Answer"] == assignment["Answer"]


def test_blocks_notifications_and_qualification_admin(sim, client) -> None:
    worker = next(iter(sim.market.workers))
    client.create_worker_block(WorkerId=worker, Reason="spam")
    assert [b["WorkerId"] for b in client.list_worker_blocks()["WorkerBlocks"]] == [worker]
    client.delete_worker_block(WorkerId=worker, Reason="appeal")
    assert client.list_worker_blocks()["NumResults"] == 0
    failures = client.notify_workers(Subject="s", MessageText="m", WorkerIds=[worker, "AUNKNOWN"])
    assert [f["WorkerId"] for f in failures["NotifyWorkersFailureStatuses"]] == ["AUNKNOWN"]
    qid = client.create_qualification_type(Name="q1", Description="d", QualificationTypeStatus="Active",
                                           Keywords="a")["QualificationType"]["QualificationTypeId"]
    found = client.list_qualification_types(Query="q1", MustBeRequestable=False)["QualificationTypes"]
    assert [q["QualificationTypeId"] for q in found] == [qid]
    client.update_qualification_type(QualificationTypeId=qid, QualificationTypeStatus="Inactive")
    assert client.get_qualification_type(QualificationTypeId=qid)["QualificationType"]["QualificationTypeStatus"] \
        == "Inactive"
    assert client.list_qualification_requests(QualificationTypeId=qid)["NumResults"] == 0
    with pytest.raises(client.exceptions.RequestError):
        client.accept_qualification_request(QualificationRequestId="3NOPE")
    client.delete_qualification_type(QualificationTypeId=qid)
    with pytest.raises(client.exceptions.RequestError) as err:
        client.get_qualification_type(QualificationTypeId=qid)
    assert code(err.value) == "AWS.MechanicalTurk.QualificationTypeDoesNotExist"
