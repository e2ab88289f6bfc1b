"""One retry policy for every platform call (docs/operations.md)."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

import tenacity
from botocore.exceptions import ConnectionError as BotoConnectionError
from botocore.exceptions import HTTPClientError

if TYPE_CHECKING:  # httpx costs ~0.1 s CPU to import (its CLI's rich with it): an MTurk command never needs it
    import httpx

T = TypeVar("T")


class Failure(Enum):
    THROTTLED = "throttled"  # refused before acting
    NOT_SENT = "not sent"  # never reached the server
    AMBIGUOUS = "ambiguous"  # may have acted
    FINAL = "final"  # the request is wrong: repeating it cannot help


MTURK_THROTTLING = {"ThrottlingException", "Throttling", "RequestLimitExceeded", "TooManyRequestsException"}
MTURK_KEYED = {"CreateHIT", "CreateHITWithHITType", "SendBonus", "CreateAdditionalAssignmentsForHIT"}
MTURK_REPEATABLE_WRITES = {
    "ApproveAssignment", "RejectAssignment", "AcceptQualificationRequest", "RejectQualificationRequest",
    "AssociateQualificationWithWorker", "DisassociateQualificationFromWorker", "CreateWorkerBlock",
    "DeleteWorkerBlock", "UpdateExpirationForHIT", "UpdateHITReviewStatus", "UpdateHITTypeOfHIT",
    "UpdateQualificationType", "UpdateNotificationSettings", "DeleteHIT", "DeleteQualificationType",
    "CreateHITType", "CreateQualificationType",
}
PROLIFIC_REPEATABLE_POSTS = tuple(re.compile(p) for p in (
    r"study-cost-calculator/", r"participant-groups/[^/]+/participants/", r"submissions/bulk-approve/",
    r"submissions/[^/]+/transition/", r"studies/[^/]+/transition/"))


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 10
    # A throttled call was refused unread, so it may wait longer (ten refusals in a row stopped decisions).
    throttled_attempts: int = 20
    first_wait_s: float = 0.01
    max_wait_s: float = 5.0
    retry_after_cap_s: float = 60.0
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time  # for Retry-After given as an HTTP date
    rng: random.Random = field(default_factory=random.Random)

    def attempts_for(self, failure: Failure) -> int:
        return self.throttled_attempts if failure is Failure.THROTTLED else self.attempts

    def retries(self, failure: Failure, repeatable: bool) -> bool:
        if failure in (Failure.THROTTLED, Failure.NOT_SENT):
            return True
        return failure is Failure.AMBIGUOUS and repeatable

    def wait_s(self, attempt: int, retry_after: str | None = None) -> float:
        """Seconds before attempt ``attempt + 1``: the server's Retry-After, else jittered backoff."""
        stated = retry_after_s(retry_after, self.clock())
        if stated is not None:
            return min(stated, self.retry_after_cap_s)
        return self.rng.uniform(0.0, min(self.first_wait_s * 2 ** (attempt - 1), self.max_wait_s))

    def run(self, attempt: Callable[[], T], repeatable: bool,
            classify: Callable[[BaseException], tuple[Failure, str | None]]) -> T:
        """``attempt()`` until it succeeds or the policy gives up; the last exception is raised."""
        retrying = tenacity.Retrying(
            stop=lambda state: state.attempt_number >= self.attempts_for(classify(_exception(state))[0]),
            sleep=self.sleep, reraise=True,
            retry=tenacity.retry_if_exception(lambda exc: self.retries(classify(exc)[0], repeatable)),
            wait=lambda state: self.wait_s(state.attempt_number, classify(_exception(state))[1]))
        return retrying(attempt)


def _exception(state: tenacity.RetryCallState) -> BaseException:
    exc = state.outcome.exception() if state.outcome else None
    assert exc is not None  # tenacity waits only after a failed attempt
    return exc


def retry_after_s(value: str | None, now: float) -> float | None:
    """A Retry-After header in seconds from ``now``: delta-seconds or an HTTP date; None if absent or unreadable."""
    if not value or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(text).timestamp() - now)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


# MTurk (botocore) --------------------------------------------------------------------------------
def mturk_failure(response: Any = None, caught_exception: BaseException | None = None) -> tuple[Failure, str | None]:
    """What went wrong with one botocore attempt, and the server's Retry-After if it sent one."""
    if caught_exception is not None:
        if isinstance(caught_exception, BotoConnectionError):  # refused, connect timeout, proxy, TLS
            return Failure.NOT_SENT, None
        return (Failure.AMBIGUOUS if isinstance(caught_exception, HTTPClientError) else Failure.FINAL), None
    if response is None:
        return Failure.FINAL, None
    http, parsed = response
    retry_after = http.headers.get("Retry-After")
    if http.status_code == 429 or parsed.get("Error", {}).get("Code", "") in MTURK_THROTTLING:
        return Failure.THROTTLED, retry_after
    return (Failure.AMBIGUOUS if http.status_code >= 500 else Failure.FINAL), retry_after


def mturk_repeatable(operation: str, request_dict: dict[str, Any] | None) -> bool:
    if operation.startswith(("Get", "List")) or operation in MTURK_REPEATABLE_WRITES:
        return True
    if operation in MTURK_KEYED:
        try:
            return bool(json.loads((request_dict or {}).get("body") or b"{}").get("UniqueRequestToken"))
        except (ValueError, AttributeError):
            return False
    return False


def botocore_hook(policy: RetryPolicy) -> Callable[..., float | None]:
    """A ``needs-retry`` handler for an MTurk client: seconds to wait before repeating, or None."""
    def needs_retry(attempts: int, response: Any = None, caught_exception: BaseException | None = None,
                    operation: Any = None, request_dict: dict[str, Any] | None = None, **_: Any) -> float | None:
        if response is not None and response[0].status_code < 400:
            return None  # a success
        failure, retry_after = mturk_failure(response, caught_exception)
        if attempts >= policy.attempts_for(failure):
            return None  # out of attempts
        name = getattr(operation, "name", "")
        if not policy.retries(failure, mturk_repeatable(name, request_dict)):
            return None
        return policy.wait_s(attempts, retry_after)
    return needs_retry


# Prolific (httpx) --------------------------------------------------------------------------------
class RetryableStatus(Exception):
    """A reply worth another attempt (429 or 5xx); carries the response for the final message."""

    def __init__(self, response: httpx.Response):
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


def prolific_failure(exc: BaseException) -> tuple[Failure, str | None]:
    if isinstance(exc, RetryableStatus):
        status = exc.response.status_code
        return (Failure.THROTTLED if status == 429 else Failure.AMBIGUOUS), exc.response.headers.get("Retry-After")
    import httpx

    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout | httpx.UnsupportedProtocol):
        return Failure.NOT_SENT, None
    if isinstance(exc, httpx.TransportError):  # read/write timeouts, a dropped connection
        return Failure.AMBIGUOUS, None
    return Failure.FINAL, None


def prolific_repeatable(method: str, path: str) -> bool:
    if method.upper() in ("GET", "HEAD", "OPTIONS"):
        return True
    import httpx

    route = httpx.URL(path).path.removeprefix("/").removeprefix("api/v1/")
    return any(p.fullmatch(route) for p in PROLIFIC_REPEATABLE_POSTS)
