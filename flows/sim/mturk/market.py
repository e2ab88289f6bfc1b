"""The simulated marketplace's state: HITs, assignments, workers, money, on a virtual clock."""

from __future__ import annotations

import hashlib
import heapq
import json
import random
import threading
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from flows.core.pages.crowd_elements import posted_answer
from flows.core.pages.mturk_forms import FormField, answer_xml
from flows.platforms.mturk.fees import CENT, money, mturk_fee  # noqa: F401  (re-exported for sim modules)
from flows.sim.mturk import market_records as records
from flows.sim.mturk import mturk_events
from flows.sim.mturk.eligible_pool import EligiblePool
from flows.sim.mturk.handed_back import given_back_at, hand_back, schedule_reopened, stream_key
from flows.sim.mturk.journal import Journal
from flows.sim.mturk.market_quals import WorkerQualifications
from flows.sim.mturk.market_records import ID_ALPHABET, Assignment, Faults, Hit, MTurkError, hit_state
from flows.sim.mturk.packed_text import PagePacker
from flows.sim.mturk.question_form import question_form_answer
from flows.sim.mturk.worker_truth import worker_truth
from flows.sim.pages.browser_thread import settle
from flows.sim.pages.browser_worker import browse_later, wants_browser
from flows.sim.pages.external_work import visit_later
from flows.sim.pages.page_common import CommonText, needs_context
from flows.sim.pages.page_filling import fill_form, page_rules, work_effort, work_units
from flows.sim.people import crowd
from flows.sim.people.campaign_scope import annotation_scope, campaign_scope, scoped_truth


class Marketplace(WorkerQualifications):
    def __init__(self, workers: list[crowd.Worker], bank: dict[str, crowd.BankEntry],
                 seed: int = 1, balance: str = "10000.00", arrival_mean_s: float = 900.0, speed: float = 0.0,
                 start: float | None = None):
        self.lock = threading.RLock()
        self.seed = seed
        # Ids are seeded, from what was sent (``id_for``) or a counter: the same requests give the same ids.
        self.nonce = records.seeded_nonce(seed)
        self.id_counter = 0
        self.fault_rng = random.Random(seed + 7)
        self.faults = Faults()
        self.workers = {w.worker_id: w for w in workers}
        self.roster = workers if isinstance(workers, crowd.Crowd) else None  # grows with posted work
        self.eligible = EligiblePool()  # forgotten on every payment and every operation that is not a post or a read
        self.bank = bank
        self.common_text = CommonText()  # each HIT type's own text, not its items' (page_common.py)
        self.pages = PagePacker()  # each HIT type's page dictionary: a HIT's Question is kept packed
        # Virtual clock: from ``start`` (or the wall time), moved by advance() and, with speed > 0, by real time.
        self._base = float(int(time.time())) if start is None else float(start)
        self._anchor = time.monotonic()
        self.speed = speed
        self.balance = money(self.roster.spec.balance if self.roster and self.roster.spec
                             and self.roster.spec.balance else balance)
        self.arrival_mean_s = arrival_mean_s
        # Journals remember what changed, so a state file (market_store.py) writes only that.
        self.hit_types: Journal[str, dict[str, Any]] = Journal()
        self.hits: Journal[str, Hit] = Journal()
        self.assignments: Journal[str, Assignment] = Journal()
        self.qual_types: Journal[str, dict[str, Any]] = Journal()
        self.worker_quals: Journal[tuple[str, str], dict[str, Any]] = Journal()
        self.qual_requests: Journal[str, dict[str, Any]] = Journal()
        self.blocks: Journal[str, str] = Journal()
        self.bonuses: list[dict[str, Any]] = []  # append-only
        self.tokens: Journal[str, tuple[str, float]] = Journal()
        self.test_attempts: Journal[tuple[str, str], dict[str, Any]] = Journal()
        self.notifications: Journal[str, dict[str, Any]] = Journal()  # HIT type id: its specification
        self.sent_notifications: list[dict[str, Any]] = []  # what would have gone to e-mail, SQS or SNS
        self.watched_until: float | None = None  # events up to this virtual time have been notified
        self.changed_workers: set[str] = set()
        self.waiting: set[str] = set()  # HITs posted since the clock last moved, their workers not yet chosen
        # (auto-approval time, assignment id), soonest first, so no call scans every assignment
        self.auto_due: list[tuple[float, str]] = []
        self.calls = 0

    # ids and clock -------------------------------------------------------------
    def new_id(self, length: int = 30) -> str:
        """The next id of the counter (for what is created one at a time: qualification types...)."""
        self.id_counter += 1
        return self._id(str(self.id_counter), length)

    def id_for(self, what: str, taken: Callable[[str], bool]) -> str:
        """The id of ``what``, the same in every run of the seed; the counter's if already ``taken``."""
        found = self._id(f"for:{what}", 30)
        return self.new_id() if taken(found) else found

    def _id(self, key: str, length: int) -> str:
        digest = hashlib.blake2b(f"{self.nonce}:{key}".encode(), digest_size=32).digest()
        return "3" + "".join(ID_ALPHABET[b % len(ID_ALPHABET)] for b in digest[: length - 1])

    @property
    def now(self) -> float:
        return self._base + (time.monotonic() - self._anchor) * self.speed

    def set_now(self, now: float) -> None:
        """Restart the virtual clock at ``now`` (a reloaded simulator continues where it stopped)."""
        self._base, self._anchor = now, time.monotonic()

    def advance(self, seconds: float) -> float:
        with self.lock:
            self.schedule_waiting()  # at the time they were posted, before it moves on
        settle()  # outside the lock: a browser worker's answer (maybe just scheduled) takes it to be stored
        with self.lock:
            self._base += max(0.0, float(seconds))
            self.catch_up()
            return self.now

    def catch_up(self) -> None:
        """Bring the marketplace up to the clock: notify what happened since, pay what is past auto-approval."""
        if self.waiting and self.speed:  # a clock that runs by itself may have moved since they were posted
            self.schedule_waiting()
        since, self.watched_until = self.watched_until, self.now
        if since is not None and any(spec["Active"] for spec in self.notifications.values()):
            for when, event_type, hit_id, aid in sorted(mturk_events.worker_events(self, since, self.now)):
                self.notify(self.hits[hit_id], event_type, when, aid)
        self.auto_approve()

    def notify(self, hit: Hit, event_type: str, when: float, assignment_id: str | None = None) -> None:
        """Send the event if the HIT's type has an active specification that lists it."""
        spec = self.notifications.get(hit.fields["HITTypeId"]) if self.notifications else None
        if spec and spec["Active"] and event_type in spec["EventTypes"]:
            found = mturk_events.event(event_type, when, hit.fields, assignment_id)
            self.sent_notifications.append(mturk_events.delivery(spec, [found], self.new_id()))

    def expect_auto_approval(self, a: Assignment) -> None:
        """Call when a submitted assignment gets its auto-approval time."""
        if a.auto_approval_time is not None:
            heapq.heappush(self.auto_due, (a.auto_approval_time, a.assignment_id))

    def auto_approve(self) -> None:
        """Pay what the requester left undecided past its auto-approval time."""
        while self.auto_due and self.auto_due[0][0] <= self.now:
            when, assignment_id = self.auto_due[0]
            a = self.assignments.get(assignment_id)
            if a is not None and a.status == "Submitted" and a.auto_approval_time == when:
                self.pay_assignment(a, when)  # may raise InsufficientFunds: the entry stays due
            heapq.heappop(self.auto_due)

    # money ---------------------------------------------------------------------
    def hit_cost(self, hit: Hit) -> Decimal:
        reward = money(hit.fields["Reward"])
        return reward + mturk_fee(reward, int(hit.fields["MaxAssignments"]))

    def pay_assignment(self, a: Assignment, when: float) -> None:
        cost = self.hit_cost(self.hits[a.hit_id])
        if cost > self.balance:
            raise MTurkError("AWS.MechanicalTurk.InsufficientFunds",
                             f"Your account balance {self.balance} does not cover {cost}.")
        self.balance -= cost
        self.eligible.forget()  # the worker's approval record changes
        a.status, a.approval_time = "Approved", when
        self.notify(self.hits[a.hit_id], "AssignmentApproved", when, a.assignment_id)
        worker = self.workers.get(a.worker_id)
        if worker:
            worker.hits_approved += 1
            self.changed_workers.add(worker.worker_id)

    # workers -------------------------------------------------------------------
    def replay_recruitment(self) -> None:
        """A reopened state file: the crowd grows again as it did, HIT by HIT, from the same seeds."""
        if self.roster is None:
            return
        for hit in sorted((h for h in self.hits.values() if not h.waiting), key=records.schedule_order):
            for w in self.roster.recruit(hit.fields["HITId"], work_units(hit.page_fields()),  # ~9 ms a HIT
                                         float(hit.fields["CreationTime"])):
                self.workers[w.worker_id] = w

    def eligible_workers(self, hit: Hit, units: int) -> tuple[list[crowd.Worker], list[float]]:
        """Who may take the HIT's open slots now (``units``: its page's work), and their activity weights."""
        if self.roster is not None:  # a crowd with a size rule: newcomers arrive with the work
            for w in self.roster.recruit(hit.fields["HITId"], units, self.now):
                self.workers[w.worker_id] = w
        reqs = hit.fields.get("QualificationRequirements", [])
        done = {self.assignments[a].worker_id for a in hit.assignment_ids} | set(hit.returned)
        now, meets = self.now, self.requirement_check(reqs)
        if done or any((self.qual_types.get(r["QualificationTypeId"]) or {}).get("Test") for r in reqs):
            pool = [w for w in self.workers.values() if w.worker_id not in self.blocks and w.worker_id not in done
                    and w.present(now) and meets(w)]  # meets has side effects here: a worker takes a test
            return pool, [w.params["activity"] for w in pool]
        return self.eligible.workers(json.dumps(reqs, sort_keys=True), self.workers, now,
                                     lambda w: w.worker_id not in self.blocks and meets(w))

    def schedule_later(self, hit: Hit, slots: int) -> None:
        """Open ``slots`` on ``hit``; workers are chosen once the clock moves on (:meth:`schedule_waiting`)."""
        hit.waiting += slots
        self.waiting.add(hit.fields["HITId"])
        self.hits.touch(hit.fields["HITId"])

    def schedule_waiting(self) -> None:
        """Choose the workers of every HIT posted since the clock moved, in :func:`records.schedule_order`."""
        todo, self.waiting = self.waiting, set()  # a slot given back meanwhile waits for the next move
        for hit_id in sorted(todo, key=lambda h: records.schedule_order(self.hits[h])):
            hit = self.hits[hit_id]
            slots, hit.waiting = hit.waiting, 0
            self.hits.touch(hit_id)
            if not hit.disposed and self.now < hit.fields["Expiration"] and (slots or not hit.reopened):
                self.schedule(hit, slots)
            if hit.reopened:
                schedule_reopened(self, hit)  # handed_back.py: returned and abandoned work, offered again

    def schedule(self, hit: Hit, slots: int, html: str | None = None, after: float | None = None) -> None:
        """Pick workers for open slots and let them do the page on the virtual clock (``after``: a slot given back)."""
        # Keyed by what the requester sent, so the same campaign in another order meets the same workers.
        key = hit.fields.get("RequesterAnnotation") or hit.fields["HITId"]
        rng = random.Random(f"{self.seed}:{key}:{len(hit.assignment_ids)}{stream_key(hit)}")
        html = hit.question.html if html is None else html  # read once here: the HIT keeps no page (packed_text.py)
        fields = hit.page_fields(html)
        pool, weights = self.eligible_workers(hit, work_units(fields))
        chosen: list[crowd.Worker] = []
        while pool and len(chosen) < slots:
            # by index: removing by value compared whole Worker records (what they wrote, too)
            pick = rng.choices(range(len(pool)), weights=weights)[0]
            chosen.append(pool.pop(pick))
            weights.pop(pick)
        for worker in chosen:
            self._work(hit, worker, rng, html, fields, self.now if after is None else max(self.now, after))
        if len(chosen) < slots and after is None and self.awaiting_verdict(hit.fields.get("QualificationRequirements",
                                                                                           [])):
            self.schedule_later(hit, slots - len(chosen))  # the slots stay open for those the requester admits

    def _work(self, hit: Hit, worker: crowd.Worker, rng: random.Random, html: str, fields: list[FormField],
              start: float) -> None:
        duration = int(hit.fields["AssignmentDurationInSeconds"])
        accept = start + rng.expovariate(1.0 / self.arrival_mean_s)
        units, parts = work_effort(fields)
        seconds = crowd.work_seconds(worker, units, duration, rng, parts)
        if accept >= hit.fields["Expiration"]:
            return
        if (back := given_back_at(worker, accept, seconds, duration, rng)) is not None:  # abandoned or returned
            self.hand_back(hit, worker.worker_id, back)
            return
        submit = accept + seconds
        assignment_id = self.id_for(f"assignment:{hit.fields['HITId']}:{worker.worker_id}",
                                    self.assignments.__contains__)
        a = Assignment(assignment_id, hit.fields["HITId"], worker.worker_id, accept, submit,
                       accept + duration, "", auto_approval_time=submit + int(hit.fields["AutoApprovalDelayInSeconds"]))
        if hit.question.kind == "ExternalQuestion":
            visit_later(self, hit, a, rng)  # the page is fetched outside this call; listed once answered
        else:
            key = hit.fields["HITId"] if hit.question.kind == "QuestionForm" else ""
            common = self.common_text.shared(self.hits.values(), hit) if needs_context(fields) else frozenset()
            with campaign_scope(annotation_scope(hit.fields.get("RequesterAnnotation") or ""), worker):
                values = fill_form(worker, fields, page_rules(html), accept, submit, self.bank, rng,
                                   html=html, page_key=key, common=common)
            if not key and wants_browser(html):
                browse_later(self, hit, a, values)  # the page's script builds the answer; listed once posted
            else:
                a.answer = question_form_answer(values, fields) if key else answer_xml(
                    posted_answer(values, fields, html))  # a crowd-form's: one taskAnswers
        self.changed_workers.add(worker.worker_id)  # a copy-paster may remember its caption
        self.assignments[a.assignment_id] = a
        hit.assignment_ids.append(a.assignment_id)
        self.expect_auto_approval(a)

    def hand_back(self, hit: Hit, worker_id: str, at: float, assignment_id: str | None = None) -> None:
        hand_back(self, hit, worker_id, at, assignment_id)  # returned or abandoned: offered again (handed_back.py)

    # views ---------------------------------------------------------------------
    def visible(self, a: Assignment) -> bool:
        """Submitted by now (an ExternalQuestion's answer arrives when its page was done)."""
        return a.submit_time is not None and a.submit_time <= self.now and a.answered

    def hit_status(self, hit: Hit) -> dict[str, Any]:
        """What GetHIT says of the HIT's state (a listing filters on it before building views)."""
        started = [self.assignments[i] for i in hit.assignment_ids if self.assignments[i].accept_time <= self.now]
        return hit_state(hit, started, self.now, self.visible)

    def hit_view(self, hit: Hit, status: dict[str, Any] | None = None) -> dict[str, Any]:
        view = {**hit.fields, **(status or self.hit_status(hit))}
        view["Question"] = hit.question_xml()  # in its place among the fields
        return view

    def ground_truth(self) -> list[dict[str, Any]]:
        return worker_truth(self)

    def item_truth(self, scope: str | None = None) -> list[dict[str, Any]]:  # sim_items.json (campaign_scope.py)
        return scoped_truth(self.workers.values(), scope)
