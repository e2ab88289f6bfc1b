"""An imported page's item block made safe to repeat: ids get the item's index; ``<style>`` shown once above."""

from __future__ import annotations

import re

ID_ATTR = re.compile(r"""(\sid\s*=\s*)(["'])([^"'{}<>]+)\2""", re.I)
FOR_ATTR = re.compile(r"""(\sfor\s*=\s*)(["'])([^"'{}<>]+)\2""", re.I)
SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b[^>]*>(.*?)</\1\s*>", re.S | re.I)
STYLE = re.compile(r"<style\b[^>]*>.*?</style\s*>\s*", re.S | re.I)


def per_item_ids(body: str) -> str:
    """``body`` with each id that only labels and markup use given the item's index (see the module)."""
    code = " ".join(m.group(2) for m in SCRIPT_OR_STYLE.finditer(body))
    markup = SCRIPT_OR_STYLE.sub(" ", body)
    labelled = {m.group(3) for m in ID_ATTR.finditer(markup)} & {m.group(3) for m in FOR_ATTR.finditer(markup)}
    free = {i for i in labelled if not re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", code)}
    if not free:
        return body

    def indexed(m: re.Match[str]) -> str:
        return f"{m.group(1)}{m.group(2)}{m.group(3)}_{{{{ i }}}}{m.group(2)}" if m.group(3) in free else m.group(0)

    parts = re.split(r"(<(?:script|style)\b.*?</(?:script|style)\s*>)", body, flags=re.S | re.I)
    return "".join(p if i % 2 else FOR_ATTR.sub(indexed, ID_ATTR.sub(indexed, p)) for i, p in enumerate(parts))


def shared_styles(body: str) -> tuple[str, str]:
    """(``body`` without its item-independent ``<style>`` blocks, those blocks to show once above the items)."""
    moved = [m.group(0) for m in STYLE.finditer(body) if "{{" not in m.group(0) and "{%" not in m.group(0)]
    if not moved:
        return body, ""
    return STYLE.sub(lambda m: "" if m.group(0) in moved else m.group(0), body), "".join(moved)
