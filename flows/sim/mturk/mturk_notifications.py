"""MTurk's notification operations on the simulator."""

from __future__ import annotations

import re
from typing import Any

from flows.sim.mturk.market import Marketplace, MTurkError
from flows.sim.mturk.mturk_api import op
from flows.sim.mturk.mturk_events import delivery, event
from flows.sim.mturk.validation import bad, check_enum, need

# the Version MTurk documents (2006-05-05) and the one its receptor articles pass (2014-08-15)
VERSIONS = ("2006-05-05", "2014-08-15")
TRANSPORTS = {"Email", "SQS", "SNS"}
EVENT_TYPES = {"AssignmentAccepted", "AssignmentAbandoned", "AssignmentReturned", "AssignmentSubmitted",
               "AssignmentRejected", "AssignmentApproved", "HITCreated", "HITExpired", "HITReviewable",
               "HITExtended", "HITDisposed", "Ping"}
DESTINATIONS = {  # the Destination's form depends on the Transport (NotificationSpecification.Destination)
    "Email": (re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+"), "an e-mail address"),
    "SQS": (re.compile(r"https://sqs\.[a-z0-9-]+\.amazonaws\.com/[0-9]{12}/[A-Za-z0-9_-]{1,80}(\.fifo)?"),
            "an SQS queue URL such as https://sqs.us-east-1.amazonaws.com/123456789012/my-queue"),
    "SNS": (re.compile(r"arn:aws:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}"),
            "an SNS topic ARN such as arn:aws:sns:us-east-1:123456789012:my-topic"),
}


def check_specification(spec: Any, test: bool) -> dict[str, Any]:
    """The specification as MTurk accepts it; ``test``: for SendTestEventNotification (Ping allowed)."""
    if not isinstance(spec, dict):
        raise bad("Notification must be a NotificationSpecification structure.")
    need(spec, "Destination", "Transport", "Version", "EventTypes")
    check_enum(spec["Transport"], TRANSPORTS, "Transport")
    if spec["Version"] not in VERSIONS:
        raise bad(f"Notification Version {spec['Version']!r} is not supported; use {' or '.join(VERSIONS)}.")
    pattern, form = DESTINATIONS[spec["Transport"]]
    if not isinstance(spec["Destination"], str) or not pattern.fullmatch(spec["Destination"]):
        raise bad(f"Destination {spec['Destination']!r} is not {form} (Transport {spec['Transport']}).")
    if not isinstance(spec["EventTypes"], list) or not spec["EventTypes"]:
        raise bad("EventTypes must list at least one event type.")
    for event_type in spec["EventTypes"]:
        check_enum(event_type, EVENT_TYPES if test else EVENT_TYPES - {"Ping"}, "EventType")
    return {k: spec[k] for k in ("Destination", "Transport", "Version", "EventTypes")}


@op("UpdateNotificationSettings")
def update_notification_settings(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    """Replace the HIT type's specification, or switch an existing one on or off with Active alone."""
    need(p, "HITTypeId")
    type_id = p["HITTypeId"]
    if type_id not in m.hit_types:
        raise MTurkError("AWS.MechanicalTurk.HITTypeDoesNotExist", f"HIT type {type_id} does not exist.")
    current = m.notifications.get(type_id)
    if p.get("Notification") is not None:
        current = {**check_specification(p["Notification"], test=False), "Active": True}
    elif current is None:
        raise bad(f"HIT type {type_id} has no notification specification: send a Notification with Active.")
    if "Active" in p:
        current = {**current, "Active": bool(p["Active"])}
    m.notifications[type_id] = current
    return {}


@op("SendTestEventNotification")
def send_test_event(m: Marketplace, p: dict[str, Any]) -> dict[str, Any]:
    """The test message goes out whatever the specification's own event types (as the API says)."""
    need(p, "Notification", "TestEventType")
    spec = check_specification(p["Notification"], test=True)
    check_enum(p["TestEventType"], EVENT_TYPES, "TestEventType")
    m.sent_notifications.append(delivery(spec, [event(p["TestEventType"], m.now)], m.new_id()))
    return {}
