"""MTurk through boto3 (Requester API 2017-01-17); MTurk's own endpoints, closed, are refused."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from flows.core.errors import PlatformError
from flows.core.run.run_context import Target
from flows.platforms.retry_policy import RetryPolicy, botocore_hook
from flows.platforms.targets import check_endpoint

_HITID_IN_MESSAGE = re.compile(r"HITId:?\s*([A-Z0-9]{10,64})")
# botocore's own retries off: flows/platforms/retry_policy.py decides (through a needs-retry hook)
CLIENT_OPTIONS: dict[str, Any] = {"retries": {"mode": "standard", "total_max_attempts": 1},
                                  "max_pool_connections": 16, "connect_timeout": 5, "read_timeout": 30}
PAGE_SIZE = 100  # MTurk's largest MaxResults
MAX_REPLY_BYTES = 64 * 2**20  # a page of 100 assignments is well under 1 MiB
REPLY_DEADLINE_S = 60.0  # one attempt, head and body


def make_client(target: Target, retry: RetryPolicy | None = None) -> Any:
    check_endpoint(target.endpoint_url)
    # The simulator ignores signatures; dummy keys keep the real credential chain untouched.
    keys = {"aws_access_key_id": "SIMULATOR", "aws_secret_access_key": "SIMULATOR"} if target.kind == "sim" else {}
    # boto3 costs ~0.15 s CPU to import: only a command that talks to MTurk pays it (not `hitflow status`)
    import boto3
    from botocore.config import Config

    client = boto3.client("mturk", endpoint_url=target.endpoint_url, region_name="us-east-1",
                          config=Config(**CLIENT_OPTIONS), **keys)
    client.meta.events.register_first("needs-retry.mturk", botocore_hook(retry or RetryPolicy()))
    client.meta.events.register("before-send.mturk", bounded_send(client._endpoint.http_session))
    return client


def bounded_send(session: Any) -> Any:
    """A ``before-send`` handler reading the reply within REPLY_DEADLINE_S and MAX_REPLY_BYTES."""
    from botocore.exceptions import ConnectionClosedError, ReadTimeoutError
    from urllib3.exceptions import HTTPError, TimeoutError

    from flows.core.http_clients import within

    def send(request: Any, event_name: str = "", **_: Any) -> Any:
        def attempt() -> Any:
            request.stream_output = True  # else botocore's session reads the whole body as it sends
            reply = session.send(request)
            declared = reply.headers.get("Content-Length", "")
            try:
                reply._content = reply.raw.read(MAX_REPLY_BYTES + 1)  # read here, not whole by botocore
                if declared.isdigit() and len(reply._content) < min(int(declared), MAX_REPLY_BYTES + 1):
                    raise HTTPError("the reply ended before its Content-Length")  # botocore does not check
            except HTTPError as exc:  # as botocore's own read would say it (a timeout, a body cut short)
                raise (ReadTimeoutError if isinstance(exc, TimeoutError) else ConnectionClosedError)(
                    endpoint_url=request.url) from exc
            reply.raw.close() if len(reply._content) > MAX_REPLY_BYTES else reply.raw.release_conn()
            return reply

        reply = within(REPLY_DEADLINE_S, attempt, lambda: ReadTimeoutError(
            endpoint_url=f"{request.url} (no whole reply within {REPLY_DEADLINE_S:.0f} s)"))
        if len(reply._content) > MAX_REPLY_BYTES:
            raise PlatformError(f"the endpoint's reply to {event_name.rsplit('.', 1)[-1]} is over "
                                f"{MAX_REPLY_BYTES // 2**20} MiB; check the endpoint URL")
        return reply
    return send


def turk_code(exc: ClientError) -> str:
    return str(exc.response.get("TurkErrorCode") or exc.response.get("Error", {}).get("Code", ""))


@contextmanager
def _platform_errors(operation: str) -> Iterator[None]:
    """A failed call (after the retry policy's attempts) as a one-line PlatformError."""
    try:
        yield
    except ClientError as exc:
        msg = exc.response.get("Error", {}).get("Message", "")
        raise PlatformError(f"{operation} failed: {turk_code(exc)}: {msg}") from exc
    except BotoCoreError as exc:
        raise PlatformError(f"{operation} failed: {exc}; is the endpoint running?") from exc


def _call(client: Any, operation: str, **params: Any) -> dict[str, Any]:
    with _platform_errors(operation):
        return getattr(client, operation)(**params)  # type: ignore[no-any-return]


def paginate(client: Any, operation: str, key: str, **params: Any) -> Iterator[dict[str, Any]]:
    """Every item of a List call, sending what boto3's paginator sends, without building one per call."""
    from botocore.exceptions import PaginationError

    with _platform_errors(operation):
        call, kwargs, before = getattr(client, operation), {**params, "MaxResults": PAGE_SIZE}, None
        while True:
            page = call(**kwargs)
            yield from page.get(key) or []
            token = page.get("NextToken")
            if token is None:
                return
            if token == before:  # botocore's own refusal, in its words
                raise PaginationError(message=f"The same next token was received twice: {{'NextToken': {token!r}}}")
            kwargs.pop("NextToken", None)
            if token != "None":
                kwargs["NextToken"] = token
            before = token


def create_hit_type(client: Any, params: dict[str, Any]) -> str:
    return _call(client, "create_hit_type", **params)["HITTypeId"]


def create_hit(client: Any, hit_type_id: str, params: dict[str, Any], token: str) -> tuple[str, bool]:
    """Post one HIT; a duplicate token's HIT is adopted (returns its id and True)."""
    try:
        hit = client.create_hit_with_hit_type(HITTypeId=hit_type_id, UniqueRequestToken=token, **params)
        return hit["HIT"]["HITId"], False
    except ClientError as exc:
        match = _HITID_IN_MESSAGE.search(exc.response.get("Error", {}).get("Message", ""))
        if turk_code(exc) == "AWS.MechanicalTurk.HitAlreadyExists" and match:
            return match.group(1), True
        raise PlatformError(f"CreateHITWithHITType failed: {turk_code(exc)}: "
                            f"{exc.response.get('Error', {}).get('Message', '')}") from exc


def add_assignments(client: Any, hit_id: str, extra: int, token: str) -> bool:
    """CreateAdditionalAssignmentsForHIT under ``token``; True when this token's extension was made already."""
    try:
        client.create_additional_assignments_for_hit(HITId=hit_id, NumberOfAdditionalAssignments=extra,
                                                     UniqueRequestToken=token)
        return False
    except ClientError as exc:
        msg = exc.response.get("Error", {}).get("Message", "")
        if turk_code(exc) == "AWS.MechanicalTurk.DuplicateRequest" or "UniqueRequestToken" in msg:
            return True
        raise PlatformError(f"CreateAdditionalAssignmentsForHIT failed: {turk_code(exc)}: {msg}") from exc


def get_hit(client: Any, hit_id: str) -> dict[str, Any]:
    return _call(client, "get_hit", HITId=hit_id)["HIT"]


def expire_hit(client: Any, hit_id: str) -> None:
    """No new worker can accept it; those already working may still submit."""
    _call(client, "update_expiration_for_hit", HITId=hit_id, ExpireAt=0)


def delete_hit(client: Any, hit_id: str) -> None:
    _call(client, "delete_hit", HITId=hit_id)


def list_hits(client: Any) -> list[dict[str, Any]]:
    return list(paginate(client, "list_hits", "HITs"))


def reviewable_hits(client: Any, hit_type_id: str, status: str = "Reviewable") -> list[str]:
    """Ids of the HIT type's HITs in ``status`` (Reviewable: closed with nothing pending), every page."""
    return [h["HITId"] for h in paginate(client, "list_reviewable_hits", "HITs", HITTypeId=hit_type_id,
                                         Status=status)]


def mark_reviewing(client: Any, hit_id: str) -> None:
    """Reviewable -> Reviewing, so ListReviewableHITs(Status=Reviewable) stops returning the HIT."""
    _call(client, "update_hit_review_status", HITId=hit_id, Revert=False)


def list_submissions(client: Any, hit_id: str) -> list[dict[str, Any]]:
    return list(paginate(client, "list_assignments_for_hit", "Assignments", HITId=hit_id,
                         AssignmentStatuses=["Submitted", "Approved", "Rejected"]))


def approve(client: Any, assignment_id: str) -> str:
    """Approve; an assignment the platform already approved (auto-approval) counts as done."""
    try:
        client.approve_assignment(AssignmentId=assignment_id)
        return "approved"
    except ClientError as exc:
        if turk_code(exc) == "AWS.MechanicalTurk.InvalidAssignmentState":
            status = _call(client, "get_assignment", AssignmentId=assignment_id)["Assignment"]["AssignmentStatus"]
            if status == "Approved":
                return "already approved"
        raise PlatformError(f"ApproveAssignment {assignment_id}: {turk_code(exc)}") from exc


def reject(client: Any, assignment_id: str, feedback: str) -> str:
    try:
        client.reject_assignment(AssignmentId=assignment_id, RequesterFeedback=feedback)
        return "rejected"
    except ClientError as exc:
        if turk_code(exc) == "AWS.MechanicalTurk.InvalidAssignmentState":
            status = _call(client, "get_assignment", AssignmentId=assignment_id)["Assignment"]["AssignmentStatus"]
            return f"already {status.lower()}"
        raise PlatformError(f"RejectAssignment {assignment_id}: {turk_code(exc)}") from exc


def bonus(client: Any, worker_id: str, assignment_id: str, amount: str, reason: str, token: str) -> None:
    _call(client, "send_bonus", WorkerId=worker_id, AssignmentId=assignment_id, BonusAmount=amount,
          Reason=reason, UniqueRequestToken=token)


def ensure_qualification_type(client: Any, name: str, description: str, **extra: Any) -> str:
    """The requester's qualification type of that name, created (with ``extra``, e.g. a Test) if missing."""
    for qual in paginate(client, "list_qualification_types", "QualificationTypes", Query=name,
                         MustBeRequestable=False, MustBeOwnedByCaller=True):
        if qual["Name"] == name:
            return str(qual["QualificationTypeId"])
    try:
        return str(_call(client, "create_qualification_type", Name=name, Description=description,
                         QualificationTypeStatus="Active", **extra)["QualificationType"]["QualificationTypeId"])
    except PlatformError as exc:  # created by a call whose reply was lost, then retried: take that one
        if "QualificationTypeAlreadyExists" not in str(exc):
            raise
        found = [q for q in paginate(client, "list_qualification_types", "QualificationTypes", Query=name,
                                     MustBeRequestable=False, MustBeOwnedByCaller=True) if q["Name"] == name]
        if not found:
            raise
        return str(found[0]["QualificationTypeId"])


def create_test_qualification(client: Any, name: str, test: str, answer_key: str, retry_delay_s: int | None,
                              description: str = "Spelling, grammar and judging image descriptions; scored "
                                                 "automatically.") -> str:
    """A qualification MTurk scores from the AnswerKey (one of that name reused); ``retry_delay_s`` None: once."""
    retry = {} if retry_delay_s is None else {"RetryDelayInSeconds": retry_delay_s}
    return ensure_qualification_type(client, name, description, Test=test, AnswerKey=answer_key,
                                     TestDurationInSeconds=1800, **retry)


def grant_qualification(client: Any, qual_id: str, worker_id: str, value: int = 1) -> None:
    _call(client, "associate_qualification_with_worker", QualificationTypeId=qual_id, WorkerId=worker_id,
          IntegerValue=value, SendNotification=False)


def answer_qualification_request(client: Any, request_id: str, grant: bool, reason: str) -> None:
    """A worker's request for a qualification whose Test the requester judges: granted (value 1) or refused."""
    _call(client, "accept_qualification_request", QualificationRequestId=request_id, IntegerValue=1) if grant else \
        _call(client, "reject_qualification_request", QualificationRequestId=request_id, Reason=reason)


def exclude_worker(client: Any, worker_id: str, mode: str, qual_id: str, reason: str) -> bool:
    """A soft block (the must-not-exist qualification) or a hard one (CreateWorkerBlock); whether this call made it."""
    if mode == "hard":
        _call(client, "create_worker_block", WorkerId=worker_id, Reason=reason)
        return True
    try:
        _call(client, "get_qualification_score", QualificationTypeId=qual_id, WorkerId=worker_id)
        return False
    except PlatformError as exc:
        if "QualificationDoesNotExist" not in str(exc):
            raise
    grant_qualification(client, qual_id, worker_id, 1)
    return True


def balance(client: Any) -> Decimal:
    return Decimal(_call(client, "get_account_balance")["AvailableBalance"])
