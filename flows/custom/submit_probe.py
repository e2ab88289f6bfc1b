"""What an imported page's script requires, found by running it in Chromium; else its code's checks stand, noted."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.radio_buttons import BUTTONS
from flows.custom.probed_limits import ITEM, probed_limits
from flows.custom.script_targets import FIELD_TAG, script_text
from flows.custom.submit_checks import Check, script_only_checks, with_rule, word_limit

# a script or on* attribute that may stop a submit: names one, cancels, disables a button, or sets validity/required
GUARD = re.compile(r"submit|preventDefault|return\s+false|\.disabled\s*=|setCustomValidity|\.required\s*=|"
                   r"(?:set|remove)Attribute\(\s*[\"']required", re.I)
STAYS = re.compile(r"submit check `if \((.*?)\)`.* stays in its script only")
ON_ATTR = re.compile(r"""\son[a-z]+\s*=\s*(?:"([^"]{0,5000})"|'([^']{0,5000})')""", re.I)


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
