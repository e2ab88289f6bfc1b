"""How a submitted answer's raw text reads as ticks or a number: one definition for the server and the pages
(``hit_templates/judgement.js`` spells the same rules), written out because Python's ``float`` and JavaScript's
``Number`` each accept text (``1_8``, ``0x12``, Arabic-Indic digits, ``""``) no browser's number input submits."""

from __future__ import annotations

import re
from datetime import date, timedelta

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


# What a browser's date and time pickers submit (HTML's "valid ... string"), each read as a count of its step's
# unit (days, months, weeks, seconds) from the unit holding 1970-01-01, HTML's default step base for each.
WHEN_INPUTS = ("date", "time", "datetime-local", "month", "week")
WHEN_STEPS = {"date": 1, "month": 1, "week": 1, "time": 60, "datetime-local": 60}  # HTML's default step
_TIME = r"([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d(?:\.\d{1,3})?))?"
_WHEN = {"date": re.compile(r"(\d{4})-(\d\d)-(\d\d)"), "month": re.compile(r"(\d{4})-(0[1-9]|1[0-2])"),
         "week": re.compile(r"(\d{4})-W(\d\d)"), "time": re.compile(_TIME),
         "datetime-local": re.compile(rf"(\d{{4}})-(\d\d)-(\d\d)T{_TIME}")}
EPOCH, EPOCH_MONDAY = date(1970, 1, 1), date(1969, 12, 29)


def moment(value: str, kind: str) -> float | None:
    """A ``date``/``time``/``datetime-local``/``month``/``week`` input's value as a count of its unit (see
    WHEN_STEPS); None when it is no value that picker submits (2025-02-30, 24:00, 2025-W54)."""
    m = _WHEN[kind].fullmatch(value) if kind in _WHEN else None
    if m is None:
        return None
    g = m.groups()
    try:
        if kind == "month":
            return (int(g[0]) - 1970) * 12 + int(g[1]) - 1
        if kind == "week":
            return (date.fromisocalendar(int(g[0]), int(g[1]), 1) - EPOCH_MONDAY).days // 7
        seconds = int(g[-3]) * 3600 + int(g[-2]) * 60 + float(g[-1] or 0) if kind != "date" else 0.0
        days = (date(int(g[0]), int(g[1]), int(g[2])) - EPOCH).days if kind != "time" else 0
    except ValueError:  # no such day or week
        return None
    return days if kind == "date" else days * 86400 + seconds


def moment_text(count: float, kind: str) -> str:
    """The value a picker submits for a count of its unit (:func:`moment`'s inverse, whole seconds)."""
    if kind == "month":
        return f"{1970 + int(count) // 12:04d}-{int(count) % 12 + 1:02d}"
    if kind == "week":
        year, week, _ = (EPOCH_MONDAY + timedelta(weeks=int(count))).isocalendar()
        return f"{year:04d}-W{week:02d}"
    day = EPOCH + timedelta(days=int(count // (86400 if kind != "date" else 1)))
    seconds = int(count % 86400)
    clock = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}" + (f":{seconds % 60:02d}" if seconds % 60 else "")
    return {"date": day.isoformat(), "time": clock}.get(kind, f"{day.isoformat()}T{clock}")
