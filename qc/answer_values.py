"""How a submitted answer's raw text reads as ticks or a number: one definition for the server and the pages
(``hit_templates/judgement.js`` spells the same rules), written out because Python's ``float`` and
JavaScript's ``Number`` each accept text (``1_8``, ``0x12``, Arabic-Indic digits, ``""``) no browser's number
input submits."""

from __future__ import annotations

import re

# HTML's "valid floating-point number": what a number or range input submits (or nothing).
NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def ticks(value: str) -> list[str]:
    """The ticked options of a checkbox group, ``|``-joined; an empty tick counts as one."""
    return value.split("|") if value != "" else []


def number(value: str) -> float | None:
    """The number the text is as a browser writes it; None when not (overflow to infinity too)."""
    if NUMBER.fullmatch(value) is None:
        return None
    n = float(value)
    return n if abs(n) != float("inf") else None
