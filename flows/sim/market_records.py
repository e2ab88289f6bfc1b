"""The simulated marketplace's records: HITs, assignments, the fault settings and MTurk's errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from flows.core.mturk_forms import FormField, Question, form_fields
from flows.sim.journal import Tracked
from flows.sim.question_form import question_form_fields

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


@dataclass
class Assignment(Tracked):
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
class Hit(Tracked):
    """``fields`` is mutated in place by some operations: they call ``hits.touch(hit_id)``."""

    volatile: ClassVar[frozenset[str]] = frozenset({"form", "assignment_ids"})
    fields: dict[str, Any]
    question: Question
    assignment_ids: list[str] = field(default_factory=list)
    disposed: bool = False
    review_status: str = "NotReviewed"
    reviewing: bool = False
    form: list[FormField] | None = None  # parsed once; every worker sees the same page

    def page_fields(self) -> list[FormField]:
        """The form a worker fills; an ExternalQuestion's is known once a worker has opened it."""
        if self.form is None and self.question.kind == "QuestionForm":
            self.form = question_form_fields(self.fields["Question"])
        if self.form is None and self.question.kind != "ExternalQuestion":
            self.form = form_fields(self.question.html) if self.question.html else []
        return self.form or []


@dataclass
class Faults:
    throttle_rate: float = 0.0
    fault_rate: float = 0.0
    lose_reply_rate: float = 0.0  # the operation is done, then the connection drops before the reply
