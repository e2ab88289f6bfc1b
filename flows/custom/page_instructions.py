"""An imported page's instructions moved out of the per-item block, and controls outside its ``<crowd-form>``."""

from __future__ import annotations

import re

OPEN_TAG = re.compile(r"<(crowd-instructions|div|section|details|aside|p)\b([^>]*)>", re.I)
LABELLED = re.compile(r"\s*(?:<(?:strong|b|em|u|span)\b[^>]*>\s*)*instructions?\s*:", re.I)
NAMED_INSTRUCTIONS = re.compile(r"""\b(?:id|class)\s*=\s*["']?[^"'>]*instruction""", re.I)
FORM = re.compile(r"<crowd-form\b.*?</crowd-form\s*>", re.I | re.S)
NAMED_CONTROL = re.compile(r"<(input|select|textarea|crowd-[a-z-]+)\b([^>]*?)\bname(\s*=\s*)([\"']?)([^\"'\s>]+)\4",
                           re.I)
NOT_ANSWERS = re.compile(r"""\btype\s*=\s*["']?(submit|button|reset|image)\b""", re.I)


def _end_of(body: str, tag: str, start: int) -> int:
    """The end of the element opened at ``start`` (its matching close tag), or -1."""
    depth = 0
    for m in re.finditer(rf"<(/?){tag}\b[^>]*>", body[start:], re.I):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return start + m.end()
    return -1


def split_instructions(body: str) -> tuple[str, str, list[str]]:
    """(the item block without its instructions, the instructions, notes)."""
    moved, notes, kept, pos = [], [], [], 0
    for m in OPEN_TAG.finditer(body):
        if m.start() < pos:
            continue  # inside an element already taken
        tag = m.group(1).lower()
        if tag == "p" and not LABELLED.match(body, m.end()):
            continue
        if tag not in ("crowd-instructions", "p") and not NAMED_INSTRUCTIONS.search(m.group(2)):
            continue
        end = _end_of(body, tag, m.start())
        if end < 0:
            continue
        block = body[m.start():end]
        if "{{" in block or "{%" in block:
            notes.append(f"the page's <{tag}> instructions read the item's columns, so they stay with each item; "
                         "check that the page reads well with them repeated")
            pos = end
            continue
        kept.append(body[pos:m.start()])
        moved.append(block)
        pos = end
    if not moved:
        return body, "", notes
    kept.append(body[pos:])
    notes.append(f"the page's instructions ({len(moved)} block{'s' if len(moved) > 1 else ''}) were moved out of "
                 "the per-item block into {% block instructions %}: shown once, above the items; check that "
                 "nothing item-specific went with them")
    return "".join(kept), "\n".join(moved) + "\n", notes



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
