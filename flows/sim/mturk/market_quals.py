"""What a simulated worker holds and takes: qualifications and tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from flows.sim.mturk.journal import Journal
from flows.sim.mturk.qual_requirements import comparator
from flows.sim.mturk.question_form import question_form_answer, question_form_fields
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people import crowd, qual_tests


class WorkerQualifications:
    """Mixed into :class:`flows.sim.mturk.market.Marketplace`, whose state these read and write."""

    seed: int
    bank: dict[str, crowd.BankEntry]
    qual_types: Journal[str, dict[str, Any]]
    worker_quals: Journal[tuple[str, str], dict[str, Any]]
    qual_requests: Journal[str, dict[str, Any]]
    test_attempts: Journal[tuple[str, str], dict[str, Any]]
    new_id: Callable[[], str]

    @property
    def now(self) -> float:
        raise NotImplementedError

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

    def requirement_check(self, requirements: list[dict[str, Any]]) -> Callable[[crowd.Worker], bool]:
        """``meets`` for one set of requirements, prepared once so the per-worker part is only lookups."""
        tests = [r["QualificationTypeId"] for r in requirements
                 if (self.qual_types.get(r["QualificationTypeId"]) or {}).get("Test")]
        checks = [(r["QualificationTypeId"], comparator(r)) for r in requirements]

        def check(worker: crowd.Worker) -> bool:
            for type_id in tests:  # a worker who wants a test-gated HIT takes the test first
                self.take_test_if_wanted(worker, type_id)
            return all(ok(self.qual_value(worker, type_id)) for type_id, ok in checks)
        return check

    def take_test_if_wanted(self, worker: crowd.Worker, type_id: str) -> None:
        """A worker who wants a test-gated HIT takes the test (again after RetryDelay); no AnswerKey: a request."""
        qual = self.qual_types.get(type_id)
        if not qual or not qual.get("Test") or qual["QualificationTypeStatus"] != "Active":
            return
        last = self.test_attempts.get((type_id, worker.worker_id))
        retry = qual.get("RetryDelayInSeconds")
        if last is not None and (retry is None or self.now - last["time"] < int(retry)):
            return
        if "_scored_test" not in qual:
            return self.request_qualification(worker, qual)
        # Keyed by the test's name, not its id: ids differ between simulator instances.
        rng = random.Random(f"{self.seed}:{qual['Name']}:{worker.worker_id}:{last['time'] if last else 0}")
        _, score = qual_tests.take(worker, qual["_scored_test"], rng)
        self.test_attempts[(type_id, worker.worker_id)] = qual_tests.attempt_record(self.now, score)
        self.worker_quals[(type_id, worker.worker_id)] = {
            "QualificationTypeId": type_id, "WorkerId": worker.worker_id, "GrantTime": self.now,
            "IntegerValue": score, "Status": "Granted"}

    def awaiting_verdict(self, requirements: list[dict[str, Any]]) -> bool:
        """Some worker waits on the requester's verdict on a test these requirements name."""
        wanted = {r["QualificationTypeId"] for r in requirements}
        return any(r["QualificationTypeId"] in wanted for r in self.qual_requests.values())

    def request_qualification(self, worker: crowd.Worker, qual: dict[str, Any]) -> None:
        """The worker fills the test form and waits for Accept/RejectQualificationRequest."""
        type_id = qual["QualificationTypeId"]
        fields = question_form_fields(qual["Test"])
        rng = random.Random(f"{self.seed}:{qual['Name']}:{worker.worker_id}:request")
        values = fill_form(worker, fields, page_rules(""), self.now, self.now, self.bank, rng, page_key=type_id)
        values |= qual_tests.known_questions(worker, fields, self.bank, rng)
        request_id = self.new_id()
        self.qual_requests[request_id] = {
            "QualificationRequestId": request_id, "QualificationTypeId": type_id, "WorkerId": worker.worker_id,
            "Test": qual["Test"], "Answer": question_form_answer(values, fields), "SubmitTime": self.now}
        self.test_attempts[(type_id, worker.worker_id)] = qual_tests.attempt_record(self.now, 0)
