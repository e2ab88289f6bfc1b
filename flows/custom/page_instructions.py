"""An imported page's instructions moved out of the per-item block, where they would repeat and read as the item's."""

from __future__ import annotations

import re

OPEN_TAG = re.compile(r"<(crowd-instructions|div|section|details|aside|p)\b([^>]*)>", re.I)
LABELLED = re.compile(r"\s*(?:<(?:strong|b|em|u|span)\b[^>]*>\s*)*instructions?\s*:", re.I)
NAMED_INSTRUCTIONS = re.compile(r"""\b(?:id|class)\s*=\s*["']?[^"'>]*instruction""", re.I)


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
