"""Work handed back goes back to the pool, as on MTurk."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flows.sim.mturk.market_records import Hit, MarketState
    from flows.sim.people.crowd_model import Worker

RETURN_AFTER = (0.1, 0.5)  # a returner gives the page back this share of its work time in (a modelling choice)


def given_back_at(worker: Worker, accept: float, seconds: float, duration: int, rng: random.Random) -> float | None:
    """When a worker who accepted at ``accept`` gives the HIT back (its deadline, or ``return_rate``); else None."""
    if seconds >= duration:
        return accept + duration
    rate = float(worker.params.get("return_rate", 0))
    if rate > 0 and rng.random() < rate:  # no draw at 0: seeded runs without returners are unchanged
        return accept + seconds * rng.uniform(*RETURN_AFTER)
    return None


def hand_back(m: MarketState, hit: Hit, worker_id: str, at: float, assignment_id: str | None = None) -> None:
    """``worker_id`` gave the HIT back at ``at``: the slot is offered again unless the HIT is gone by then."""
    if assignment_id is not None:
        if assignment_id in hit.assignment_ids:
            hit.assignment_ids.remove(assignment_id)
        m.assignments.pop(assignment_id, None)
    hit.returned.append(worker_id)
    if not hit.disposed and at < float(hit.fields["Expiration"]):
        hit.reopened.append(at)
        m.waiting.add(hit.fields["HITId"])
    m.hits.touch(hit.fields["HITId"])


def schedule_reopened(m: MarketState, hit: Hit) -> None:
    """Offer the HIT's reopened slots again (each after the time it reopened), while the HIT is open."""
    times, hit.reopened = sorted(hit.reopened), []
    m.hits.touch(hit.fields["HITId"])
    for at in times:
        if not hit.disposed and at < float(hit.fields["Expiration"]):
            m.schedule(hit, 1, after=at)


def stream_key(hit: Hit) -> str:
    """The scheduling stream's extra key: how many gave the HIT back (nothing when nobody did)."""
    return f":returned{len(hit.returned)}" if hit.returned else ""
