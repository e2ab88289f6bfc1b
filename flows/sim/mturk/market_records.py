"""The simulated marketplace's records: HITs, assignments, the fault settings and MTurk's errors."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from flows.core.pages.mturk_forms import FormField, Question, form_fields, parse_question
from flows.sim.mturk.journal import Journal, Tracked
from flows.sim.mturk.packed_text import Packed, PagePacker, pack_answer, unpack
from flows.sim.mturk.question_form import question_form_fields
from flows.sim.people import crowd

SYSTEM_QUALS = {
    "00000000000000000040": "NumberHITsApproved",
    "000000000000000000L0": "PercentAssignmentsApproved",
    "00000000000000000071": "Locale",
    "00000000000000000060": "Adult",
}
ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


class MTurkError(Exception):
    """Answered as HTTP 400 RequestError (or ServiceFault) with a TurkErrorCode."""

    def __init__(self, code: str, message: str, kind: str = "RequestError", status: int = 400):
        super().__init__(message)
        self.code, self.message, self.kind, self.status = code, message, kind, status


class Assignment(Tracked):
    """One worker's assignment; its answer is kept packed (packed_text.py), ``answer`` reads and assigns text."""

    __slots__ = (
        "_answer",
        "accept_time",
        "approval_time",
        "assignment_id",
        "auto_approval_time",
        "deadline",
        "feedback",
        "hit_id",
        "rejection_time",
        "status",
        "submit_time",
        "worker_id",
    )
    FIELDS = ("assignment_id", "hit_id", "worker_id", "accept_time", "submit_time", "deadline", "answer",
              "status", "auto_approval_time", "approval_time", "rejection_time", "feedback")  # a state file's keys

    def __init__(self, assignment_id: str, hit_id: str, worker_id: str, accept_time: float,
                 submit_time: float | None, deadline: float, answer: str = "", status: str = "Submitted",
                 auto_approval_time: float | None = None, approval_time: float | None = None,
                 rejection_time: float | None = None, feedback: str | None = None):
        self.assignment_id, self.hit_id, self.worker_id = assignment_id, hit_id, worker_id
        self.accept_time, self.submit_time, self.deadline = accept_time, submit_time, deadline
        self.answer, self.status, self.auto_approval_time = answer, status, auto_approval_time
        self.approval_time, self.rejection_time, self.feedback = approval_time, rejection_time, feedback

    @property
    def answer(self) -> str:
        return unpack(self._answer)

    @answer.setter
    def answer(self, text: str) -> None:
        self._answer = pack_answer(text)

    def keep_answer_in(self, stored: object) -> None:
        """The answer is read from ``stored`` from now on (flows/sim/service/state_rows.py); not a change to save."""
        object.__setattr__(self, "_answer", stored)

    @property
    def answered(self) -> bool:
        """``answer != ""`` without unpacking it (asked of every assignment of a listed HIT)."""
        return self._answer != ""

    def record(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.FIELDS}

    def __eq__(self, other: object) -> bool:  # as the dataclass it was: field by field
        return isinstance(other, Assignment) and self.record() == other.record()

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return f"Assignment({self.assignment_id!r}, {self.hit_id!r}, {self.worker_id!r}, {self.status!r})"


class PageQuestion:
    """A HIT's parsed Question without its page, which is read from the packed Question XML when asked for."""

    __slots__ = ("form_ids", "kind", "url", "xml")

    def __init__(self, question: Question, xml: str | Packed):
        self.kind, self.url, self.form_ids, self.xml = question.kind, question.url, question.form_ids, xml

    @property
    def html(self) -> str:
        return parse_question(unpack(self.xml)).html if self.kind == "HTMLQuestion" else ""


@dataclass(slots=True)
class Hit(Tracked):
    """A HIT (:func:`new_hit`); operations mutating ``fields`` call ``hits.touch``; ``Question`` is packed."""

    volatile: ClassVar[frozenset[str]] = frozenset({"form", "assignment_ids"})
    fields: dict[str, Any]
    question: PageQuestion
    assignment_ids: list[str] = field(default_factory=list)
    disposed: bool = False
    review_status: str = "NotReviewed"
    reviewing: bool = False
    form: list[FormField] | None = None  # an ExternalQuestion's, once a worker has opened its page
    waiting: int = 0  # open slots whose workers are chosen when the clock moves (Marketplace.schedule_waiting)
    returned: list[str] = field(default_factory=list)  # workers who gave it back (handed_back.py): not offered again
    reopened: list[float] = field(default_factory=list)  # when slots given back reopened, their workers not yet chosen

    def question_xml(self) -> str:
        return unpack(self.fields["Question"])

    def page_fields(self, html: str | None = None) -> list[FormField]:
        """The form a worker fills (``html``: the page, when the caller has it), parsed on every call."""
        if self.question.kind == "ExternalQuestion":
            return self.form or []
        if self.question.kind == "QuestionForm":
            return question_form_fields(self.question_xml())
        page = self.question.html if html is None else html
        return form_fields(page) if page else []


def new_hit(fields: dict[str, Any], question: Question, pages: PagePacker) -> Hit:
    """A HIT whose ``fields["Question"]`` (text) is packed with its HIT type's page dictionary."""
    fields["Question"] = pages.pack(fields["HITTypeId"], fields["Question"])
    return Hit(fields, PageQuestion(question, fields["Question"]))


def hit_state(hit: Hit, started: list[Assignment], now: float, visible: Callable[[Assignment], bool]
              ) -> dict[str, Any]:
    """The status fields of GetHIT's reply, from the assignments workers have ``started`` by ``now``."""
    pending = sum(1 for a in started if not visible(a))
    completed = sum(1 for a in started if a.status in ("Approved", "Rejected"))
    available = max(0, int(hit.fields["MaxAssignments"]) - len(started))
    expired = now >= hit.fields["Expiration"]
    if hit.disposed:
        status = "Disposed"
    elif hit.reviewing:
        status = "Reviewing"
    elif expired or available == 0:
        status = "Unassignable" if pending else "Reviewable"
    else:
        status = "Assignable"
    return {"HITStatus": status, "HITReviewStatus": hit.review_status, "NumberOfAssignmentsPending": pending,
            "NumberOfAssignmentsAvailable": 0 if expired else available,
            "NumberOfAssignmentsCompleted": completed}


def schedule_order(hit: Hit) -> tuple[float, str, str]:
    """The order HITs posted together get their workers in (and a reopened state file recruits in)."""
    return (float(hit.fields["CreationTime"]), hit.fields.get("RequesterAnnotation") or "", hit.fields["HITId"])


def seeded_nonce(seed: int) -> str:
    """What a seed's ids are made from: another seed, other ids."""
    return hashlib.blake2b(f"hitflow-sim:{seed}".encode(), digest_size=8).hexdigest()


@dataclass
class Faults:
    throttle_rate: float = 0.0
    fault_rate: float = 0.0
    lose_reply_rate: float = 0.0  # the operation is done, then the connection drops before the reply


class MarketState(Protocol):
    """What the marketplace's helpers read of market.Marketplace (said here, so none imports it back)."""

    lock: threading.RLock
    seed: int
    workers: dict[str, crowd.Worker]
    bank: dict[str, crowd.BankEntry]
    hits: Journal[str, Hit]
    assignments: Journal[str, Assignment]
    blocks: Journal[str, str]
    notifications: Journal[str, dict[str, Any]]
    watched_until: float | None
    changed_workers: set[str]
    waiting: set[str]

    def notify(self, hit: Hit, event_type: str, when: float, assignment_id: str | None = None) -> None: ...
    def qual_value(self, worker: crowd.Worker, type_id: str) -> dict[str, Any] | None: ...
    def hand_back(self, hit: Hit, worker_id: str, at: float, assignment_id: str | None = None) -> None: ...
    def schedule(self, hit: Hit, slots: int, html: str | None = None, after: float | None = None) -> None: ...
