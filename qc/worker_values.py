"""Every value a worker sends, read within bounds wherever it is read: Python's JSON reader recurses, builds huge
ints, accepts ``NaN`` and any number of keys. Past a bound: :class:`WorkerValueError`, a one-line ``ValueError``
(bounds: docs/security.md)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 32  # arrays and objects inside each other; a crowd-form answer nests 5 deep (its boxes)
MAX_NUMBER_CHARS = 32  # a number's digits, sign and exponent; JSON.stringify writes at most 24
MAX_KEYS = 10_000  # keys in one JSON text (all its objects together), or fields in one answer (flattened)
MAX_NAME_CHARS = 1_000  # one key's or one field name's length
MAX_MARKS = 1_000  # marks in one annotation answer: one every 2 s is over half an hour of a person's work
MAX_TEXT_CHARS = 4 * 1024 * 1024  # one value's length (a field, a whole JSON text); the task server takes 256 KiB
LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # half a character: no UTF-8 text (nor any ledger) holds it


class WorkerValueError(ValueError):
    """A worker's value past a bound, or not the JSON it should be; the message is the reason."""


class ForgedValue(WorkerValueError):
    """A value no ``JSON.stringify`` writes (``NaN``, ``Infinity``, an overlong number): built by hand."""


def nesting_depth(text: str) -> int:
    """How deep ``[``/``{`` nest outside JSON strings, without parsing (a nesting bomb costs nothing)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _integer(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise ForgedValue(f"a number of {len(text)} characters, over the {MAX_NUMBER_CHARS} allowed")
    return int(text)


def _real(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise ForgedValue(f"a number of {len(text)} characters, over the {MAX_NUMBER_CHARS} allowed")
    value = float(text)
    if math.isinf(value):
        raise ForgedValue(f"the number {text[:40]} is too large for a double")
    return value


def _constant(text: str) -> float:
    raise ForgedValue(f"{text} is not a JSON number (no browser writes it)")


class _KeyCount:
    """The object hook of one JSON text, counting keys over all its objects (a bound per object let 300,000 by)."""

    def __init__(self) -> None:
        self.keys = 0

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self.keys += len(pairs)
        if self.keys > MAX_KEYS:
            raise WorkerValueError(f"more than {MAX_KEYS} keys in one JSON text, over the {MAX_KEYS} allowed")
        for key, _ in pairs:
            if len(key) > MAX_NAME_CHARS:
                raise WorkerValueError(f"a key of {len(key)} characters, over the {MAX_NAME_CHARS} allowed")
        return dict(pairs)


def check_text(text: str, what: str = "a value") -> None:
    """WorkerValueError unless ``text``'s length is within :data:`MAX_TEXT_CHARS`."""
    if len(text) > MAX_TEXT_CHARS:
        raise WorkerValueError(f"{what} of {len(text)} characters, over the {MAX_TEXT_CHARS} allowed")


def read_json(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """``text`` as JSON within the bounds, else WorkerValueError with the reason."""
    check_text(text, "a JSON text")
    opened = text.count("[") + text.count("{")  # counted in C: most answers need no scan
    if opened > max_depth and (deepest := nesting_depth(text)) > max_depth:
        raise WorkerValueError(f"JSON nested {deepest} deep, over the {max_depth} allowed")
    try:
        return json.loads(text, parse_int=_integer, parse_float=_real, parse_constant=_constant,
                          object_pairs_hook=_KeyCount())
    except WorkerValueError:
        raise
    except (ValueError, RecursionError) as exc:  # RecursionError: only on a stack already near its limit
        raise WorkerValueError(f"not JSON ({str(exc)[:80]})") from exc


def check_fields(fields: dict[str, str]) -> dict[str, str]:
    """An answer's fields when within the bounds; else WorkerValueError naming the first one past them."""
    if len(fields) > MAX_KEYS:
        raise WorkerValueError(f"an answer of {len(fields)} fields, over the {MAX_KEYS} allowed")
    for name, value in fields.items():
        if len(name) > MAX_NAME_CHARS:
            raise WorkerValueError(f"a field name of {len(name)} characters, over the {MAX_NAME_CHARS} allowed")
        check_text(value, f"field {name[:40]!r}")
    return fields


def whole_characters(text: str) -> str:
    """``text`` with U+FFFD for each lone surrogate (half an emoji cut by maxlength): a ledger cannot store one."""
    return LONE_SURROGATE.sub("\ufffd", text) if LONE_SURROGATE.search(text) else text


def surrogate_references(xml: str) -> str:
    """An XML text a ledger can store: each raw lone surrogate as its character reference (read back as U+FFFD)."""
    return LONE_SURROGATE.sub(lambda m: f"&#x{ord(m[0]):X};", xml) if LONE_SURROGATE.search(xml) else xml
