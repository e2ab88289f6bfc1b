"""What the answers make of each field of a page of one's own: a choice, a checkbox group's options or a number."""

from __future__ import annotations

from typing import Any

import numpy as np

from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields
from flows.custom.custom_task import field_base, field_kind
from qc.answer_values import number

# a date or time a picker gives: a choice among the values given (the exact value most agree on)
PLAIN_KINDS = {"one": "choice", "many": "options", "number": "number", "date": "choice"}


def answer_kinds(spec: dict[str, Any]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Each field's kind (choice, options, number incl. :func:`rating_scale`, else its QC kind) and groups' options."""
    kinds: dict[str, str] = {}
    options: dict[str, list[str]] = {}
    for f in spec["fields"]:
        base = field_base(f["name"])
        kind = PLAIN_KINDS.get(f["type"]) or field_kind(f)
        # a scale as QC reads one (its buttons show their numbers: form_spec.numbered); numbers behind words are codes
        kind = "number" if kind == "choice" and f.get("ordered") and rating_scale(f.get("options") or []) else kind
        kinds.setdefault(base, kind)
        if kind == "options":
            options.setdefault(base, list(f.get("options", [])))
    return kinds, options


def rating_scale(options: list[Any]) -> bool:
    """A single choice is a rating scale: three or more evenly spaced numbers (so medians and biases mean something)."""
    values = [number(str(o).strip()) for o in options]
    if len(values) < 3 or any(v is None for v in values):
        return False
    steps = np.diff(np.asarray(values, dtype=float))
    return bool(np.all(steps == steps[0]) and steps[0] != 0)


def picker_notes(body: str, page: str) -> list[str]:
    """At import: the page's date and time pickers named as what the campaign reads them as."""
    rules = form_spec(form_fields(body.replace("{{ i }}", "0")))["fields"]
    dated = list(dict.fromkeys(f"{field_base(f['name'])} ({f['input']})" for f in rules if f["type"] == "date"))
    return [f"{page}: note: {', '.join(dated)}: read as a date, not free text: checked against its own min, max "
            "and step, judged by no text rule, aggregated as the value most workers give"] if dated else []
