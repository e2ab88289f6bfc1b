"""An imported page's item block made safe to repeat on one page."""

from __future__ import annotations

import functools
import re

ID_ATTR = re.compile(r"""(\sid\s*=\s*)(["'])([^"'{}<>]+)\2""", re.I)
FOR_ATTR = re.compile(r"""(\sfor\s*=\s*)(["'])([^"'{}<>]+)\2""", re.I)
SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b[^>]*>(.*?)</\1\s*>", re.S | re.I)
STYLE = re.compile(r"<style\b[^>]*>.*?</style\s*>\s*", re.S | re.I)
SCRIPT = re.compile(r"<script\b[^>]*>.*?</script\s*>\s*", re.S | re.I)
OPENING = re.compile(r"(?:\s*(?:<(script|style)\b[^>]*>.*?</\1\s*>|<link\b[^>]*>))+\s*", re.S | re.I)
ASSET = re.compile(r"<script\b[^>]*>.*?</script\s*>\s*|<link\b[^>]*>\s*", re.S | re.I)
ITEM_PART = re.compile(r"\{\{|\{%|<(?:input|select|textarea|button|crowd-[\w-]+)\b", re.I)  # the item's values, fields
TITLE = re.compile(r"<(h1|header)\b[^>]*>.*?</\1\s*>\s*", re.S | re.I)
FIELD_TAG = re.compile(r"<(?:input|select|textarea|crowd-[\w-]+)\b[^>]*>", re.I)
NAME_ATTR = re.compile(r"""\sname\s*=\s*(["'])([^"'<>]+)\1""", re.I)
INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc\s*=)[^>]*>(.*?)</script\s*>", re.S | re.I)
# a quoted id or name, a selector's #id or [name=...]; not [name^=...], which finds every item's by its start
FOUND_BY = r"""(?:(?<![\^*$|~]=)["'#]|\bname\s*=\s*|\.elements\.)"""
FOUND_END = r"""(?=["'\]:.,)])"""  # ... ending there, not a word of a sentence in a string


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


MOVED = re.compile(r"<(?:script|link)\b", re.I)  # what runs once a page now: the note says so (a heading only shows)
PAGE_LEVEL_NOTE = ("the page's scripts that run before its content or after its fields, and its title heading, now "
                   "run or show once a page (above the items, or below them for closing scripts), not once an item; "
                   "check that the page still works with several items on it")


def page_level(body: str) -> tuple[str, str, str]:
    """(``body`` without its page-level parts, those to run or show once above the items, those to run once below).
    Parts that read the item (``{{``), or a script that finds its place through ``currentScript``, stay with it."""
    markup = SCRIPT.sub(lambda m: " " * len(m.group(0)), body)  # offsets kept, code left out
    marks = [m.span() for m in ITEM_PART.finditer(markup)]
    opening = OPENING.match(body) if marks else None  # a page whose script writes its fields: its scripts stay
    lead = [m.span() for m in ASSET.finditer(body, 0, opening.end() if opening else 0)]
    lead += [m.span() for m in STYLE.finditer(markup)]
    lead += [m.span() for m in TITLE.finditer(markup, 0, marks[0][0])] if marks else []
    trail = [m.span() for m in SCRIPT.finditer(body, marks[-1][1])] if marks else []
    kept: list[str] = []
    above: list[str] = []
    below: list[str] = []
    pos = 0
    for span in sorted({*lead, *trail}):
        text = body[span[0]:span[1]]
        if span[0] < pos or "{{" in text or "{%" in text or "currentScript" in text:
            continue
        kept.append(body[pos:span[0]])
        (above if span in lead else below).append(text)
        pos = span[1]
    return "".join(kept) + body[pos:], "".join(above), "".join(below)


@functools.lru_cache(maxsize=16)  # read on every plan of the page: once for each size a whole-minute route tries
def fields_scripts_find(source: str, fields: frozenset[str]) -> tuple[str, ...]:
    """The answer ``fields`` (names without the item index) a page's own scripts find by an id or name that is
    the same on every item: with several items on a page, each item's copy would find the first item's field."""
    code = " ".join(m.group(1) for m in INLINE_SCRIPT.finditer(source))
    found = set()
    for tag in FIELD_TAG.finditer(INLINE_SCRIPT.sub(" ", source)):
        name = NAME_ATTR.search(tag.group(0))
        base = re.sub(r"_\{\{-?\s*i\s*-?\}\}$", "", name.group(2)) if name else ""
        if base not in fields:
            continue
        keys = {base, name.group(2) if name else "", *(m.group(3) for m in ID_ATTR.finditer(tag.group(0)))}
        if any(re.search(FOUND_BY + re.escape(k) + FOUND_END, code) for k in keys if k and "{" not in k):
            found.add(base)
    return tuple(sorted(found))
