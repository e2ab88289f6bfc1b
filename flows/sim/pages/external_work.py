"""ExternalQuestion HITs: a simulated worker opens the URL, fills the form and posts it (a thread outside the lock)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from flows.core.http_clients import http_get
from flows.core.pages.crowd_elements import posted_answer
from flows.core.pages.mturk_forms import answer_xml, form_fields
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people.campaign_scope import annotation_scope, campaign_scope

if TYPE_CHECKING:
    from flows.sim.mturk.market_records import Assignment, Hit
    from flows.sim.mturk.market_records import MarketState as Marketplace

TRIES = 12
FIRST_WAIT_S = 0.2


def fetch_page(url: str, params: dict[str, str], sleep: Callable[[float], None] = time.sleep) -> str:
    """The page's HTML, retried a little while the server does not know the HIT yet; "" if never."""
    import httpx  # here, not above: the simulator's every process imports this module, few post external pages

    wait = FIRST_WAIT_S
    for _ in range(TRIES):
        try:
            page = http_get(url, params=params, timeout=15, follow_redirects=True)
            if page.status_code == 200 and "<form" in page.text.lower():
                return page.text
        except httpx.HTTPError:
            pass
        sleep(wait)
        wait = min(wait * 1.5, 2.0)
    return ""


def visit_later(market: Marketplace, hit: Hit, a: Assignment, rng: random.Random) -> None:
    seed = rng.random()
    threading.Thread(target=_visit, args=(market, hit, a, seed), name="hitflow-sim-external", daemon=True).start()


def _visit(market: Marketplace, hit: Hit, a: Assignment, seed: float) -> None:
    params = {"assignmentId": a.assignment_id, "hitId": a.hit_id, "workerId": a.worker_id,
              "turkSubmitTo": "https://www.mturk.com"}
    html = fetch_page(hit.question.url, params)
    with market.lock:
        if a.assignment_id not in market.assignments:
            return  # withdrawn while the page loaded (the HIT expired early or changed its type)
        worker = market.workers.get(a.worker_id)
        if not html or worker is None:  # abandoned at its deadline: the slot is offered again (handed_back.py)
            market.hand_back(hit, a.worker_id, a.deadline, a.assignment_id)
            return
        fields = form_fields(html)
        hit.form = hit.form or fields
        with campaign_scope(annotation_scope(hit.fields.get("RequesterAnnotation") or ""), worker):
            values = fill_form(worker, fields, page_rules(html), a.accept_time, a.submit_time or a.accept_time,
                               market.bank, random.Random(seed), html=html)
        values.pop("assignmentId", None)  # MTurk keeps it out of the answer
        a.answer = answer_xml(posted_answer(values, fields, html))
        market.assignments[a.assignment_id] = a  # marks it changed for a state file
        market.changed_workers.add(worker.worker_id)
        if market.watched_until is not None and (a.submit_time or 0) <= market.watched_until:
            market.notify(hit, "AssignmentSubmitted", a.submit_time or a.accept_time, a.assignment_id)  # came late


def resume_visits(market: Marketplace) -> int:
    """A reopened state file: taken pages whose answer never came in are opened again; the count resumed."""
    pending = [a for a in market.assignments.values() if not a.answered and a.submit_time is not None
               and a.hit_id in market.hits and market.hits[a.hit_id].question.kind == "ExternalQuestion"]
    for a in pending:
        visit_later(market, market.hits[a.hit_id], a, random.Random(a.assignment_id))
    return len(pending)
