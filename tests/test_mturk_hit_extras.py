"""What the operations added to the simulator do, beyond the shape of their replies: a HIT's type
changed, qualification requests filed by workers, notification settings kept across a restart."""

from __future__ import annotations

import json
import time
import urllib.request
from datetime import UTC, datetime, timedelta

import boto3
import pytest

from flows.core.pages.mturk_forms import NS_EXTERNAL, html_question
from flows.sim.service.server import SimServer
from tests.conftest import advance
from tests.local_http import QuietHandler, local_http_server
from tests.mturk_walk import PAGE, SQS, TEST_FORM, TYPE


def _qual(client, name: str, **extra) -> str:
    return client.create_qualification_type(Name=name, Description=name, QualificationTypeStatus="Active",
                                            **extra)["QualificationType"]["QualificationTypeId"]


def _post(client, type_id: str, n: int) -> str:
    return client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=n, LifetimeInSeconds=3 * 86400,
                                           Question=html_question(PAGE))["HIT"]["HITId"]


def _workers(client, hit_id: str) -> set[str]:
    return {a["WorkerId"] for a in client.list_assignments_for_hit(HITId=hit_id, MaxResults=100)["Assignments"]}


def test_a_new_hit_type_lets_workers_in_or_keeps_them_out(sim, client) -> None:
    nobody = _qual(client, "nobody-has-it")
    closed = client.create_hit_type(**{**TYPE, "QualificationRequirements": [
        {"QualificationTypeId": nobody, "Comparator": "Exists"}]})["HITTypeId"]
    opened = client.create_hit_type(**TYPE)["HITTypeId"]
    gated, free = _post(client, closed, 6), _post(client, opened, 6)
    client.update_hit_type_of_hit(HITId=gated, HITTypeId=opened)  # nobody could take it: now anyone can
    client.update_hit_type_of_hit(HITId=free, HITTypeId=closed)  # chosen workers had not started yet
    advance(sim, 12 * 3600)
    assert len(_workers(client, gated)) == 6
    assert _workers(client, free) == set()
    hit = client.get_hit(HITId=free)["HIT"]
    assert hit["HITTypeId"] == closed and hit["QualificationRequirements"][0]["QualificationTypeId"] == nobody


def test_workers_file_requests_for_a_test_without_answer_key(sim, client) -> None:
    asked = _qual(client, "asked", Test=TEST_FORM, TestDurationInSeconds=600)
    gated = client.create_hit_type(**{**TYPE, "QualificationRequirements": [
        {"QualificationTypeId": asked, "Comparator": "Exists"}]})["HITTypeId"]
    hit_id = _post(client, gated, 3)
    advance(sim, 60)  # workers see the HIT (and ask for its test) once the clock moves
    requests = client.list_qualification_requests(QualificationTypeId=asked, MaxResults=100)["QualificationRequests"]
    assert len(requests) >= 3 and all("<FreeText>" in r["Answer"] and r["Test"] == TEST_FORM for r in requests)
    chosen = [r["WorkerId"] for r in requests[:3]]
    for r in requests[:3]:
        client.accept_qualification_request(QualificationRequestId=r["QualificationRequestId"], IntegerValue=7)
    client.reject_qualification_request(QualificationRequestId=requests[3]["QualificationRequestId"], Reason="no")
    granted = client.list_workers_with_qualification_type(QualificationTypeId=asked, MaxResults=100)
    assert sorted(q["WorkerId"] for q in granted["Qualifications"]) == sorted(chosen)
    client.create_additional_assignments_for_hit(HITId=hit_id, NumberOfAdditionalAssignments=3)
    advance(sim, 12 * 3600)
    assert _workers(client, hit_id) <= set(chosen) and _workers(client, hit_id)  # only the accepted ones work
    again = client.list_qualification_requests(QualificationTypeId=asked, MaxResults=100)["QualificationRequests"]
    assert requests[3]["WorkerId"] not in {r["WorkerId"] for r in again}  # no RetryDelay: asked once only


def test_notification_settings_outlive_a_restart(tmp_path) -> None:
    def client_for(server: SimServer):
        return boto3.client("mturk", endpoint_url=server.url, region_name="us-east-1",
                            aws_access_key_id="dummy", aws_secret_access_key="dummy")
    state = tmp_path / "sim.sqlite"
    with SimServer(seed=3, state=state) as server:
        client = client_for(server)
        type_id = client.create_hit_type(**TYPE)["HITTypeId"]
        with pytest.raises(client.exceptions.RequestError, match="no notification specification"):
            client.update_notification_settings(HITTypeId=type_id, Active=False)
        client.update_notification_settings(HITTypeId=type_id, Notification=SQS)
    with SimServer(seed=3, state=state) as server:
        client_for(server).update_notification_settings(HITTypeId=type_id, Active=False)  # the spec is still there
        assert server.market.notifications[type_id] == {**SQS, "Active": False}


def test_a_listened_hit_type_gets_its_events_in_order(sim, client) -> None:
    listened = client.create_hit_type(**TYPE)["HITTypeId"]
    quiet = client.create_hit_type(**{**TYPE, "Title": "quiet"})["HITTypeId"]
    wanted = ["HITCreated", "AssignmentAccepted", "AssignmentSubmitted", "HITReviewable", "AssignmentApproved",
              "AssignmentRejected", "HITExtended", "HITExpired", "HITDisposed"]
    client.update_notification_settings(HITTypeId=listened, Notification={**SQS, "EventTypes": wanted})
    client.update_notification_settings(HITTypeId=quiet, Notification=SQS, Active=False)
    hit_id, _ = _post(client, listened, 2), _post(client, quiet, 2)
    advance(sim, 12 * 3600)
    first, second = sorted(client.list_assignments_for_hit(HITId=hit_id)["Assignments"], key=lambda a: a["AcceptTime"])
    client.approve_assignment(AssignmentId=first["AssignmentId"])
    client.reject_assignment(AssignmentId=second["AssignmentId"], RequesterFeedback="blank")
    client.update_expiration_for_hit(HITId=hit_id, ExpireAt=datetime.now(UTC) + timedelta(days=9))
    client.update_expiration_for_hit(HITId=hit_id, ExpireAt=datetime(2020, 1, 1, tzinfo=UTC))
    client.delete_hit(HITId=hit_id)
    outbox = json.loads(urllib.request.urlopen(f"{sim.url}/_sim/notifications").read())  # as a script reads it
    assert {(sent["Transport"], sent["Destination"]) for sent in outbox} == {("SQS", SQS["Destination"])}
    documents = [json.loads(sent["Message"]) for sent in outbox]
    events = [d["Events"][0] for d in documents]
    kinds = [e["EventType"] for e in events]  # the quiet type's HIT sent nothing
    assert kinds[0] == "HITCreated" and sorted(kinds[1:5]) == ["AssignmentAccepted"] * 2 + ["AssignmentSubmitted"] * 2
    assert kinds[5:] == wanted[3:]  # reviewable when the second assignment was in, then the requester's acts
    assert all(e["HITId"] == hit_id and e["HITTypeId"] == listened for e in events)
    assert events[6]["AssignmentId"] == first["AssignmentId"] and events[7]["AssignmentId"] == second["AssignmentId"]
    assert events[5]["EventTimestamp"] == events[4]["EventTimestamp"]
    stamps = [e["EventTimestamp"] for e in events]
    assert stamps == sorted(stamps) and all(s.endswith("Z") for s in stamps)
    assert {d["EventDocVersion"] for d in documents} == {"2006-05-05"}
    assert len({d["EventDocId"] for d in documents}) == len(documents)


def test_a_hit_nobody_took_is_reviewable_when_it_expires(sim, client) -> None:
    nobody = _qual(client, "nobody-at-all")
    closed = client.create_hit_type(**{**TYPE, "QualificationRequirements": [
        {"QualificationTypeId": nobody, "Comparator": "Exists"}]})["HITTypeId"]
    client.update_notification_settings(HITTypeId=closed, Notification={
        **SQS, "EventTypes": ["HITExpired", "HITReviewable"]})
    hit_id = _post(client, closed, 3)
    advance(sim, 2 * 86400)
    assert json.loads(urllib.request.urlopen(f"{sim.url}/_sim/notifications").read()) == []  # still open
    advance(sim, 2 * 86400)  # past its 3-day lifetime
    events = [json.loads(m["Message"])["Events"][0] for m in sim.market.sent_notifications]
    assert [e["EventType"] for e in events] == ["HITExpired", "HITReviewable"]
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewable"


class _SlowPage(QuietHandler):
    """An external task page that takes a second: its answers come in after the clock has passed."""

    def do_GET(self) -> None:
        time.sleep(1.0)
        self.reply(b"<form><textarea name='caption_0' data-sim-fill='caption' data-item='1'></textarea></form>",
                   "text/html; charset=utf-8")


def test_an_external_answer_that_comes_in_late_is_notified_once(sim, client) -> None:
    listened = client.create_hit_type(**TYPE)["HITTypeId"]
    client.update_notification_settings(HITTypeId=listened, Notification={**SQS, "EventTypes": ["AssignmentSubmitted"]})
    with local_http_server(_SlowPage) as site:
        question = (f'<ExternalQuestion xmlns="{NS_EXTERNAL}"><ExternalURL>{site}/task</ExternalURL>'
                    "<FrameHeight>600</FrameHeight></ExternalQuestion>")
        hit_id = client.create_hit_with_hit_type(HITTypeId=listened, MaxAssignments=3, LifetimeInSeconds=86400,
                                                 Question=question)["HIT"]["HITId"]
        advance(sim, 86400)  # every worker has submitted by now, but no page has loaded yet
        assert sim.market.sent_notifications == []
        deadline = time.monotonic() + 30
        while len(_workers(client, hit_id)) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
    submitted = [a["AssignmentId"] for a in client.list_assignments_for_hit(HITId=hit_id)["Assignments"]]
    notified = [json.loads(m["Message"])["Events"][0]["AssignmentId"] for m in sim.market.sent_notifications]
    assert len(submitted) == 3 and sorted(notified) == sorted(submitted)


def test_extension_token_and_ten_assignment_rule(sim, client) -> None:
    """CreateAdditionalAssignmentsForHIT as MTurk's reference says: a repeated UniqueRequestToken is
    refused (the HIT is extended once), a HIT under 10 assignments cannot reach 10, and the adapter
    reads the refusal as "already made"; a HIT marked Reviewing takes its new work again."""
    from botocore.exceptions import ClientError

    from flows.platforms.mturk.adapter import add_assignments

    type_id = client.create_hit_type(**TYPE)["HITTypeId"]
    hit_id = _post(client, type_id, 2)
    advance(sim, 12 * 3600)
    client.update_hit_review_status(HITId=hit_id, Revert=False)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewing"
    assert add_assignments(client, hit_id, 1, "tok-1") is False
    assert add_assignments(client, hit_id, 1, "tok-1") is True  # the same token: not extended again
    assert client.get_hit(HITId=hit_id)["HIT"]["MaxAssignments"] == 3
    with pytest.raises(ClientError, match=r"InvalidMaximumAssignmentsIncrease|fewer than 10"):
        client.create_additional_assignments_for_hit(HITId=hit_id, NumberOfAdditionalAssignments=7)
    advance(sim, 12 * 3600)
    assert len(_workers(client, hit_id)) == 3  # the extension was worked, by a third worker
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewable"


def test_a_retried_extension_whose_first_try_went_through_is_a_repeat(sim, client) -> None:
    """A lost reply: the first try took a HIT from 5 to 8 assignments, boto's retry sends the same
    request (same token, +3 again). It must read as that request repeated (the adapter adopts it), not
    as a new one judged against the HIT it already changed (8 + 3 crosses 10: a caption top-up under
    chaos stopped every resume with InvalidMaximumAssignmentsIncrease)."""
    from flows.platforms.mturk.adapter import add_assignments

    type_id = client.create_hit_type(**TYPE)["HITTypeId"]
    hit_id = _post(client, type_id, 5)
    assert add_assignments(client, hit_id, 3, "top-up-r1") is False
    assert add_assignments(client, hit_id, 3, "top-up-r1") is True  # the retry: already made, adopted
    assert client.get_hit(HITId=hit_id)["HIT"]["MaxAssignments"] == 8
