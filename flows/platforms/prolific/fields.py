"""Reading single fields out of Prolific's replies, a bad one a one-line PlatformError."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flows.core.errors import PlatformError


def text_field(reply: Any, key: str, route: str) -> str:
    """``reply[key]`` as text: a string or a number (ids and statuses), nothing else."""
    value = reply.get(key) if isinstance(reply, dict) else None
    if isinstance(value, bool) or not isinstance(value, str | int | float) or value == "":
        raise PlatformError(f"Prolific's reply to {route} has no {key!r} (got {_shown(value)}); "
                            "check the endpoint URL, or try again later")
    return str(value)


def number_field(reply: Any, key: str, route: str) -> int:
    """``reply[key]`` as a whole number (money in minor units)."""
    value = text_field(reply, key, route)
    try:
        return int(value)
    except ValueError as exc:
        raise PlatformError(f"Prolific's reply to {route} has {key!r} = {_shown(value)}, not a whole number; "
                            "check the endpoint URL") from exc


def record(reply: Any, keys: tuple[str, ...], route: str) -> dict[str, Any]:
    """A reply object that has every one of ``keys`` as text, and times (``*_at``) that parse."""
    for key in keys:
        text_field(reply, key, route)
    for key, value in reply.items():
        if key.endswith("_at") and value is not None and not _is_time(value):
            raise PlatformError(f"Prolific's reply to {route} has {key!r} = {_shown(value)}, not a time; "
                                "check the endpoint URL")
    return dict(reply)


def first(results: list[dict[str, Any]], route: str) -> dict[str, Any]:
    if not results:
        raise PlatformError(f"Prolific's reply to {route} lists nothing; check the account and the endpoint URL")
    return results[0]


def _is_time(value: Any) -> bool:
    try:
        datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        return isinstance(value, str)
    except ValueError:
        return False


def _shown(value: Any) -> str:
    return repr(value)[:30] if value is not None else "nothing"
