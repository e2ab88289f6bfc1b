"""Simulated invitees, volunteers and Prolific participants who open a task link, fill its form over HTTP and submit."""

from __future__ import annotations

import heapq
import html
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urljoin, urlparse

from flows.core.http_clients import http_client
from flows.core.pages.crowd_elements import is_crowd_page, task_answers
from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.browser_check import say_failed, say_refused
from flows.sim.pages.browser_worker import posted_by_browser, wants_browser
from flows.sim.pages.page_common import OpenedPages, needs_context
from flows.sim.pages.page_filling import fill_form, page_rules, work_effort
from flows.sim.people import crowd

if TYPE_CHECKING:
    import httpx

FORM_ACTION = re.compile(r'<form[^>]*id="hit-form"[^>]*action="([^"]*)"')
ANY_FORM_ACTION = re.compile(r'<(?:crowd-)?form\b[^>]*\baction="([^"]*)"', re.I)  # a page of the user's own making
ARRIVAL_GAP_S = 60.0  # between one invitee opening their link and the next (virtual seconds)
LINK_LIMIT_S = 3600  # a link has no time limit: how long the slow leave it open (virtual seconds)


def open_page(http: httpx.Client, url: str) -> tuple[str, str] | None:
    """Open ``url``: the page and where its form posts, or None when the page offered no form."""
    page = http.get(url)
    action = FORM_ACTION.search(page.text) or ANY_FORM_ACTION.search(page.text)
    if page.status_code != 200 or action is None:
        return None
    return page.text, urljoin(url, html.unescape(action.group(1)))


def fill_page(opened: tuple[str, str], url: str, worker: crowd.Worker, bank: dict[str, crowd.BankEntry],
              rng: random.Random, start: float, seconds: float, pages: OpenedPages | None = None,
              where: str = "their task links") -> tuple[str, dict[str, str]] | None:
    """Fill an opened page as ``worker``, knowing what ``pages`` at its address show: what it posts where, or None
    when the page never took the submit (said once for ``where``: what the worker gives back)."""
    text, post_to = opened
    fields = form_fields(text)
    common = pages.shared(url, text) if pages is not None and needs_context(fields) else frozenset()
    values = fill_form(worker, fields, page_rules(text), start, start + seconds, bank, rng, html=text, common=common)
    if wants_browser(text):  # the page's script builds the answer: what its form posts is sent
        failed: list[str] = []
        told: list[str] = []
        # the link's query (Prolific's PROLIFIC_PID, STUDY_ID, SESSION_ID) is in the address the page's script reads
        built = posted_by_browser(text, values, f"{worker.worker_id}:{url}", worker,
                                  params=dict(parse_qsl(urlparse(url).query)), failed=failed, told=told)
        if built is None:  # they give the page back; the page's defect (or their own) said once
            say_failed(failed[0]) if failed else say_refused(where, worker.profile, told)
            return None
        values = built
    elif is_crowd_page(text):
        values = task_answers(values, fields)  # what hitflow's crowd-element stand-in posts
    return post_to, values


@dataclass(frozen=True)
class Visit:
    """One invitee's round: when they open their link and their own random stream, so others change none of it."""

    name: str
    opens_at: float
    rng: random.Random


def visits(names: list[str], seed: int, round_no: int, start: float) -> list[Visit]:
    """Round ``round_no``'s schedule: invitees open their links a minute apart in the order invited (``names``)."""
    out = []
    for i, name in enumerate(names):
        rng = random.Random(f"invitee|{seed}|{round_no}|{name}")  # hashed by SHA-512: one stream in every process
        out.append(Visit(name, start + ARRIVAL_GAP_S * i, rng))
    return out


def volunteer_round(links: dict[str, str], workers: dict[str, crowd.Worker], bank: dict[str, crowd.BankEntry],
                    seed: int, start: float = 1.7e9, at: Callable[[float], None] | None = None,
                    round_no: int = 0, done: frozenset[str] = frozenset()) -> dict[str, int]:
    """Each invitee opens their link once in seeded order (``at`` told each time); submit statuses (0: refused)."""
    schedule = {v.name: v for v in visits(list(links), seed, round_no, start) if v.name not in done}
    steps = [(v.opens_at, v.name, False) for v in schedule.values()]
    heapq.heapify(steps)
    outcome: dict[str, int] = {}
    # opened (page, where it posts), when, and the seconds it takes them; not yet submitted
    pending: dict[str, tuple[tuple[str, str], float, float]] = {}
    pages = OpenedPages()  # filled when submitted: by then the invitees before them had opened theirs
    with http_client(timeout=30, follow_redirects=False) as http:
        while steps:
            when, name, submitting = heapq.heappop(steps)
            if at is not None:
                at(when)
            visit = schedule[name]
            if not submitting:
                opened = open_page(http, links[name])
                if opened is None:
                    outcome[name] = 0
                    continue
                pages.opened(links[name], opened[0])
                units, parts = work_effort(form_fields(opened[0]))  # the page's own work, as on every route
                seconds = crowd.work_seconds(workers[name], units, LINK_LIMIT_S, visit.rng, parts)
                pending[name] = (opened, when, seconds)
                heapq.heappush(steps, (when + seconds, name, True))
                continue
            opened, opened_at, seconds = pending.pop(name)
            filled = fill_page(opened, links[name], workers[name], bank, visit.rng, opened_at, seconds, pages)
            outcome[name] = http.post(filled[0], data=filled[1]).status_code if filled is not None else 0
    return outcome
