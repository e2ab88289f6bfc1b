"""What MTurk enforces server-side and botocore does not: patterns, ranges, enums, paging."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from flows.sim.mturk.market import MTurkError

ID_PATTERN = re.compile(r"[A-Z0-9]+")  # used with fullmatch: "$" would let a final "\n" through
CURRENCY = re.compile(r"^[0-9]+(\.[0-9]{1,2})?$")
COMPARATORS = {"LessThan", "LessThanOrEqualTo", "GreaterThan", "GreaterThanOrEqualTo", "EqualTo",
               "NotEqualTo", "Exists", "DoesNotExist", "In", "NotIn"}
ACTIONS_GUARDED = {"Accept", "PreviewAndAccept", "DiscoverPreviewAndAccept"}
ASSIGNMENT_STATUSES = {"Submitted", "Approved", "Rejected"}
QUAL_STATUSES = {"Active", "Inactive"}


def bad(message: str, code: str = "AWS.MechanicalTurk.ParameterValidationError") -> MTurkError:
    return MTurkError(code, message)


def need(params: dict[str, Any], *names: str) -> None:
    for name in names:
        if params.get(name) in (None, ""):
            raise bad(f"Value null at '{name}' failed to satisfy constraint: Member must not be null")


def check_id(value: Any, what: str, code: str) -> str:
    if not isinstance(value, str) or not (1 <= len(value) <= 64) or not ID_PATTERN.fullmatch(value):
        raise MTurkError(code, f"{what} {value!r} does not match the ID pattern [A-Z0-9]+ (1-64 chars).")
    return value


def check_money(value: Any, what: str) -> str:
    if not isinstance(value, str) or not CURRENCY.match(value):
        raise bad(f"{what} {value!r} is not a CurrencyAmount such as 0.55 (USD, at most two decimals).")
    return value


def check_enum(value: Any, allowed: set[str], what: str) -> None:
    if value not in allowed:
        raise bad(f"{what} {value!r} is not one of {', '.join(sorted(allowed))}.")


def check_requirements(reqs: list[dict[str, Any]]) -> None:
    for req in reqs:
        need(req, "QualificationTypeId", "Comparator")
        check_enum(req["Comparator"], COMPARATORS, "Comparator")
        if "ActionsGuarded" in req:
            check_enum(req["ActionsGuarded"], ACTIONS_GUARDED, "ActionsGuarded")
        valueless = req["Comparator"] in ("Exists", "DoesNotExist")
        has_value = bool(req.get("IntegerValues") or req.get("LocaleValues"))
        if valueless == has_value:
            raise bad(f"Comparator {req['Comparator']} on {req['QualificationTypeId']} "
                      f"{'takes no' if valueless else 'needs'} IntegerValues or LocaleValues.")


def page(items: list[Any], params: dict[str, Any]) -> tuple[list[Any], str | None]:
    """MaxResults 1-100 (default 10) with an opaque NextToken, as MTurk pages."""
    size = params.get("MaxResults", 10)
    if not isinstance(size, int) or not 1 <= size <= 100:
        raise bad(f"MaxResults {size!r} is out of range; it must be between 1 and 100.")
    start = 0
    token = params.get("NextToken")
    if token is not None and not isinstance(token, str):  # a JSON object or list: MTurk's refusal, not a dropped call
        raise bad(f"NextToken {token!r} is not valid for this request.")
    if token:
        try:
            decoded = base64.urlsafe_b64decode(token.encode()).decode()
            if not decoded.startswith("p:"):
                raise ValueError(decoded)
            start = int(decoded[2:])
        except (ValueError, UnicodeDecodeError) as exc:
            raise bad(f"NextToken {token!r} is not valid for this request.") from exc
    chunk = items[start:start + size]
    nxt = start + size
    return chunk, base64.urlsafe_b64encode(f"p:{nxt}".encode()).decode() if nxt < len(items) else None


def listed(items: list[Any], params: dict[str, Any], key: str, view: Callable[[Any], Any] | None = None
           ) -> dict[str, Any]:
    """A List operation's reply: this page of ``items`` (``view``: each made into what the reply shows)."""
    chunk, nxt = page(items, params)
    rows = [view(x) for x in chunk] if view else chunk
    return {"NumResults": len(rows), key: rows, **({"NextToken": nxt} if nxt else {})}
