"""Names each ``pattern`` a browser ignores or no linear-time engine matches, so an answer can never stall QC."""

from __future__ import annotations

import html
import re
from typing import Any

from flows.custom.foreign_syntax import line_finder
from qc.page_patterns import PatternRefused, page_pattern

# an input's pattern attribute (HTML has none on a textarea): quoted either way, or bare
PATTERN_ATTR = re.compile(r"""<input\b[^>]*?\spattern\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s>"']+))""",
                          re.I)
# a QuestionForm's AnswerFormatRegex, which becomes its input's pattern (flows/custom/question_form_page.py)
REGEX_ATTR = re.compile(r"""<(?:\w+:)?AnswerFormatRegex\b[^>]*?\sregex\s*=\s*"""
                        r"""(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>))""")
PLACEHOLDERS = ("{{", "{%", "${")  # filled per item: judged on the rendered page (the dry run)
FIX = "write it in the syntax a browser reads (JavaScript, the v flag) without back-references or look-arounds, " \
      "or drop it and check the format in the answers"


def refused_pattern_lines(page: str, question_form: bool = False) -> list[tuple[int, str]]:
    """(line, problem) for each ``pattern`` attribute (or ``AnswerFormatRegex``) of ``page`` that QC refuses."""
    line = line_finder(page)
    found = []
    for m in (REGEX_ATTR if question_form else PATTERN_ATTR).finditer(page):
        value = html.unescape(m["dq"] if m["dq"] is not None else m["sq"] if m["sq"] is not None else m["bare"])
        why = page_pattern(value)
        if isinstance(why, PatternRefused) and not any(p in value for p in PLACEHOLDERS):
            found.append((line(m.start()), f"the pattern {value[:80]!r} cannot be checked: {why}; {FIX}"))
    return found


def refused_pattern_problems(spec: dict[str, Any]) -> list[str]:
    """One problem for each field of a page's rules (qc/form_constraints.py) whose pattern QC refuses."""
    return [f"field {f['name']}: the pattern {f['pattern'][:80]!r} cannot be checked: {why}; {FIX}"
            for f in spec.get("fields", []) if f.get("pattern")
            and isinstance(why := page_pattern(str(f["pattern"])), PatternRefused)]
