"""Controls outside a ``<crowd-form>`` (MTurk never posts them): kept, ``name`` moved to ``data-unposted``, noted."""

from __future__ import annotations

import re

FORM = re.compile(r"<crowd-form\b.*?</crowd-form\s*>", re.I | re.S)
NAMED_CONTROL = re.compile(r"<(input|select|textarea|crowd-[a-z-]+)\b([^>]*?)\bname(\s*=\s*)([\"']?)([^\"'\s>]+)\4",
                           re.I)
NOT_ANSWERS = re.compile(r"""\btype\s*=\s*["']?(submit|button|reset|image)\b""", re.I)


def _unnamed(part: str, notes: list[str]) -> str:
    def rename(m: re.Match[str]) -> str:
        if NOT_ANSWERS.search(m.group(2)):
            return m.group(0)
        notes.append(f"<{m.group(1).lower()} name=\"{m.group(5)}\"> is outside the page's <crowd-form>: MTurk does "
                     "not submit it, so it is not a field here either (its name became data-unposted); move it inside "
                     "<crowd-form> to collect it")
        return f"<{m.group(1)}{m.group(2)}data-unposted{m.group(3)}{m.group(4)}{m.group(5)}{m.group(4)}"
    return NAMED_CONTROL.sub(rename, part)


def outside_crowd_form(page: str) -> tuple[str, list[str]]:
    """(the page with every control outside its crowd-form(s) unnamed, one note per control)."""
    notes: list[str] = []
    kept, pos = [], 0
    for m in FORM.finditer(page):
        kept += [_unnamed(page[pos:m.start()], notes), m.group(0)]
        pos = m.end()
    if pos == 0:
        return page, []  # no closed crowd-form: nothing is known to be outside it
    kept.append(_unnamed(page[pos:], notes))
    return "".join(kept), notes
