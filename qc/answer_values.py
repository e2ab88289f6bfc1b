"""How a submitted answer's raw text reads as ticks or as a number, one definition for the server
and the pages (``hit_templates/judgement.js`` spells the same two rules; a custom page leaves them to
the browser, whose number and range inputs submit only what :data:`NUMBER` matches).

Why written out: Python's ``float`` reads ``1_8`` as 18, ``١٢`` (Arabic-Indic digits) as 12 and
``" 5 "`` as 5, JavaScript's ``Number`` reads ``0x12`` as 18 and ``""`` as 0, and neither is what a
browser's ``<input type=number>`` submits. And a ``|``-joined tick list ``a||b`` holds an empty tick,
which is an option only if the page has an option whose value is empty.
"""

from __future__ import annotations

import re

# HTML's "valid floating-point number": what a number or range input submits (or nothing).
NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def ticks(value: str) -> list[str]:
    """The ticked options of a checkbox group, ``|``-joined; an empty tick counts as one."""
    return value.split("|") if value != "" else []


def number(value: str) -> float | None:
    """The number the text is, when it is one as a browser writes it; None when not (an overflow
    to infinity included)."""
    if NUMBER.fullmatch(value) is None:
        return None
    n = float(value)
    return n if abs(n) != float("inf") else None
