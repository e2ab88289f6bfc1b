"""HIT events as MTurk notifies them, for HIT types with an active notification specification."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flows.sim.mturk.market_records import Hit
    from flows.sim.mturk.market_records import MarketState as Marketplace

CUSTOMER_ID = "A1SIMULATEDREQUESTER"  # the requester's customer id in every message


def event(event_type: str, when: float, hit_fields: dict[str, Any] | None = None,
          assignment_id: str | None = None) -> dict[str, Any]:
    fields = hit_fields or {}
    found = {"EventType": event_type,
             "EventTimestamp": datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "HITTypeId": fields.get("HITTypeId"), "HITId": fields.get("HITId"), "AssignmentId": assignment_id}
    return {k: v for k, v in found.items() if v is not None}


def delivery(spec: dict[str, Any], events: list[dict[str, Any]], doc_id: str) -> dict[str, Any]:
    """One message as it would leave for the specification's destination."""
    document = {"EventDocVersion": spec["Version"], "EventDocId": doc_id, "CustomerId": CUSTOMER_ID,
                "Events": events}
    return {"Transport": spec["Transport"], "Destination": spec["Destination"], "Message": json.dumps(document)}


def worker_events(m: Marketplace, since: float, until: float) -> Iterator[tuple[float, str, str, str | None]]:
    """(time, event, HIT id, assignment id) for (since, until], only for HIT types someone listens to."""
    watched = {t for t, spec in m.notifications.items() if spec["Active"]}
    for hit_id, hit in m.hits.items():
        if hit.fields["HITTypeId"] not in watched or hit.disposed:
            continue
        if since < hit.fields["Expiration"] <= until:
            yield hit.fields["Expiration"], "HITExpired", hit_id, None
        reviewable = _reviewable_at(m, hit)
        if reviewable is not None and since < reviewable <= until:
            yield reviewable, "HITReviewable", hit_id, None
        for aid in hit.assignment_ids:
            a = m.assignments[aid]
            if since < a.accept_time <= until:
                yield a.accept_time, "AssignmentAccepted", hit_id, aid
            if a.submit_time is not None and since < a.submit_time <= until and a.answered:
                yield a.submit_time, "AssignmentSubmitted", hit_id, aid


def _reviewable_at(m: Marketplace, hit: Hit) -> float | None:
    """When the HIT turns Reviewable: all slots taken and in, or expired and the work begun before it in."""
    taken = [m.assignments[aid] for aid in hit.assignment_ids]
    submitted = [a.submit_time for a in taken if a.submit_time is not None and a.answered]
    if len(taken) < int(hit.fields["MaxAssignments"]):
        return max([hit.fields["Expiration"], *submitted]) if len(submitted) == len(taken) else None
    return max(submitted) if submitted and len(submitted) == len(taken) else None
