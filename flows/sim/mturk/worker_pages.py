"""The worker-facing side of the MTurk simulator (``/mturk/*``)."""

from __future__ import annotations

from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlencode

from flows.core.pages.mturk_forms import answer_xml
from flows.sim.mturk.market import Assignment
from flows.sim.mturk.validation import ID_PATTERN


class BadRequest(Exception):
    """A request the server refuses before reading its body (status, one-line reason)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class WorkerPages(BaseHTTPRequestHandler):
    """Handlers the simulator's request handler inherits; it supplies ``_send`` and ``_commit``."""

    server: Any
    _send: Callable[..., None]  # (status, body, content type, headers=None)
    _commit: Callable[[], None]

    def _preview(self, query: dict[str, str]) -> None:
        hit = self.server.market.hits.get(query.get("hitId", ""))
        if hit is None or not hit.question.html:
            return self._send(404, b"No such HTMLQuestion HIT.", "text/plain")
        self._send(200, hit.question.html.encode(), "text/html; charset=utf-8")

    def _accept(self, query: dict[str, str]) -> None:
        market = self.server.market
        with market.lock:
            hit = market.hits.get(query.get("hitId", ""))
            worker = query.get("workerId", "")
            if hit is None or not worker:
                return self._send(400, b"hitId and workerId are required.", "text/plain")
            if len(worker) > 64 or not ID_PATTERN.fullmatch(worker):  # what MTurk's own calls accept later
                return self._send(400, b"workerId must be an MTurk worker ID: 1-64 characters, A-Z and 0-9.",
                                  "text/plain")
            a = Assignment(market.new_id(), hit.fields["HITId"], worker, market.now, None,
                           market.now + int(hit.fields["AssignmentDurationInSeconds"]))
            market.assignments[a.assignment_id] = a
            hit.assignment_ids.append(a.assignment_id)
            self._commit()
        host = f"http://{self.headers.get('Host')}"
        target = "/mturk/preview?" + urlencode({"hitId": a.hit_id, "assignmentId": a.assignment_id,
                                                "workerId": worker, "turkSubmitTo": host})
        self._send(302, b"", "text/plain", {"Location": target})

    def _external_submit(self, body: bytes) -> None:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadRequest(400, f"form body is not UTF-8: {exc}") from exc
        fields = {k: v[0] if len(v) == 1 else "|".join(v)
                  for k, v in parse_qs(text, keep_blank_values=True).items()}
        market = self.server.market
        with market.lock:
            a = market.assignments.get(fields.pop("assignmentId", ""))
            if a is None or a.submit_time is not None:
                return self._send(400, b"Unknown or already submitted assignment.", "text/plain")
            hit = market.hits[a.hit_id]
            a.submit_time, a.answer = market.now, answer_xml(fields)
            a.auto_approval_time = market.now + int(hit.fields["AutoApprovalDelayInSeconds"])
            market.expect_auto_approval(a)
            self._commit()
        self._send(200, b"<html><body><p>Thank you, your work was submitted.</p></body></html>",
                   "text/html; charset=utf-8")
