"""The simulated marketplace's state: HITs, assignments, workers, money, on a virtual clock.

All mutation happens under one lock; the HTTP layer (``server.py``) and the operation
handlers (``mturk_api.py``) never touch state without it.
"""

from __future__ import annotations

import json
import random
import re
import string
import threading
import time
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from flows.sim import crowd, judges, qual_tests
from flows.sim.forms import FormField, Question, answer_xml, form_fields
from qc.submit_rules import CANNED_TEXT, SubmitRules

SYSTEM_QUALS = {
    "00000000000000000040": "NumberHITsApproved",
    "000000000000000000L0": "PercentAssignmentsApproved",
    "00000000000000000071": "Locale",
    "00000000000000000060": "Adult",
}
CENT = Decimal("0.01")
_RULES_JSON = re.compile(r'<script[^>]*id="submit-rules"[^>]*>(.*?)</script>', re.S)


class MTurkError(Exception):
    """Answered as HTTP 400 RequestError (or ServiceFault) with a TurkErrorCode."""

    def __init__(self, code: str, message: str, kind: str = "RequestError", status: int = 400):
        super().__init__(message)
        self.code, self.message, self.kind, self.status = code, message, kind, status


def money(value: Any) -> Decimal:
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def mturk_fee(reward: Decimal, max_assignments: int) -> Decimal:
    """20% commission, 20% more for HITs with 10 or more assignments, at least $0.01."""
    rate = Decimal("0.20") + (Decimal("0.20") if max_assignments >= 10 else Decimal("0"))
    return max(CENT, money(reward * rate))


@dataclass
class Assignment:
    assignment_id: str
    hit_id: str
    worker_id: str
    accept_time: float
    submit_time: float | None
    deadline: float
    answer: str = ""
    status: str = "Submitted"
    auto_approval_time: float | None = None
    approval_time: float | None = None
    rejection_time: float | None = None
    feedback: str | None = None


@dataclass
class Hit:
    fields: dict[str, Any]
    question: Question
    assignment_ids: list[str] = field(default_factory=list)
    disposed: bool = False
    review_status: str = "NotReviewed"
    reviewing: bool = False
    form: list[FormField] | None = None  # parsed once; every worker sees the same page

    def page_fields(self) -> list[FormField]:
        if self.form is None:
            self.form = form_fields(self.question.html) if self.question.html else []
        return self.form


@dataclass
class Faults:
    throttle_rate: float = 0.0
    fault_rate: float = 0.0


class Marketplace:
    def __init__(self, workers: list[crowd.Worker], bank: dict[str, crowd.BankEntry],
                 seed: int = 1, balance: str = "10000.00", arrival_mean_s: float = 900.0, speed: float = 0.0):
        self.lock = threading.RLock()
        self.seed = seed
        self.rng = random.Random(seed)
        self.fault_rng = random.Random(seed + 7)
        self.faults = Faults()
        self.workers = {w.worker_id: w for w in workers}
        self.roster = workers if isinstance(workers, crowd.Crowd) else None  # grows with posted work
        self.bank = bank
        # Virtual clock: starts at the wall time, then moves by advance() and, when speed > 0,
        # by `speed` virtual seconds per real second (so a plain boto3 client sees work arrive).
        self._base = float(int(time.time()))
        self._anchor = time.monotonic()
        self.speed = speed
        self.balance = money(self.roster.spec.balance if self.roster and self.roster.spec
                             and self.roster.spec.balance else balance)
        self.arrival_mean_s = arrival_mean_s
        self.hit_types: dict[str, dict[str, Any]] = {}
        self.hits: dict[str, Hit] = {}
        self.assignments: dict[str, Assignment] = {}
        self.qual_types: dict[str, dict[str, Any]] = {}
        self.worker_quals: dict[tuple[str, str], dict[str, Any]] = {}
        self.qual_requests: dict[str, dict[str, Any]] = {}
        self.blocks: dict[str, str] = {}
        self.bonuses: list[dict[str, Any]] = []
        self.tokens: dict[str, tuple[str, float]] = {}
        self.test_attempts: dict[tuple[str, str], dict[str, Any]] = {}
        self.calls = 0

    # ids and clock -------------------------------------------------------------
    def new_id(self, length: int = 30) -> str:
        alphabet = string.ascii_uppercase + string.digits
        return "3" + "".join(self.rng.choice(alphabet) for _ in range(length - 1))

    @property
    def now(self) -> float:
        return self._base + (time.monotonic() - self._anchor) * self.speed

    def advance(self, seconds: float) -> float:
        with self.lock:
            self._base += max(0.0, float(seconds))
            self.auto_approve()
            return self.now

    def auto_approve(self) -> None:
        for a in self.assignments.values():
            if (a.status == "Submitted" and a.submit_time is not None and a.submit_time <= self.now
                    and a.auto_approval_time is not None and a.auto_approval_time <= self.now):
                self.pay_assignment(a, a.auto_approval_time)

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
        a.status, a.approval_time = "Approved", when
        worker = self.workers.get(a.worker_id)
        if worker:
            worker.hits_approved += 1

    # workers -------------------------------------------------------------------
    def qual_value(self, worker: crowd.Worker, type_id: str) -> dict[str, Any] | None:
        if type_id == "00000000000000000040":
            return {"IntegerValue": worker.hits_approved}
        if type_id == "000000000000000000L0":
            return {"IntegerValue": worker.percent_approved}
        if type_id == "00000000000000000071":
            return {"LocaleValue": {"Country": worker.locale}}
        if type_id == "00000000000000000060":
            return {"IntegerValue": 1}
        granted = self.worker_quals.get((type_id, worker.worker_id))
        return granted if granted and granted["Status"] == "Granted" else None

    def meets(self, worker: crowd.Worker, requirements: list[dict[str, Any]]) -> bool:
        for r in requirements:
            self.take_test_if_wanted(worker, r["QualificationTypeId"])
        return all(_compare(self.qual_value(worker, r["QualificationTypeId"]), r) for r in requirements)

    def take_test_if_wanted(self, worker: crowd.Worker, type_id: str) -> None:
        """A worker who wants a HIT gated by a scored test takes it (again after RetryDelay)."""
        qual = self.qual_types.get(type_id)
        if not qual or "_scored_test" not in qual or qual["QualificationTypeStatus"] != "Active":
            return
        last = self.test_attempts.get((type_id, worker.worker_id))
        retry = qual.get("RetryDelayInSeconds")
        if last is not None and (retry is None or self.now - last["time"] < int(retry)):
            return
        rng = random.Random(f"{self.seed}:{type_id}:{worker.worker_id}:{last['time'] if last else 0}")
        _, score = qual_tests.take(worker, qual["_scored_test"], rng)
        self.test_attempts[(type_id, worker.worker_id)] = qual_tests.attempt_record(self.now, score)
        self.worker_quals[(type_id, worker.worker_id)] = {
            "QualificationTypeId": type_id, "WorkerId": worker.worker_id, "GrantTime": self.now,
            "IntegerValue": score, "Status": "Granted"}

    def eligible_workers(self, hit: Hit) -> list[crowd.Worker]:
        if self.roster is not None:  # a crowd with a size rule: newcomers arrive with the work
            for w in self.roster.recruit(hit.fields["HITId"], _work_units(hit.page_fields()), self.now):
                self.workers[w.worker_id] = w
        reqs = hit.fields.get("QualificationRequirements", [])
        done = {self.assignments[a].worker_id for a in hit.assignment_ids}
        now = self.now
        return [w for w in self.workers.values() if w.worker_id not in self.blocks and w.worker_id not in done
                and w.present(now) and self.meets(w, reqs)]

    def schedule(self, hit: Hit, slots: int) -> None:
        """Pick workers for open slots and let them do the page on the virtual clock."""
        # Keyed by what the requester sent, not by the HITId, so the same campaign posted in
        # another order (threads, a resumed run) meets the same workers doing the same work.
        key = hit.fields.get("RequesterAnnotation") or hit.fields["HITId"]
        rng = random.Random(f"{self.seed}:{key}:{len(hit.assignment_ids)}")
        pool = self.eligible_workers(hit)
        chosen: list[crowd.Worker] = []
        while pool and len(chosen) < slots:
            pick = rng.choices(pool, weights=[w.params["activity"] for w in pool])[0]
            chosen.append(pick)
            pool.remove(pick)
        for worker in chosen:
            self._work(hit, worker, rng)

    def _work(self, hit: Hit, worker: crowd.Worker, rng: random.Random) -> None:
        duration = int(hit.fields["AssignmentDurationInSeconds"])
        accept = self.now + rng.expovariate(1.0 / self.arrival_mean_s)
        fields = hit.page_fields()
        seconds = crowd.work_seconds(worker, _work_units(fields), duration, rng)
        if accept >= hit.fields["Expiration"] or seconds >= duration:
            return
        submit = accept + seconds
        values = fill_form(worker, fields, page_rules(hit.question.html), accept, submit, self.bank, rng)
        a = Assignment(self.new_id(), hit.fields["HITId"], worker.worker_id, accept, submit,
                       accept + duration, answer_xml(values),
                       auto_approval_time=submit + int(hit.fields["AutoApprovalDelayInSeconds"]))
        self.assignments[a.assignment_id] = a
        hit.assignment_ids.append(a.assignment_id)

    # views ---------------------------------------------------------------------
    def visible(self, a: Assignment) -> bool:
        return a.submit_time is not None and a.submit_time <= self.now

    def hit_view(self, hit: Hit) -> dict[str, Any]:
        started = [self.assignments[i] for i in hit.assignment_ids if self.assignments[i].accept_time <= self.now]
        pending = sum(1 for a in started if not self.visible(a))
        completed = sum(1 for a in started if a.status in ("Approved", "Rejected"))
        available = max(0, int(hit.fields["MaxAssignments"]) - len(started))
        expired = self.now >= hit.fields["Expiration"]
        if hit.disposed:
            status = "Disposed"
        elif hit.reviewing:
            status = "Reviewing"
        elif expired or available == 0:
            status = "Unassignable" if pending else "Reviewable"
        else:
            status = "Assignable"
        return {**hit.fields, "HITStatus": status, "HITReviewStatus": hit.review_status,
                "NumberOfAssignmentsPending": pending,
                "NumberOfAssignmentsAvailable": 0 if expired else available,
                "NumberOfAssignmentsCompleted": completed}

    def ground_truth(self) -> list[dict[str, Any]]:
        return [w.public() | {"blocked": w.worker_id in self.blocks} for w in self.workers.values()]


def _compare(value: dict[str, Any] | None, req: dict[str, Any]) -> bool:
    comp = req["Comparator"]
    if comp == "Exists":
        return value is not None
    if comp == "DoesNotExist":
        return value is None
    if value is None:
        return False
    if "LocaleValue" in value:
        have = value["LocaleValue"]["Country"]
        wanted = {loc["Country"] for loc in req.get("LocaleValues", [])}
        return (have in wanted) == (comp in ("EqualTo", "In"))
    have_i = int(value.get("IntegerValue", 0))
    targets = [int(v) for v in req.get("IntegerValues", [])]
    checks = {
        "LessThan": lambda t: have_i < t, "LessThanOrEqualTo": lambda t: have_i <= t,
        "GreaterThan": lambda t: have_i > t, "GreaterThanOrEqualTo": lambda t: have_i >= t,
        "EqualTo": lambda t: have_i == t, "NotEqualTo": lambda t: have_i != t,
    }
    if comp == "In":
        return have_i in targets
    if comp == "NotIn":
        return have_i not in targets
    return bool(targets) and checks[comp](targets[0])


def page_rules(html: str) -> SubmitRules:
    """The submit rules a page declares for its own check (what its workers are held to)."""
    match = _RULES_JSON.search(html or "")
    if not match:
        return SubmitRules(min_words=0, one_sentence=False, banned_prefixes=(), required=False)
    spec = json.loads(match.group(1))
    return SubmitRules(
        min_words=int(spec.get("min_words", 0)), one_sentence=bool(spec.get("one_sentence")),
        banned_prefixes=tuple(spec.get("banned_prefixes", [])), max_chars=spec.get("max_chars"),
        required=bool(spec.get("required", True)), canned_text=spec.get("canned_text", CANNED_TEXT),
    )


def _work_units(fields: list[FormField]) -> int:
    """Effort in captions: a test of eight short questions takes about as long as one caption."""
    hints = [f.attrs.get("data-sim-fill") for f in fields]
    return hints.count("caption") + -(-hints.count("qual_answer") // 8) + judges.judgement_units(fields)


def fill_form(worker: crowd.Worker, fields: list[FormField], rules: SubmitRules,
              accept: float, submit: float, bank: dict[str, crowd.BankEntry],
              rng: random.Random) -> dict[str, str]:
    """The values a worker submits: captions by profile, choices, the page's timing fields."""
    n_items = max(1, sum(1 for f in fields if f.attrs.get("data-sim-fill") == "caption"))
    step = (submit - accept) / n_items
    values: dict[str, str] = judges.judge_fields(worker, fields, bank, rng)
    for f in fields:
        if f.name in values:
            continue
        hint, item = f.attrs.get("data-sim-fill", ""), f.attrs.get("data-item", "")
        index = int(f.attrs.get("data-index", "0") or 0)
        if hint == "caption":
            values[f.name] = crowd.write_caption(worker, item, bank, rules, rng)
        elif hint == "qual_answer":
            values[f.name] = qual_tests.answer_item(worker, item, f.options, rng)
        elif hint == "text_present":
            values[f.name] = crowd.says_text_present(worker, item, bank, rng)
        elif hint == "start_ms":
            values[f.name] = str(int((accept + step * index) * 1000))
        elif hint == "end_ms":
            values[f.name] = str(int((accept + step * (index + 1)) * 1000 - 500))
        elif f.kind in ("hidden", "text") and f.value:
            values[f.name] = f.value
        elif f.kind in ("radio", "select") and f.options:
            values[f.name] = rng.choice([o for o in f.options if o] or f.options)
        elif f.kind == "checkbox" and f.options:
            values[f.name] = "|".join(o for o in f.options if rng.random() < 0.3)
        elif f.kind in ("text", "textarea"):
            values[f.name] = ""
    return values
