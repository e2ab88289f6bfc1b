"""The submit rules of any form, as HTML defines them and a browser checks them; the spec
(``{"kind": "form", "fields": [...]}``) comes from the page's controls (flows/core/pages/form_spec.py).
Field types: ``text`` (``required``, ``minlength``/``maxlength`` in UTF-16 units, ``pattern``: qc/page_patterns.py,
``input`` email/url/color); ``date`` (a date or time picker's ``input``, ``min``/``max`` as it writes them, ``step`` in
its unit from ``min``, else ``base``: qc/answer_values.py moment); ``one`` (a value of ``options``); ``many``
(``|``-joined ticks, ``required_options``, ``min``/``max``); ``number`` (``min``/``max``, ``step`` from ``base``; a
required slider still at its ``start`` is ``not_moved``); ``annotations`` (JSON marks, :data:`ANNOTATION_KEYS`; past
``MAX_MARKS``, ``too_many_marks`` or ``marks_past_cap``: docs/custom_pages.md).
An empty value passes everything but ``required`` (and ``required_when`` ``[field, value]`` while that field has that
value); the spec's ``one_of`` groups (``{"name", "fields"}``) are ``required`` when none of their fields is answered.
:func:`check_form` returns every broken field."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from qc.answer_values import moment
from qc.answer_values import number as read_number
from qc.answer_values import ticks as _ticks
from qc.page_patterns import PagePattern, page_pattern
from qc.worker_values import MAX_MARKS, read_json

Spec = dict[str, Any]
MESSAGES = {
    "required": "Please fill this in.", "too_short": "This answer is too short.",
    "too_long": "This answer is too long.", "pattern": "This answer does not have the requested format.",
    "not_an_option": "This answer is not one of the choices.", "too_few": "Tick more of these.",
    "too_many": "Tick fewer of these.", "not_a_number": "Enter a number.",
    "out_of_range": "This answer is outside the allowed range.", "step": "This answer is not an allowed step.",
    "format": "This is not a valid address.", "not_a_date": "Pick a date or time with the page's picker.",
    "not_moved": "Move the slider to your answer.",
    "malformed": "This annotation could not be read.",
    "unchecked_blank": "Required, but left blank in a hidden field, which no browser checks: a person decides.",
    "too_many_marks": f"This annotation has more than {MAX_MARKS:,} marks, more than can be checked.",
    "marks_past_cap": f"This annotation has more than {MAX_MARKS:,} marks, which its page allowed but QC does not "
                      "compare: a person decides.",
}
# Broken by what a page let through, not by what it refused: no sign of tampering, so held for a person
# (qc/answer_faults.py's malformed_answer) rather than rejected as invalid_answer
HELD_RULES = frozenset({"marks_past_cap", "unchecked_blank"})
ANNOTATION_KEYS = {"crowd-bounding-box": ("boundingBoxes", ("left", "top", "width", "height")),
                   "crowd-keypoint": ("keypoints", ("x", "y")),
                   "crowd-entity-annotation": ("entities", ("startOffset", "endOffset"))}
_EMAIL = re.compile(r"^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
                    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$")
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]+$")
_COLOR = re.compile(r"^#[0-9a-f]{6}$")  # what a colour picker submits: lowercase #rrggbb


def text_length(value: str) -> int:
    """Length as a browser counts it: UTF-16 code units, a CRLF line break once."""
    return len(value.replace("\r\n", "\n").encode("utf-16-le")) // 2


def compiled_pattern(pattern: str) -> PagePattern | None:
    """A ``pattern`` as a linear-time whole-value check (qc/page_patterns.py); None when refused."""
    found = page_pattern(pattern)
    return found if isinstance(found, PagePattern) else None


def _check_text(f: Spec, value: str) -> str:
    if value == "":  # a browser never checks a hidden field's ``required``: the page let the blank through
        return ("unchecked_blank" if f.get("input") == "hidden" else "required") if f.get("required") else ""
    n = text_length(value)
    if f.get("minlength") is not None and n < int(f["minlength"]):
        return "too_short"
    if f.get("maxlength") is not None and n > int(f["maxlength"]):
        return "too_long"
    regex = compiled_pattern(f["pattern"]) if f.get("pattern") else None
    if regex is not None and not regex.matches(value):
        return "pattern"
    checks = {"email": _EMAIL, "url": _URL, "color": _COLOR}
    if f.get("input") in checks and not checks[f["input"]].match(value):
        return "format"
    return ""


def step_ok(number: float, f: Spec) -> bool:
    step = f.get("step", 1)
    if step in ("any", None) or float(step) <= 0:
        return True
    ratio = (number - float(f.get("base", 0) or 0)) / float(step)
    return abs(ratio - round(ratio)) < 1e-7


def _check_number(f: Spec, value: str) -> str:
    if value == "":
        return "required" if f.get("required") else ""
    number = read_number(value)  # qc/answer_values.py: what a browser's number input submits, or None
    if number is None:
        return "not_a_number"
    if f.get("required") and f.get("start") is not None and abs(number - float(f["start"])) < 1e-9:
        return "not_moved"  # a required slider where the page put it: a blank, as the page itself refuses
    return _placed(number, f)


def _placed(number: float, f: Spec) -> str:
    """Whether a number (or a picked date as one) is within ``min``/``max`` and on its ``step`` from ``base``."""
    if (f.get("min") is not None and number < float(f["min"])) or \
            (f.get("max") is not None and number > float(f["max"])):
        return "out_of_range"
    return "" if step_ok(number, f) else "step"


def _check_date(f: Spec, value: str) -> str:
    if value == "":
        return "required" if f.get("required") else ""
    at, kind = moment(value, f["input"]), f["input"]
    if at is None:
        return "not_a_date"
    low, high = (moment(f.get(k) or "", kind) for k in ("min", "max"))  # malformed: ignored, as a browser does
    base = low if low is not None else moment(f.get("base") or "", kind)
    if kind == "time" and low is not None and high is not None and high < low:  # HTML: a range over midnight
        return "out_of_range" if high < at < low else ("" if step_ok(at, {**f, "base": low}) else "step")
    return _placed(at, {**f, "min": low, "max": high, "base": base or 0})


def _check_many(f: Spec, value: str) -> str:
    ticks = _ticks(value)
    ticked = set(ticks)  # sets: a worker's ticks are as many as 4 Mi characters hold, each checked once
    if not ticked <= set(f["options"]) or len(ticked) < len(ticks):
        return "not_an_option"
    short = any(r not in ticked for r in f.get("required_options", [])) or len(ticks) < int(f.get("min", 0))
    if short:  # none ticked of a group that asks for some is a question skipped; some, but too few, is not
        return "too_few" if ticks else "required"
    if f.get("max") is not None and len(ticks) > int(f["max"]):
        return "too_many"
    return ""


def _check_annotations(f: Spec, value: str) -> str:
    if value in ("", "{}"):
        return "required" if f.get("required") else ""
    key, numbers = ANNOTATION_KEYS.get(f.get("input", ""), ("boundingBoxes", ("left", "top", "width", "height")))
    try:
        marks = read_json(value).get(key, [])
    except (ValueError, AttributeError):
        return "malformed"
    if not isinstance(marks, list) or not all(isinstance(m, dict) for m in marks):
        return "malformed"
    if not marks:
        return "required" if f.get("required") else ""
    if len(marks) > MAX_MARKS:  # mark_agreement compares marks pairwise: a bound on what one answer costs
        return "too_many_marks" if f.get("max_marks") else "marks_past_cap"
    for m in marks:
        if any(not isinstance(m.get(n), int | float) or isinstance(m.get(n), bool) or m[n] < 0 for n in numbers):
            return "malformed"
        if f.get("options") and m.get("label") not in f["options"]:
            return "not_an_option"
    return _check_spans(marks, f["text"]) if "text" in f else ""


def _check_spans(marks: list[dict[str, Any]], text: str) -> str:
    """Entity spans: whole characters of the element's text, one label per character (its widget
    cannot label part of a labelled span again)."""
    spans = sorted((m["startOffset"], m["endOffset"]) for m in marks)
    if any(not (isinstance(a, int) and isinstance(b, int)) or not a < b <= len(text) for a, b in spans):
        return "malformed"
    return "malformed" if any(b > c for (_, b), (c, _) in pairwise(spans)) else ""


def check_field(f: Spec, value: str) -> str:
    """The rule one field breaks ("" when none)."""
    if f["type"] == "annotations":
        return _check_annotations(f, value)
    if f["type"] == "one":
        if value == "":
            return "required" if f.get("required") else ""
        return "" if value in f["options"] else "not_an_option"
    if f["type"] == "many":
        return _check_many(f, value)
    if f["type"] == "number":
        return _check_number(f, value)
    if f["type"] == "date":
        return _check_date(f, value)
    return _check_text(f, value)


def condition_met(when: Sequence[str], values: dict[str, str]) -> bool:
    """Whether a ``required_when`` (the field, its values joined by "|": ``support=1|2``) holds for ``values``."""
    return values.get(when[0], "") in [v.strip() for v in when[1].split("|")]


def check_form(spec: Spec, values: dict[str, str]) -> list[dict[str, str]]:
    """Every broken field: ``{"rule", "field", "detail"}``; a missing field counts as empty."""
    found = []
    for f in spec.get("fields", []):
        if (when := f.get("required_when")) and condition_met(when, values):
            f = {**f, "required": True}
        rule = check_field(f, values.get(f["name"], ""))
        if rule:
            found.append({"rule": rule, "field": f["name"], "detail": MESSAGES[rule]})
    for g in spec.get("one_of", []):  # a group of separately named fields: a blank when none is answered
        if not any(_ticks(values.get(name, "")) for name in g["fields"]):
            found.append({"rule": "required", "field": g["name"], "detail": MESSAGES["required"]})
    return found


# how a problem reads in a flag's detail and a rejection's reason: a blank names that the field was required
PROBLEM_WORDS = {"required": "required, left blank", "not_moved": "required, left blank (the slider at its start)"}


def problems_text(problems: list[dict[str, str]]) -> str:
    """``field: rule`` for each problem, ``; ``-joined (the ``problems`` column the invalid-answer rule reads)."""
    return "; ".join(f"{p['field']}: {PROBLEM_WORDS.get(p['rule'], p['rule'])}" for p in problems)


def split_held(problems: list[dict[str, str]]) -> tuple[list[dict[str, str]], str]:
    """(problems breaking an enforced rule, the reason to hold for a person: ``field: detail`` of
    :data:`HELD_RULES`; "" when none, or when an enforced rule is broken too)."""
    enforced = [p for p in problems if p["rule"] not in HELD_RULES]
    held = "; ".join(f"{p['field']}: {p['detail']}" for p in problems if p["rule"] in HELD_RULES)
    return enforced, "" if enforced else held


def describe_groups(spec: Spec) -> list[str]:
    """One line per group of separately named fields the page wants one of (for --dry-run)."""
    return [f"{g['name']} (group): required, at least one of {', '.join(g['fields'])}" for g in spec.get("one_of", [])]


def describe_rules(spec: Spec) -> list[str]:
    """One line per field: what the page and the server require of it (for --dry-run)."""
    lines = []
    for f in spec.get("fields", []):
        parts = ["required"] if f.get("required") else []
        parts += [f"required when {w[0]} is " + " or ".join(map(repr, w[1].split("|")))] if (
            w := f.get("required_when")) else []
        if f.get("start") is not None:
            parts.append(f"starts at {f['start']:g}, which is no answer (the worker must move it)")
        for key in ("minlength", "maxlength", "pattern", "min", "max", "step", "required_options"):
            value = f.get(key)
            if value not in (None, "", []):
                parts.append(f"{key}={value:g}" if isinstance(value, float) else f"{key}={value}")
        if f["type"] in ("one", "many"):
            parts.append(f"{'one' if f['type'] == 'one' else 'any'} of {len(f['options'])} options")
        if f["type"] == "annotations":
            parts.append(f"labels from {len(f['options'])}" if f.get("options") else "any label")
            parts += [f"at most {f['max_marks']:,} marks"] if f.get("max_marks") else []
        lines.append(f"{f['name']} ({f.get('input') or f['type']}): {', '.join(parts) or 'optional'}")
    return lines
