"""The submit rules a page's own controls declare, as the spec ``qc.form_constraints`` checks."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any, TypeVar

from flows.core.pages.crowd_elements import ANNOTATIONS, ENTITIES
from flows.core.pages.mturk_forms import FormField
from flows.core.pages.radio_buttons import BUTTONS
from qc.answer_values import WHEN_INPUTS, WHEN_STEPS
from qc.form_constraints import Spec
from qc.worker_values import MAX_MARKS

TEXT_INPUTS = ("text", "textarea", "search", "tel", "password", "email", "url", "color")
NUMBER_INPUTS = ("number", "range")
NUMBER = re.compile(r"-?\d+(\.\d+)?")
NOT_ANSWERS = ("hidden",)
STYLE_HIDDEN = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
# hitflow's annotation widget (_crowd_page.html.j2's script): it refuses a mark past the spec's max_marks
N = TypeVar("N", int, float)
WHEN = re.compile(r"^\s*([\w-]+)\s*=(.*)$", re.S)  # data-required-when="<field>=<value>"
CAPPING_WIDGET = re.compile(r"""<script\b[^>]*\sid=["']?hitflow-crowd-elements\b""", re.I)


def _attr(attrs: dict[str, str], key: str, read: Callable[[str], N]) -> N | None:
    """An attribute read as an ``int`` or ``float``, None when absent or malformed (a browser ignores it too)."""
    try:
        return read(attrs[key]) if attrs.get(key, "").strip() else None
    except ValueError:
        return None


def _number_rule(f: FormField) -> dict[str, Any]:
    is_range = f.kind == "range"
    low, high = _attr(f.attrs, "min", float), _attr(f.attrs, "max", float)
    if is_range:  # a slider always has a value and defaults to 0..100
        low, high = (0.0 if low is None else low), (100.0 if high is None else high)
        high = max(low, high)  # HTML: a slider's maximum below its minimum is its minimum
    step_text = f.attrs.get("step", "").strip().lower()
    step: Any = "any" if step_text == "any" else (_attr(f.attrs, "step", float) or 1.0)
    base = low if low is not None else (_attr(f.attrs, "value", float) or 0.0)
    rule = {"type": "number", "input": f.kind, "required": "required" in f.attrs,
            "min": low, "max": high, "step": step, "base": base}
    if is_range and rule["required"] and low is not None and high is not None:
        # a slider always posts a value: left where the page put it, it was not answered
        rule["start"] = slider_start(_attr(f.attrs, "value", float), low, high, step)
    return rule


def numbered(f: FormField) -> bool:
    """Radio buttons read as a scale: three or more, each valued a number its text starts with."""
    return f.kind == "radio" and len(f.options) >= 3 and all(
        NUMBER.fullmatch(o.strip()) and re.match(rf"{re.escape(o.strip())}(?![\d.])", f.labels.get(o, "").strip())
        for o in f.options)


def slider_start(value: float | None, low: float, high: float, step: Any) -> float:
    """Where a browser puts a slider as the page loads (HTML's value sanitization for a range: a tie rounds up)."""
    if high < low:
        return low
    start = (low + (high - low) / 2) if value is None else min(max(value, low), high)
    if step != "any" and float(step) > 0:
        start = min(low + math.floor((start - low) / float(step) + 0.5) * float(step), high)
    return start


# hitflow's own hidden fields: the session, the item, the page's clock (never an answer)
BOOKKEEPING = re.compile(r"^(assignmentId|sig|page_start_ms|page_end_ms|image_id_\d+)$")


def field_rule(f: FormField, hidden_answers: bool = False, marks_cap: int | None = None) -> dict[str, Any] | None:
    """One control's rule, or None for a control nobody answers; ``marks_cap``: the widget's limit."""
    if f.kind in NOT_ANSWERS and hidden_answers and not BOOKKEEPING.match(f.name) and not f.attrs.get("data-sim-fill"):
        return {"name": f.name, "type": "text", "input": "hidden", "required": "required" in f.attrs, "minlength": None,
                "maxlength": None}
    if f.kind in NOT_ANSWERS or ("readonly" in f.attrs and f.kind in (*TEXT_INPUTS, *WHEN_INPUTS)):
        return None
    required = "required" in f.attrs
    if f.kind in ("radio",) or (f.kind == "select" and "multiple" not in f.attrs):
        one: dict[str, Any] = {"name": f.name, "type": "one", "required": required,
                               "options": list(dict.fromkeys(f.options))}
        if f.attrs.get(BUTTONS):  # a crowd-radio-group of named buttons: MTurk answers per button
            one["buttons"] = json.loads(f.attrs[BUTTONS])
        if numbered(f):
            one["ordered"] = True
        return one
    if f.kind in ("checkbox", "select"):
        low = _attr(f.attrs, "data-min-selections", int) or 0
        return {"name": f.name, "type": "many", "options": list(dict.fromkeys(f.options)), "min": low,
                "max": _attr(f.attrs, "data-max-selections", int),
                "required_options": list(f.required_options) if f.kind == "checkbox" else []}
    if f.kind in NUMBER_INPUTS:
        return {"name": f.name, **_number_rule(f)}
    if f.kind in WHEN_INPUTS:  # a picker's value: checked as a browser checks it (qc/form_constraints.py)
        step = f.attrs.get("step", "").strip().lower()
        return {"name": f.name, "type": "date", "input": f.kind, "required": required,
                "min": f.attrs.get("min", "").strip() or None, "max": f.attrs.get("max", "").strip() or None,
                "step": "any" if step == "any" else (_attr(f.attrs, "step", float) or WHEN_STEPS[f.kind]),
                "base": f.attrs.get("value", "").strip() or None}
    if f.kind in ANNOTATIONS:  # boxes or points on an image, answered as JSON (flows/core/pages/crowd_elements.py)
        marks: dict[str, Any] = {"name": f.name, "type": "annotations", "input": f.kind, "required": required,
                                 "options": list(dict.fromkeys(f.options))}
        if f.kind == ENTITIES:  # spans are offsets into the element's own text
            marks["text"] = f.attrs.get("text", "")
        if marks_cap:  # the widget reads it from the page's copy of this spec (hit_templates/crowd_elements.js)
            marks["max_marks"] = marks_cap
        return marks
    # hidden by attribute or by its own style: the page's script fills it (a key log), nobody types it
    shown = "hidden" not in f.attrs and not STYLE_HIDDEN.search(f.attrs.get("style", ""))
    rule: dict[str, Any] = {"name": f.name, "type": "text",
                            "input": (f.kind if f.kind in TEXT_INPUTS else "text") if shown else "hidden",
                            "required": required, "minlength": _attr(f.attrs, "minlength", int),
                            "maxlength": _attr(f.attrs, "maxlength", int)}
    if f.kind != "textarea" and f.attrs.get("pattern"):
        rule["pattern"] = f.attrs["pattern"]
    return rule


def widget_marks_cap(page: str) -> int | None:
    """``MAX_MARKS`` when the page's annotations use hitflow's widget; None for the requester's own."""
    return MAX_MARKS if CAPPING_WIDGET.search(page) else None


def required_when(f: FormField, names: set[str]) -> tuple[str, str] | None:
    """``data-required-when="match=no"``: (field, value) that makes ``f`` required, on ``f``'s own item."""
    if not (m := WHEN.match(f.attrs.get("data-required-when", ""))):
        return None
    own = m[1] + (i[0] if (i := re.search(r"_\d+$", f.name)) else "")
    return (own if m[1] not in names and own in names else m[1]), m[2].strip()


def form_spec(fields: list[FormField], hidden_answers: bool = False, marks_cap: int | None = None) -> Spec:
    """The page's rules: one entry per answered control, in page order."""
    names = {f.name for f in fields}
    spec: Spec = {"kind": "form", "fields": [{**r, "required_when": list(w)} if (w := required_when(f, names)) else r
                                             for f in fields if (r := field_rule(f, hidden_answers, marks_cap))
                                             is not None]}
    groups: dict[str, list[str]] = {}  # data-one-of="<group>": at least one of these fields answered
    for f in fields:
        if (group := f.attrs.get("data-one-of", "").strip()) and f.name not in groups.get(group, []):
            groups.setdefault(group, []).append(f.name)
    if groups:
        spec["one_of"] = [{"name": g, "fields": members} for g, members in groups.items()]
    return spec
