"""Attention checks on a rendered task page (``[attention]``, qc/attention_checks.py): the checks, rendered
from ``hit_templates/_attention.html.j2`` by the one Jinja environment, go inside the page's form just before
it closes, so they post with every answer.

Added to the rendered page rather than written into each template (as the text telemetry is,
page_telemetry.py), so every page gets them the same way: the built-in pages, evaluation studies, pages of
one's own, imported and crowd-element pages, on every route. A page without a form is left as it was (the
dry run says so). A check's field is ``hitflow_attention_<letter>``: not an item's field, not an answer
of the task (kept out of QC's field frames and of the datasets).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from flows.core.pages.templates import render
from qc.attention_checks import AttentionCheck, field_name

_FORM_END = re.compile(r"</(?:crowd-)?form\s*>", re.I)


def attention_block(checks: Sequence[AttentionCheck]) -> str:
    return render("_attention.html.j2", {"checks": [
        {"name": field_name(i), "instruction": c.instruction, "options": list(c.options), "answer": c.answer}
        for i, c in enumerate(checks)]})


def with_attention(page: str, checks: Sequence[AttentionCheck]) -> str:
    """``page`` with the checks before its last form's end; unchanged without checks or without a form."""
    if not checks:
        return page
    ends = list(_FORM_END.finditer(page))
    if not ends:
        return page
    at = ends[-1].start()
    return page[:at] + attention_block(checks) + page[at:]
