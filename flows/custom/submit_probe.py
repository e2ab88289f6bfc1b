"""What an imported page's script requires, found by running it in Chromium."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from itertools import takewhile
from typing import Any

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.mturk_forms import form_fields, read_page
from flows.core.pages.radio_buttons import BUTTONS
from flows.custom.script_targets import FIELD_TAG, script_text, tag_name
from flows.custom.submit_checks import Check, script_only_checks, with_rule, word_limit

# a script or on* attribute that may stop a submit: names one, cancels, disables a button, or sets validity/required
GUARD = re.compile(r"submit|preventDefault|return\s+false|\.disabled\s*=|setCustomValidity|\.required\s*=|"
                   r"(?:set|remove)Attribute\(\s*[\"']required", re.I)
STAYS = re.compile(r"submit check `if \((.*?)\)`.* stays in its script only")
ON_ATTR = re.compile(r"""\son[a-z]+\s*=\s*(?:"([^"]{0,5000})"|'([^']{0,5000})')""", re.I)
ITEM = "_0"  # the sample item's suffix on every rendered field: x_0 is the template's x_{{ i }}
COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
# "Tick all that apply (at least one box)", "choose one or more": a count of boxes, not of words or minutes
AT_LEAST = re.compile(r"\b(?:at least (one|two|three|four|five|\d{1,2})|(one) or more)\b(?!\s+(?:words?|characters?|"
                      r"letters?|sentences?|times?|minutes?|seconds?|hours?|days?)\b)", re.I)


def blocks_submit(body: str) -> bool:
    """Whether a script of the page could refuse a submit (cheap: a page without one never starts a browser)."""
    return bool(GUARD.search(script_text(body) + "\n".join(a or b for a, b in ON_ATTR.findall(body))))


def probed_rules(body: str, rendered: str, origin: str, found: Any) -> tuple[str, list[str]]:
    """The item block with the rules the script was found to require (``found``: what asking it found), and notes
    (format, count checks stay its own)."""
    refused = [f"{origin}: note: run in Chromium at import, hitflow's page {found.problem.removeprefix('it ')}: a "
               "check the simulated answer misses (a person's may meet it), or one nobody meets (does the script look "
               "for a field by its old name? each is now <name>_{{ i }}): submit it in `hitflow preview` as a person "
               "would. Its checks were read from its code instead"] if found.refused_honest else []
    if refused and not found.required:
        return body, refused
    if found.problem and not refused:
        return body, [f"{origin}: note: the page's script was not run at import to find the answers it requires: "
                      f"{found.problem}; its checks were read from its code instead (the notes above say which)"]
    rules = [(n, "data-min-selections" if n in found.boxes else "required", "1" if n in found.boxes else "", said)
             for n, said in found.required.items()]
    rules += [(n, "data-required-when", f"{c.removesuffix(ITEM)}={v}", said)
              for n, (c, v, said) in found.required_when.items()]
    added: dict[tuple[str, str], list[str]] = {}  # (rule, what the page said) -> the fields it is now on
    kept, buttons = [], {f.name: next(iter(json.loads(f.attrs[BUTTONS]))) for f in form_fields(rendered)
                         if f.attrs.get(BUTTONS)}
    for name, attr, value, said in rules:
        if not name.endswith(ITEM):
            continue  # a control outside the item's fields (none of the page's answers)
        base, was = name.removesuffix(ITEM), body
        body = _on_group(body, buttons[name], attr, value) if name in buttons else \
            FIELD_TAG.sub(functools.partial(with_rule, rule=(f"{base}_{{{{ i }}}}", attr, value)), body)
        rule = f"{attr}={value!r}" if value else attr
        if body == was:
            kept.append(f"{rule} on {base}")
        else:
            added.setdefault((rule, said[:120]), []).append(base)
    notes = [f"{origin}: note: run in Chromium at import, the page's script refused a submit with {', '.join(names)} "
             f"blank{f' (it said {said!r})' if said else ''}: {'each' if len(names) > 1 else names[0]} now has the "
             f"page rule {rule}, which hitflow's page, its QC and every simulated worker enforce"
             for (rule, said), names in added.items()]
    if kept:
        notes.append(f"{origin}: note: run in Chromium at import, the page's script also requires what its page "
                     f"rules already say ({', '.join(kept)})")
    body, more = probed_limits(body, found, origin)
    notes += more + _caveats(found, origin) + _unasked(found, rendered, origin)
    return body, refused + notes


def left_to_script(checks: list[Check], template: str, rendered: str, found: Any) -> list[Check]:
    """The ``checks`` read from the script's code that asking it in Chromium (``found``) did not find to be page
    rules or word limits. A check on a flag the script sets elsewhere (its condition names no field) is, once the
    script was asked in full, requires nothing ``template``'s rules do not say already, and refused with the check's
    message (a check that says nothing, or where the refusals found kept none, as "at least one box": once it refused
    anything). A word count found as its bound is [qc.fields]' min/max words. Others naming a field: they stay."""
    if found.problem or found.errors or found.cut or found.listed or _unasked(found, rendered, ""):
        return checks  # (a list it asks, as "three, separated by commas", is no page rule: its own still)
    if probed_rules(template, rendered, "", found)[0] != template:
        return checks  # it requires what no page rule says yet
    said = [s for s in [*found.required.values(), *(w[2] for w in found.required_when.values())] if s]
    unsaid = bool(found.words or found.one_of or found.together)  # refusals found without their message
    refused = bool(found.required or found.required_when or unsaid)
    counted = {b for least, most in found.words.values() for b in (("min_words", least), ("max_words", most))}
    fields = {n for f in form_fields(rendered) for n in (f.name, f.name.removesuffix(ITEM))}

    def met(c: Check) -> bool:
        if (words := word_limit(c.resolved or c.condition, {})) and words[1:] in counted:
            return True
        if set(re.findall(r"[\w-]+", c.resolved or c.condition)) & fields:
            return False
        return any(s.startswith(c.message.removesuffix("...")) for s in said) or unsaid if c.message else refused
    return [c for c in checks if not met(c)]


def script_checks_left(template: str, render: Callable[[], str]) -> list[str]:
    """The dry run's notes on the script's checks no page rule says, as asking the page ``render`` gives in Chromium
    finds them (as read from the code where it cannot be asked), the last saying so if it refused an honest answer."""
    stayed = script_only_checks(template)
    rendered = render() if stayed else ""
    found = asked(rendered) if stayed else None
    left = [c.note for c in left_to_script(stayed, template, rendered, found)] if found else []
    if found and found.refused_honest:
        left[-1] += (f"; run in Chromium, hitflow's page {found.problem.removeprefix('it ')}: a check an honest "
                     "simulated worker misses (a person's answer may meet it) or nobody meets; submit it in `hitflow "
                     "preview` as a person would")
    return left


def without_covered(notes: list[str], template: str, rendered: str, found: Any) -> list[str]:
    """``notes`` less those saying a check stays the script's where asking the script found it page rules."""
    stayed = script_only_checks(template)
    covered = {c.condition[:160] for c in stayed} - {c.condition[:160] for c in left_to_script(stayed, template,
                                                                                                rendered, found)}
    return [n for n in notes if not ((m := STAYS.search(n)) and m[1] in covered)]  # none names a field: as written


def asked(rendered: str, browser: Any = None) -> Any:
    """What the page's script requires, asked in Chromium (flows/sim/pages/script_probe.py's Found)."""
    # here, not at the top: `hitflow qc` reads the dry run's module and must not load the ledger's database drivers
    from flows.platforms.targets import sim_script_requires

    return sim_script_requires(rendered, browser)


def _on_group(body: str, button: str, attr: str, value: str) -> str:
    """The rule on the <crowd-radio-group> holding ``button`` (its buttons are named, not the group)."""
    at = body.find(f'name="{button.removesuffix(ITEM)}_{{{{ i }}}}"')
    start = body.rfind("<crowd-radio-group", 0, at) if at >= 0 else -1
    end = start + len("<crowd-radio-group")
    if start < 0 or re.search(rf"\s{attr}\b", body[end:body.find(">", end)]):
        return body
    return body[:end] + f" {attr}" + (f'="{value}"' if value else "") + body[end:]


def _unasked(found: Any, rendered: str, origin: str) -> list[str]:
    """A note naming crowd elements the run could not answer (boxes, points, words): their requirements are unknown."""
    names = [f.name.removesuffix(ITEM) for f in form_fields(rendered) if f.attrs.get("data-crowd")
             and f.name.endswith(ITEM) and f.kind != "hidden" and f.name not in found.asked]
    return [f"{origin}: note: run in Chromium at import, the page's script was not asked about {', '.join(names)}: "
            "the run cannot answer such a crowd element (a drawing: boxes, points, marked words), "
            "so whether the script requires it is not known; if it does, give it the page rule required"] \
        if names else []


def _caveats(found: Any, origin: str) -> list[str]:
    """Notes on what the run could not see: script errors (a library from elsewhere, not loaded offline), tries cut."""
    notes = []
    if found.errors:
        notes.append(f"{origin}: note: offline at import the page's script raised {'; '.join(found.errors)} as it "
                     "loaded: a script it loads from elsewhere (not loaded offline), or an element it looks for that "
                     "is not on hitflow's page yet (its Submit button comes after the item block); a check that "
                     "needed it was not run (in a person's browser neither, in the second case), so its checks read "
                     "from its code stand")
    if found.listed:
        boxes = list(dict.fromkeys(n.removesuffix(ITEM) for n in found.listed))
        notes.append(f"{origin}: note: run in Chromium at import, the page's script took an honest answer only with "
                     f"{', '.join(boxes)} typed as the list it asks ({next(iter(found.listed.values()))[:120]!r}): "
                     "no page rule says such a list, so that check stays the script's (QC does not count the parts)")
    if found.cut:
        notes.append(f"{origin}: note: the page's script was asked {found.tries} times at import and not about every "
                     "answer: check that each answer it requires has a page rule")
    return notes


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
