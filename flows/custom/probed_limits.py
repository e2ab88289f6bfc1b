"""What probing a page's script found beyond blanks, as data-min-selections="1" or data-min/max-words in its block."""

from __future__ import annotations

import re
from typing import Any

from flows.custom.page_tags import FIELD_TAG, NAME_ATTR

ITEM = "_0"  # the sample item's suffix on every rendered field: x_0 is the template's x_{{ i }}


def probed_limits(body: str, found: Any, origin: str) -> tuple[str, list[str]]:
    """The item block with the groups found "at least one" and the word ranges found, and a note on each."""
    notes = []
    for name in (n for n in found.one_of if n.endswith(ITEM)):
        base = name.removesuffix(ITEM)
        body = _on_field(body, base, lambda tag: _with(_without(tag, "required"), 'data-min-selections="1"'))
        notes.append(f"{origin}: note: run in Chromium at import, the page's script took {base} with one box "
                     "ticked, though every box has `required`: its script lifts it once a box is ticked, so the "
                     f"group is \"at least one\" (data-min-selections=\"1\"), not every box")
    for name, (least, most) in found.words.items():
        if not name.endswith(ITEM):
            continue
        base = name.removesuffix(ITEM)
        said = [f'data-min-words="{least}"'] * bool(least) + [f'data-max-words="{most}"'] * bool(most)
        body = _on_field(body, base, lambda tag, said=said: _with(tag, " ".join(said)))
        notes.append(f"{origin}: note: run in Chromium at import, the page's script refused {base} with "
                     + " or ".join([f"fewer than {least} words"] * bool(least)
                                   + [f"more than {most} words"] * bool(most))
                     + f": [qc.fields.{base}] holds it as min/max words, and simulated workers write within it")
    return body, notes


def _on_field(body: str, base: str, change: Any) -> str:
    """``body`` with ``change`` applied to each tag of the field ``base`` (named ``base_{{ i }}``)."""
    def one(m: re.Match[str]) -> str:
        n = NAME_ATTR.search(m[0])
        name = (n["quoted"] if n["quoted"] is not None else n["bare"]) if n else ""
        return change(m[0]) if name == f"{base}_{{{{ i }}}}" else m[0]
    return FIELD_TAG.sub(one, body)


def _without(tag: str, attr: str) -> str:
    return re.sub(rf"\s{attr}(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>\"']+))?(?=[\s/>])", "", tag, flags=re.I)


def _with(tag: str, attrs: str) -> str:
    present = re.search(r'^([\w-]+)=', attrs)
    if present and re.search(rf"\s{present[1]}\b", tag, re.I):
        return tag
    return re.sub(r"^<([\w-]+)", lambda t: f"<{t[1]} {attrs}", tag)
