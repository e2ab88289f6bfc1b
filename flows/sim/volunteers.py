"""Simulated people who open a task link, fill its form over HTTP as a browser would, and submit:
invited annotators and volunteers on self-hosted links, and Prolific participants."""

from __future__ import annotations

import html
import random
import re
from urllib.parse import urljoin

import httpx

from flows.core.pages.crowd_elements import is_crowd_page, task_answers
from flows.core.pages.mturk_forms import form_fields
from flows.sim import crowd
from flows.sim.browser_worker import posted_by_browser, wants_browser
from flows.sim.page_filling import fill_form, page_rules

FORM_ACTION = re.compile(r'<form[^>]*id="hit-form"[^>]*action="([^"]*)"')
ANY_FORM_ACTION = re.compile(r'<(?:crowd-)?form\b[^>]*\baction="([^"]*)"', re.I)  # a page of the user's own making


def complete_page(http: httpx.Client, url: str, worker: crowd.Worker, bank: dict[str, crowd.BankEntry],
                  rng: random.Random, start: float, seconds: float) -> httpx.Response | None:
    """Open ``url``, fill its form as ``worker`` (page clock from ``start`` for ``seconds``), post
    it; the server's answer, or None when the page offered no form."""
    page = http.get(url)
    action = FORM_ACTION.search(page.text) or ANY_FORM_ACTION.search(page.text)
    if page.status_code != 200 or action is None:
        return None
    fields = form_fields(page.text)
    values = fill_form(worker, fields, page_rules(page.text), start, start + seconds, bank, rng, html=page.text)
    if wants_browser(page.text):  # the page's script builds the answer: what its form posts is sent
        built = posted_by_browser(page.text, values, f"{worker.worker_id}:{url}")
        if built is None:
            return None
        values = built
    elif is_crowd_page(page.text):
        values = task_answers(values, fields)  # what hitflow's crowd-element stand-in posts
    return http.post(urljoin(url, html.unescape(action.group(1))), data=values)


def volunteer_round(links: dict[str, str], workers: dict[str, crowd.Worker], bank: dict[str, crowd.BankEntry],
                    seed: int, start: float = 1.7e9) -> dict[str, int]:
    """Each invitee opens their link once and finishes the unit they are given; returns the HTTP
    status each got (303/200 done; 4xx refused, e.g. blocked or nothing left)."""
    rng = random.Random(seed + 31)
    outcome: dict[str, int] = {}
    with httpx.Client(timeout=30, follow_redirects=False) as http:
        for name, url in links.items():
            worker = workers[name]
            seconds = crowd.work_seconds(worker, 8, 3600, rng)
            done = complete_page(http, url, worker, bank, rng, start, seconds)
            outcome[name] = done.status_code if done is not None else 0
            start += 60
    return outcome
