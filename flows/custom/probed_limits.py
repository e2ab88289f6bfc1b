"""What probing a page's script found beyond blanks, as data-min-selections="1", data-min/max-words or data-one-of
in its block; and a checkbox group's minimum its question states with nothing enforcing it."""

from __future__ import annotations

import re
from itertools import takewhile
from typing import Any

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.mturk_forms import read_page
from flows.custom.script_targets import FIELD_TAG, tag_name

ITEM = "_0"  # the sample item's suffix on every rendered field: x_0 is the template's x_{{ i }}
COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
# "Tick all that apply (at least one box)", "choose one or more": a count of boxes, not of words or minutes
AT_LEAST = re.compile(r"\b(?:at least (one|two|three|four|five|\d{1,2})|(one) or more)\b(?!\s+(?:words?|characters?|"
                      r"letters?|sentences?|times?|minutes?|seconds?|hours?|days?)\b)", re.I)


def stated_minimums(body: str, origin: str) -> tuple[str, list[str]]:
    """Each checkbox group whose question asks for at least N boxes, and that no rule holds to it, given
    data-min-selections="N" (as a script saying it would be read), with a note."""
    page = read_page(body.replace("{{ i }}", "0"))
    asked, notes = question_texts(page), []
    for name, f in page.fields.items():
        held = ("required", "data-min-selections", "data-one-of")
        if f.kind != "checkbox" or len(f.options) < 2 or any(a in f.attrs for a in held) or not name.endswith(ITEM):
            continue
        if not (said := [*AT_LEAST.finditer(asked.get(name, ""))]):
            continue
        least, base = COUNTS.get((n := (said[-1][1] or said[-1][2]).lower()), 0) or int(n), name.removesuffix(ITEM)
        body = _on_field(body, base, lambda tag, least=least: _with(tag, f'data-min-selections="{least}"'))
        notes.append(f"{origin}: note: the page asks for {said[-1][0]!r} box(es) in {base} and nothing on it holds "
                     f'that: it is now the page rule data-min-selections="{least}", which hitflow\'s page, its QC and '
                     "every simulated worker hold; check it means that")
    return body, notes


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
    if found.together:
        body, notes = _together(body, [n.removesuffix(ITEM) for n in found.together], origin, notes)
    return body, notes


def _together(body: str, bases: list[str], origin: str, notes: list[str]) -> tuple[str, list[str]]:
    """Each box of a group the script wants one of marked ``data-one-of``: the group's name, per item."""
    tags = {b: " ".join(m[0] for m in FIELD_TAG.finditer(body) if tag_name(m[0]) == f"{b}_{{{{ i }}}}") for b in bases}
    if not all(tags.values()):
        return body, notes
    group = one_of_name(list(tags.values()), bases, {tag_name(m[0]) for m in FIELD_TAG.finditer(body)})
    for base in bases:
        body = _on_field(body, base, lambda tag: _with(tag, f'data-one-of="{group}_{{{{ i }}}}"'))
    return body, [*notes, f"{origin}: note: run in Chromium at import, the page's script refused a submit with none of "
                  f"{', '.join(bases)} ticked and took one with any one of them: each now has "
                  f'data-one-of="{group}_{{{{ i }}}}", so hitflow\'s QC and every simulated worker want at least one '
                  f"of them ticked, as the script does"]


def one_of_name(tags: list[str], bases: list[str], taken: set[str]) -> str:
    """The group's name: a class its boxes share, else their names' common start, else the first name's (not a
    field's name: ``taken``)."""
    classes = [set(m[1].split()) if (m := re.search(r"""\sclass\s*=\s*["']([^"']*)""", t, re.I)) else set()
               for t in tags]
    shared = sorted(set.intersection(*classes)) if classes else []
    same = takewhile(lambda c: len(set(c)) == 1, zip(*bases, strict=False))
    start = re.sub(r"[_\W]+$", "", "".join(c[0] for c in same))
    name = re.sub(r"\W+", "_", shared[0]) if shared else start or bases[0]
    return name if len(name) > 2 and f"{name}_{{{{ i }}}}" not in taken else f"{name}_group"


def _on_field(body: str, base: str, change: Any) -> str:
    """``body`` with ``change`` applied to each tag of the field ``base`` (named ``base_{{ i }}``)."""
    def one(m: re.Match[str]) -> str:
        return change(m[0]) if tag_name(m[0]) == f"{base}_{{{{ i }}}}" else m[0]
    return FIELD_TAG.sub(one, body)


def _without(tag: str, attr: str) -> str:
    return re.sub(rf"\s{attr}(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>\"']+))?(?=[\s/>])", "", tag, flags=re.I)


def _with(tag: str, attrs: str) -> str:
    present = re.search(r'^([\w-]+)=', attrs)
    if present and re.search(rf"\s{present[1]}\b", tag, re.I):
        return tag
    return re.sub(r"^<([\w-]+)", lambda t: f"<{t[1]} {attrs}", tag)
