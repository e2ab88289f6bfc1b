"""Attention checks on a rendered task page (``[attention]``, qc/attention_checks.py): the checks, rendered
from ``hit_templates/_attention.html.j2`` by the one Jinja environment, go among the questions of the page's
form, just before its Submit button, so a worker meets them before submitting and they post with every answer.

Added to the rendered page rather than written into each template (as the text telemetry is,
page_telemetry.py), so every page gets them the same way: the built-in pages, evaluation studies, pages of
one's own, imported and crowd-element pages, on every route. The form and its Submit button are found in the
page's markup only: a ``</form>`` or a ``<button>`` inside a script, a style, a comment or a textarea is text,
never where the checks go. A page without a form is left as it was (the dry run says so). A check's field is
``hitflow_attention_<letter>``: not an item's field, not an answer of the task (kept out of QC's field frames
and of the datasets). The right answer is never in the page: QC scores each check against the campaign's
config, on the server.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from flows.core.pages.templates import render
from qc.attention_checks import AttentionCheck, field_name

# text that is no markup: an unclosed one runs to the end of the page, read once
_NOT_MARKUP = re.compile(r"<(script|style|textarea|title)\b.*?(?:</\1\s*>|\Z)|<!--.*?(?:-->|\Z)", re.S | re.I)
_FORM_END = re.compile(r"</(?:crowd-)?form\s*>", re.I)
_FORM_START = re.compile(r"<(?:crowd-)?form\b", re.I)
# the form's Submit: a submit input or button (a button without a type submits), hitflow's own submit-btn, or
# the crowd-form's submit button
_SUBMIT = re.compile(r"""<input\b[^>]*\btype\s*=\s*["']?(?:submit|image)\b[^>]*>|"""
                     r"""<button\b(?![^>]*\btype\s*=\s*["']?(?:button|reset)\b)[^>]*>|"""
                     r"""<button\b[^>]*\bid\s*=\s*["']?submit-btn\b[^>]*>|"""
                     r"""<crowd-button\b[^>]*\bform-action\s*=\s*["']?submit\b[^>]*>""", re.I)


def attention_block(checks: Sequence[AttentionCheck]) -> str:
    return render("_attention.html.j2", {"checks": [
        {"name": field_name(i), "instruction": c.instruction, "options": list(c.options)}
        for i, c in enumerate(checks)]})


def _markup(page: str) -> str:
    """``page`` with what is no markup blanked, every offset kept."""
    return _NOT_MARKUP.sub(lambda m: " " * len(m.group(0)), page)


def check_place(page: str) -> int | None:
    """Where the checks go: before the last form's last Submit button, else before the form's end; None
    without a form."""
    markup = _markup(page)
    ends = list(_FORM_END.finditer(markup))
    if not ends:
        return None
    end = ends[-1].start()
    starts = [m.end() for m in _FORM_START.finditer(markup, 0, end)]
    submits = list(_SUBMIT.finditer(markup, starts[-1] if starts else 0, end))
    return submits[-1].start() if submits else end


def with_attention(page: str, checks: Sequence[AttentionCheck]) -> str:
    """``page`` with the checks before its Submit button; unchanged without checks or without a form."""
    at = check_place(page) if checks else None
    return page if at is None else page[:at] + attention_block(checks) + page[at:]
