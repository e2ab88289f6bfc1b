"""Attention checks (``[attention]``) rendered into every page just before the form's Submit."""

from __future__ import annotations

import re
from collections.abc import Sequence

from flows.core.pages.templates import render
from qc.attention_checks import AttentionCheck, field_name

# text that is no markup: an unclosed one runs to the end of the page, read once
_NOT_MARKUP = re.compile(r"<(script|style|textarea|title)\b.*?(?:</\1\s*>|\Z)|<!--.*?(?:-->|\Z)", re.S | re.I)
_FORM_END = re.compile(r"</(?:crowd-)?form\s*>", re.I)
_FORM_START = re.compile(r"<(?:crowd-)?form\b", re.I)
# the form's Submit: a submit input or button, hitflow's submit-btn, or the crowd-form's
_SUBMIT = re.compile(r"""<input\b[^>]*\btype\s*=\s*["']?(?:submit|image)\b[^>]*>|"""
                     r"""<button\b(?![^>]*\btype\s*=\s*["']?(?:button|reset)\b)[^>]*>|"""
                     r"""<button\b[^>]*\bid\s*=\s*["']?submit-btn\b[^>]*>|"""
                     r"""<crowd-button\b[^>]*\bform-action\s*=\s*["']?submit\b[^>]*>""", re.I)


def attention_block(checks: Sequence[AttentionCheck]) -> str:
    return render("_attention.html.j2", {"checks": [
        {"name": field_name(i), "instruction": c.instruction, "options": list(c.options)}
        for i, c in enumerate(checks)]})


def check_place(page: str) -> int | None:
    """Where the checks go: before the last form's last Submit, else its end; None without a form."""
    markup = _NOT_MARKUP.sub(lambda m: " " * len(m.group(0)), page)  # what is no markup blanked, offsets kept
    ends = list(_FORM_END.finditer(markup))
    if not ends:
        return None
    end = ends[-1].start()
    starts = [m.end() for m in _FORM_START.finditer(markup, 0, end)]
    submits = list(_SUBMIT.finditer(markup, starts[-1] if starts else 0, end))
    return submits[-1].start() if submits else end


def with_attention(page: str, checks: Sequence[AttentionCheck]) -> str:
    """``page`` with the checks before its Submit button; unchanged without checks or a form."""
    checks = [c for c in checks if not c.field]
    at = check_place(page) if checks else None
    return page if at is None else page[:at] + attention_block(checks) + page[at:]
