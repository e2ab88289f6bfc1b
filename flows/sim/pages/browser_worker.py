"""Simulated workers working a page in headless Chromium (``data-sim-workers="browser"``), on a virtual clock (Hand)."""

from __future__ import annotations

import json
import random
import threading
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode

from flows.core.pages.crowd_elements import ENTITIES, TASK_ANSWERS
from flows.core.pages.mturk_forms import answer_xml, form_fields
from flows.core.pages.radio_buttons import BUTTONS
from flows.sim.pages.browser_check import TRIES, failure, missing, say_failed, say_once, say_refused
from flows.sim.pages.browser_desk import worker_page
from flows.sim.pages.browser_thread import SETTLE_S, BrowserThread
from flows.sim.pages.page_steps import walk_steps
from flows.sim.pages.retyping import heard, reads_message, retyped
from flows.sim.pages.submit_watch import SHOWN_JS, alerts_read, clear_mark, posted_request
from flows.sim.pages.widget_clicks import ROWS_JS, click_widgets, empty_hidden, first_clicks, tick
from flows.sim.people.campaign_scope import annotation_scope, campaign_scope
from flows.sim.people.crowd_model import Worker
from flows.sim.people.entity_spans import mark_in_browser
from flows.sim.people.typing_model import Hand

if TYPE_CHECKING:
    from flows.sim.mturk.market_records import Assignment, Hit
    from flows.sim.mturk.market_records import MarketState as Marketplace

PAGE_URL = "https://hit.sim.invalid/page"
TIMING = ("page_start_ms", "page_end_ms")
MARK = 'data-sim-workers="browser"'
UNLOCK_WAIT_MS = 60_000  # how long a worker waits for a disabled Submit to unlock
SET_NOT_TYPED = ("date", "time", "datetime-local", "month", "week", "color", "range", "file")
CLOCK_START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)  # not a number: Playwright for Python reads one as seconds
FIRST_JS = "(es) => [es[0]?.tagName || '', es[0]?.getAttribute('type') || ''].map((s) => s.toLowerCase())"  # 1 call
SHOWN_KIND_JS = "(es) => es.length ? (es[0].getAttribute('type') || es[0].tagName).toLowerCase() : ''"  # not 2-5


def wants_browser(html: str) -> bool:
    """The page asks for browser workers and they can run here; else form-reading workers do it, said once."""
    if MARK not in (html or ""):
        return False
    if missing():
        say_once(f"hitflow sim: form-reading workers do the pages that ask for browser workers: {missing()}; "
                 "the page's own script is not run, so its checks are not rehearsed")
        return False
    return True


def work_page(browser: Any, html: str, params: dict[str, str], intents: dict[str, str],
              rng: random.Random, worker: Worker | None = None, hidden_required: list[str] | None = None,
              told: list[str] | None = None) -> dict[str, str] | None:
    """What the form posted once a worker filled it step by step, or None; ``hidden_required`` gets the unseen,
    ``told`` the box, the words of the page's last refusal and what that box held (retyping.heard)."""
    with worker_page(browser) as (page, posts), alerts_read(page) as alerts:
        return _work(page, posts, html, params, intents, rng, worker, hidden_required,
                     (told if told is not None else [], alerts))


def _open(page: Any, html: str, params: dict[str, str]) -> None:
    """The page at its address, served ``html``, its clock paused a second after the virtual start."""
    def answer(route: Any) -> None:
        if route.request.method == "POST":
            route.fulfill(status=204)  # no new document: closing the page never races a navigation
        elif route.request.url.startswith(PAGE_URL):
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)
        else:  # the page's CDN scripts, images: nothing outside the simulator is reached
            route.fulfill(status=200, body="")
    page.route("**/*", answer)
    page.clock.install(time=CLOCK_START)
    page.clock.pause_at(CLOCK_START + timedelta(seconds=1))
    page.goto(f"{PAGE_URL}?{urlencode(params)}")


def _work(page: Any, posts: list[Any], html: str, params: dict[str, str], intents: dict[str, str],
          rng: random.Random, worker: Worker | None, hidden_required: list[str] | None,
          listened: tuple[list[str], list[str]]) -> dict[str, str] | None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    _open(page, html, params)
    hand = Hand(worker, str(rng.random()))
    wanted = per_button_intents(html, intents)
    unseen = walk_steps(page, lambda done: _fill_visible(page, wanted, hand, done))
    click_widgets(page, empty_hidden(page), wanted, rng)  # stars and the like write the page's hidden fields
    if hidden_required is not None:
        hidden_required += unseen
    # a crowd page's Submit is one, and so are its own <crowd-button>s; the stand-in's own (data-crowd-own) are controls
    buttons = page.locator("button[type=button]:visible:not(#submit-btn):not([data-crowd-own]), "
                           "crowd-button:visible:not([form-action=submit])")
    order = rng.sample(range(len(rows := buttons.evaluate_all(ROWS_JS))), len(rows))  # (their count: no call more)
    first = first_clicks(rows, order, rng, worker.profile if worker else "")
    told, alerts = listened
    shown = page.evaluate(SHOWN_JS)  # the page's lines before any press: a refusal's message is a new one
    for attempt in range(TRIES):  # a person who is told what is missing clicks once more
        if attempt:  # told the page wants typing, a person types what they pasted; and changes what it names
            hand.retype()
            if told and reads_message(worker, attempt, rng):
                retyped(page, told, hand, rng)
        for n in order[:1] if attempt else first:
            buttons.nth(n).click()
        order = order[1:] + order[:1]
        posts.clear()
        clear_mark(page)
        submit = page.locator("#submit-btn, [type=submit]").first
        if not pressable(page, submit):
            continue  # refused, at once: waiting for Playwright's click to time out held the clock 30 s a try
        try:
            submit.click(no_wait_after=True)
            page.clock.run_for(2000)  # a page that submits from a timer gets its time
        except PlaywrightTimeout:
            continue  # a Submit that never became clickable (covered): refused
        posted = posted_request(page, posts)
        if posted is not None:
            return dict(parse_qsl(posted.post_data or "", keep_blank_values=True))
        told[:] = heard(page, html, wanted, shown, alerts)
    return None


def pressable(page: Any, submit: Any) -> bool:
    """Whether a person could press the page's Submit, given a minute on the page's clock to unlock it."""
    if (found := submit.count()) and not (submit.is_visible() and submit.is_enabled()):  # none asked twice
        page.clock.run_for(UNLOCK_WAIT_MS)  # a page may enable it by a timer: a person waits that long
        return bool(submit.is_visible() and submit.is_enabled())
    return bool(found)


def per_button_intents(html: str, intents: dict[str, str]) -> dict[str, str]:
    """A crowd-radio-group of named buttons is chosen by its button's name (flows/core/pages/radio_buttons.py)."""
    out = dict(intents)
    for f in form_fields(html):
        if f.attrs.get(BUTTONS) and f.name in out:
            value = out.pop(f.name)
            out.update({b: v for b, v in json.loads(f.attrs[BUTTONS]).items() if v == value})
    return out


def _fill_crowd(page: Any, hand: Hand, tag: str, name: str, value: str) -> None:
    """One of MTurk's crowd elements, through hitflow's stand-in controls; image boxes undrawn, spans marked."""
    host = f'{tag}[name="{name}"]'
    if tag in ("crowd-input", "crowd-text-area"):
        box = page.locator(f"{host} input, {host} textarea").first
        if box.count() and box.is_visible():  # a hidden one is the page's script's to set
            hand.enter(page, box, name, value)
    elif tag == "crowd-slider":
        page.locator(f"{host} input").first.evaluate(
            "(r, v) => { r.value = v; r.dispatchEvent(new Event('input')); }", value)
    elif tag in ("crowd-radio-button", "crowd-checkbox"):
        for v in value.split("|"):
            box = page.locator(f'{host}[value="{v}"] input')
            box = box if box.count() or v != "on" else page.locator(f"{host}:not([value]) input")
            if box.count():
                box.first.check()
    elif tag == ENTITIES:
        mark_in_browser(page, host, value)
    elif "classifier" in tag:
        for v in value.split("|"):
            box = page.locator(f'{host} input[value="{v}"]')
            if box.count():
                box.first.check()


def _fill_visible(page: Any, intents: dict[str, str], hand: Hand, done: set[str] | None = None) -> set[str]:
    """Answers put into visible controls (unnamed script-read boxes left empty); ``done`` kept; returns those filled."""
    done = set() if done is None else set(done)
    for name, value in intents.items():
        if name in done:
            continue
        host = page.locator(f'[name="{name}"]')
        tag, kind = host.evaluate_all(FIRST_JS) if value else ("", "")
        if tag.startswith("crowd-"):
            _fill_crowd(page, hand, tag, name, value)
            done.add(name)
            continue
        controls = page.locator(f'[name="{name}"]:visible')
        if kind in ("radio", "checkbox"):  # ticked where it shows, or by the label the page draws for it (a star)
            ticked = [tick(page, box.first) for v in value.split("|")
                      if (box := page.locator(f'[name="{name}"][value="{v}"]')).count()]
            done.update([name] if any(ticked) else [])
            continue
        if not value or not (kind := controls.evaluate_all(SHOWN_KIND_JS)):
            continue
        done.add(name)
        if kind == "select":
            controls.first.select_option(value)
        elif kind in SET_NOT_TYPED:  # a date, a colour, a range: a picker, not keys
            controls.first.fill(value)
        else:
            hand.enter(page, controls.first, name, value)
    return done


def browse_later(market: Marketplace, hit: Hit, a: Assignment, intents: dict[str, str]) -> None:
    """Queue the assignment's page for the browser thread; its answer is listed once posted."""
    seed = f"{market.seed}:{a.assignment_id}"
    params = {"assignmentId": a.assignment_id, "hitId": a.hit_id, "workerId": a.worker_id,
              "turkSubmitTo": "https://www.mturk.com"}
    visible = {k: v for k, v in intents.items() if k not in TIMING}

    def job(browser: Any) -> None:
        told: list[str] = []
        try:
            fields = work_page(browser, hit.question.html, params, visible, random.Random(seed),
                               market.workers.get(a.worker_id), told=told)
        except Exception as exc:  # the page broke (a timeout): the worker gives the HIT back, as one who gave up
            say_failed(exc)
            fields = None
        else:
            if fields is None:  # the page kept refusing the submit: a person would have given up too
                who = market.workers.get(a.worker_id)
                say_refused(f"HITs of type {hit.fields['HITTypeId']}", who.profile if who is not None else "", told)
        with market.lock:
            if a.assignment_id not in market.assignments:
                return  # withdrawn while the page was worked (the HIT expired early or changed its type)
            if fields is None:  # given up: returned, its slot offered to the next worker (handed_back.py)
                market.hand_back(hit, a.worker_id, a.submit_time or a.accept_time, a.assignment_id)
                return
            fields.pop("assignmentId", None)  # MTurk keeps it out of the answer
            fields.update(virtual_times(fields, intents))  # the virtual clock's times
            a.answer = answer_xml(fields)
            market.assignments[a.assignment_id] = a
            if market.watched_until is not None and (a.submit_time or 0) <= market.watched_until:
                market.notify(hit, "AssignmentSubmitted", a.submit_time or a.accept_time, a.assignment_id)
    BrowserThread.submit(job)


def virtual_times(fields: dict[str, str], intents: dict[str, str]) -> dict[str, str]:
    """The page's clock fields as the virtual clock has them; a crowd-form's inside its taskAnswers."""
    times = {k: intents[k] for k in TIMING if k in intents}
    if TASK_ANSWERS not in fields:
        return times
    answers = json.loads(fields[TASK_ANSWERS])
    answers[0].update({k: v for k, v in times.items() if k in answers[0]})
    return {TASK_ANSWERS: json.dumps(answers)}


def resume_browsing(market: Marketplace) -> int:
    """A reopened state file: pages taken by browser workers whose answer never came in are worked again; the count."""
    from flows.sim.pages.page_filling import fill_form, page_rules

    pending = [a for a in market.assignments.values() if not a.answered and a.submit_time is not None
               and a.hit_id in market.hits and wants_browser(market.hits[a.hit_id].question.html)]
    for a in pending:
        hit, worker = market.hits[a.hit_id], market.workers.get(a.worker_id)
        if worker is None:
            continue
        with campaign_scope(annotation_scope(hit.fields.get("RequesterAnnotation") or ""), worker):
            intents = fill_form(worker, hit.page_fields(), page_rules(hit.question.html), a.accept_time,
                                a.submit_time or a.accept_time, market.bank, random.Random(a.assignment_id),
                                html=hit.question.html)
        browse_later(market, hit, a, intents)
    return len(pending)


def posted_by_browser(html: str, intents: dict[str, str], seed: str, worker: Worker | None = None,
                      params: dict[str, str] | None = None, failed: list[str] | None = None,
                      hidden_required: list[str] | None = None, told: list[str] | None = None) -> dict[str, str] | None:
    """For a page opened over HTTP (``params``: the address's query): what its form posts once worked, clock fields
    as kept; None if it never submitted (why: into ``failed``, else said). ``hidden_required``, ``told``: as
    work_page."""
    done, out = threading.Event(), []

    def job(browser: Any) -> None:
        try:
            out.append(work_page(browser, html, params or {}, {k: v for k, v in intents.items() if k not in TIMING},
                                 random.Random(seed), worker, hidden_required, told))
        except Exception as exc:
            if failed is None:
                raise
            failed.append(failure(exc))
        finally:
            done.set()
    BrowserThread.submit(job)
    if not done.wait(SETTLE_S):
        if failed is not None:  # not the page's refusal: the browser never got to the end of it
            failed.append(f"the browser did not finish the page within {SETTLE_S:.0f} s of real time")
        return None
    if not out or out[0] is None:
        return None
    return {**out[0], **virtual_times(out[0], intents)}
