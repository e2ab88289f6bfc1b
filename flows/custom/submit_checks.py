"""A page's submit checks read from its handler: page rules become rules on controls, others are listed."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from flows.custom.script_targets import (
    FIELD_TAG,
    HITFLOW_FORM,
    HITFLOW_SUBMIT,
    ID,
    NAME_ATTR,
    OWN_SUBMIT_HOOK,
    attached_handlers,
    balanced,
    script_text,
    tag_name,
    with_called_functions,
)
from qc.page_patterns import PagePattern, page_pattern

IF = re.compile(r"\bif\s*\(")
_NAME = re.compile(r"""\bname\s*=\s*["']?([\w-]+)""")  # a control's plain name, as the checks refer to it
STOPS = re.compile(r"return\s+false|preventDefault\s*\(|\balert\s*\(")
# the message a check shows; (3): the script joins more to it (a count), shown as "..."
MESSAGE = re.compile(r"""(?:alert\s*\(|textContent\s*=|innerText\s*=|innerHTML\s*=)\s*(["'`])(.{1,200}?)\1(\s*\+)?""",
                     re.S)
NAME_REF = (r"""document\.getElementsByName\(\s*["']([\w-]+)["']\s*\)\s*\[\s*0\s*\]""",
            r"""document\.querySelector\(\s*["'][a-z]*\[name\s*=\s*\\?["']?([\w-]+)\\?["']?\]["']\s*\)""",
            r"""(?:document\.forms\[[^\]]{1,40}\]|\bform|this\.form|this)\.([A-Za-z_][\w]*)""")
ID_REF = r"""document\.getElementById\(\s*["']([\w-]+)["']\s*\)"""
# jQuery's reads of a control: by id (``$('#rating')``) or by name (``$('[name=rating]')``), its value ``.val()``
JQ_ID = r"""(?:\$|jQuery)\(\s*["']#([\w-]+)["']\s*\)"""
JQ_NAME = r"""(?:\$|jQuery)\(\s*["'][a-z]*\[name\s*=\s*\\?["']?([\w-]+)\\?["']?\]["']\s*\)"""
JQ_VALUE = rf"(?:{JQ_ID}|{JQ_NAME})\.val\(\)(?:\.trim\(\))?"
# "no box of the page is ticked", by type rather than name: the page's one checkbox group
ANY_BOX_UNTICKED = re.compile(r"""^(?:!\s*[\w$.\[\]]{0,60}\.querySelector\(\s*["']input\[type\s*=\s*\\?["']?checkbox"""
                              r"""\\?["']?\]:checked["']\s*\)|[\w$.\[\]]{0,60}\.querySelectorAll\(\s*["']input\[type\s*="""
                              r"""\s*\\?["']?checkbox\\?["']?\]:checked["']\s*\)\.length\s*(?:===?\s*0|<\s*1))$""")
# a choice group's ticked control by name: one element (querySelector) or a list (querySelectorAll, jQuery)
_TICKED = r"""\(\s*["'][a-z-]*\[name\s*=\s*\\?["']?([\w-]+)\\?["']?\](?::checked|\[checked\])["']\s*\)"""
ONE_TICKED = rf"document\.querySelector{_TICKED}"
ALL_TICKED = rf"(?:document\.querySelectorAll|\$|jQuery){_TICKED}"
# "no control of the group is ticked", each way a script says it
UNTICKED = re.compile(rf"^(?:!\s*{ONE_TICKED}|{ONE_TICKED}\s*===?\s*(?:null|undefined)|!\s*{ALL_TICKED}\.length|"
                      rf"{ALL_TICKED}\.length\s*(?:===?\s*0|<\s*1)|!\s*(?:\$|jQuery){_TICKED}\.val\(\)|"
                      rf"(?:\$|jQuery){_TICKED}\.val\(\)\s*===?\s*(?:undefined|null))$")
# a message asking for every question: "Please answer all three questions", "answer every address"
ASKS_ALL = re.compile(r"\b(?:all|every|each)\b[^.!?]{0,30}\b(?:questions?|answers?|items?)\b|"
                      r"\banswer\s+(?:all|every|each)\b", re.I)
MAX_CHECKS = 40  # a page's checks listed at most


@dataclass
class Check:
    condition: str  # the if's condition as written (whitespace collapsed)
    message: str  # what it told the person ("" when it said nothing)
    # the page rules it is, when that is all it does: (field, attribute, value), e.g. ("reason", "required", "")
    rules: list[tuple[str, str, str]] = field(default_factory=list)
    resolved: str = ""  # the condition with the handler's variables replaced by the fields they hold
    note: str = ""  # what the import says of a check that stays the script's


def submit_checks(handlers: list[str], scripts: str, ids: dict[str, str]) -> list[Check]:
    """The checks in ``handlers`` and the page functions they call (``ids``: element id -> field name)."""
    code = with_called_functions("\n".join(handlers), scripts)
    aliases = _aliases(scripts) | _aliases(code)  # the page's own variables, then the handlers'
    checks = []
    for m in IF.finditer(code):
        condition, after = balanced(code, m.end() - 1, "(", ")")
        if condition is None:
            continue
        block = _statement(code, after)
        if not STOPS.search(block):
            continue
        said = MESSAGE.search(block)
        text = " ".join(condition.split())
        resolved = _resolved(text, aliases)
        message = (said.group(2) + ("..." if said.group(3) else "")) if said else ""
        checks.append(Check(text, message, _rules(resolved, ids), resolved))
        if len(checks) >= MAX_CHECKS:
            break
    return checks


DECLARED = r"\b(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*"  # ``var n = ``: the name declared
WORD_COUNT = r"\.split\([^)]{1,20}\)(?:\.filter\([^)]{0,60}\))?\.length"  # a text's words, counted
WORD_COUNT_ALIAS = re.compile(rf"{DECLARED}(?:[\w$.]{{1,80}}\s*\?\s*)?([\w$.]{{1,80}}{WORD_COUNT})\b")


# a page function that counts a text's words: ``function wordCount(t) { ...; return t.split(/\s+/).length; }``
COUNTER_FUNCTION = re.compile(r"function\s+([A-Za-z_$][\w$]*)\s*\(\s*[A-Za-z_$][\w$]*\s*\)\s*\{[^{}]{0,300}?"
                              + WORD_COUNT)


def _aliases(code: str) -> dict[str, str]:
    """A handler's variables holding a field or its value -> what they hold, so ``c.value`` reads as on the field."""
    held = rf"(?:{_CHOSEN_IS}|(?:{_REF})(?:\.value(?:\.trim\(\))?)?|{ONE_TICKED}|{ALL_TICKED})"
    found = re.finditer(rf"{DECLARED}({held})\s*[;\n]", code)
    # a word count first (``t.split(/\s+/).length``, ``wordCount(t)``): what it holds names a value alias
    counters = "|".join(re.escape(m[1]) for m in COUNTER_FUNCTION.finditer(code)) or "(?!)"
    counts = {m.group(1): m.group(2) for m in WORD_COUNT_ALIAS.finditer(code)} | {
        m[1]: f"{m[2]}.split(/\\s+/).length" for m in re.finditer(
            rf"{DECLARED}(?:{counters})\(\s*([\w$.]{{1,80}})\s*\)", code)}
    return counts | {m.group(1): m.group(2) for m in found if m.group(1) not in ("form", "document", *counts)}


def _resolved(condition: str, aliases: dict[str, str]) -> str:
    for _ in range(3):  # an alias may hold another (a word count of a value held in a variable)
        before = condition
        for name, held in aliases.items():  # a name inside a string ('[name="q"]') is the string's, never the variable
            found = rf"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?<![\w$.]){re.escape(name)}(?![\w$])"""
            condition = re.sub(found, lambda m: m.group(1) or held, condition)  # noqa: B023  (called at once)
        if condition == before:
            break
    return condition


def _statement(code: str, at: int) -> str:
    """The statement an ``if`` guards: its ``{...}`` block, or up to the next ``;``."""
    rest = code[at:at + 2000]
    stripped = rest.lstrip()
    if stripped.startswith("{"):
        body, _ = balanced(stripped, 0, "{", "}")
        return body or ""
    return stripped.split(";", 1)[0]


def _rules(condition: str, ids: dict[str, str]) -> list[tuple[str, str, str]]:
    """Page rules when every alternative is "field empty" or "number above/below N", or "choice X and field empty"."""
    if (both := _unwrapped(condition).split("&&")) and len(both) == 2 and "||" not in condition:
        for chosen, empty in (both, both[::-1]):
            is_ = re.match(rf"^{_CHOSEN_IS}$", _unwrapped(chosen))
            if is_ and (rule := _empty_test(_unwrapped(empty), ids)):
                return [(rule[0], "data-required-when", f"{next(g for g in is_.groups() if g)}={is_['said']}")]
    if "&&" in condition or "?" in condition:  # not only "empty" tests
        return []
    rules = []
    for part in condition.split("||"):
        test = _unwrapped(part)
        rule = _empty_test(test, ids) or _bound_test(test, ids) or _length_test(test, ids) or _pattern_test(test, ids)
        if rule is None:
            return []
        rules.append(rule)
    return list(dict.fromkeys(rules))


def _unwrapped(part: str) -> str:
    """The test without whitespace and the parentheses wrapped around all of it."""
    part = part.strip()
    while part.startswith("(") and balanced(part, 0, "(", ")")[1] == len(part):
        part = part[1:-1].strip()
    return part


def _bound_test(part: str, ids: dict[str, str]) -> tuple[str, str, str] | None:
    """``x.value > 10`` -> (x, "max", "10"); ``x.value < 1`` -> (x, "min", "1")."""
    m = re.match(rf"^(?P<ref>{_REF})\.value\s*(?P<op>[<>])\s*(?P<n>-?\d+(?:\.\d+)?)$", part)
    name = _ref_name(m, ids) if m else None
    return (name, "max" if m["op"] == ">" else "min", m["n"]) if m and name else None


def _length_test(part: str, ids: dict[str, str]) -> tuple[str, str, str] | None:
    """``x.value.length < 100`` -> (x, "minlength", "100"); ``x.value.length > 500`` -> (x, "maxlength", "500")."""
    m = re.match(rf"^(?P<ref>{_REF})\.value(?:\.trim\(\))?\.length\s*(?P<op>[<>]=?)\s*(?P<n>\d{{1,7}})$", part)
    name = _ref_name(m, ids) if m else None
    if not m or not name:
        return None
    n = int(m["n"]) + {"<": 0, "<=": 1, ">": 0, ">=": -1}[m["op"]]
    return (name, "minlength" if m["op"].startswith("<") else "maxlength", str(n)) if n > 1 else None


def _pattern_test(part: str, ids: dict[str, str]) -> tuple[str, str, str] | None:
    """``!/^\\d{5}$/.test(x.value)`` -> (x, "pattern", "\\d{5}"); HTML patterns match whole values, so anchors go."""
    m = re.match(rf"^!\s*/(?P<re>(?:[^/\\\n]|\\.){{1,300}})/\.test\(\s*(?P<ref>{_REF})\.value(?:\.trim\(\))?\s*\)$",
                 part)
    name = _ref_name(m, ids) if m else None
    if not m or not name:
        return None
    expr = m["re"]
    if expr.startswith("^") and expr.endswith("$") and not expr.endswith("\\$"):
        pattern = expr[1:-1]
    else:
        pattern = f"{'' if expr.startswith('^') else '.*'}(?:{expr.lstrip('^')}){'' if expr.endswith('$') else '.*'}"
    # an expression a browser reads otherwise (v flag) or QC cannot match in bounded time stays the script's, listed
    return (name, "pattern", pattern) if isinstance(page_pattern(pattern), PagePattern) else None


def word_limit(condition: str, ids: dict[str, str]) -> tuple[str, str, int] | None:
    """``x.value.split(/\\s+/).length < 20`` -> ("x", "min_words", 20), ``> 20``: max_words; no page rule says it."""
    m = re.search(rf"(?P<ref>{_REF}|[\w$.]{{1,80}}?)\.value(?:\.trim\(\))?{WORD_COUNT}"
                  r"\s*(?P<op>[<>]=?)\s*(?P<n>\d{1,5})", condition)
    ref = re.match(rf"(?P<ref>{_REF})$", m["ref"]) if m else None
    return ((ref and _ref_name(ref, ids)) or "<field>", "min_words" if m["op"][0] == "<" else "max_words",
            int(m["n"]) + {"<": 0, "<=": 1, ">": 0, ">=": -1}[m["op"]]) if m else None


_REF = "|".join(f"(?:{r})" for r in (*NAME_REF, ID_REF))
# a choice's value is a literal: ``document.querySelector('input[name=m]:checked').value=='no'``, ``form.m.value``
_CHOSEN_IS = (rf"""(?:(?:{ONE_TICKED}|{NAME_REF[2]})\.value|(?:\$|jQuery){_TICKED}\.val\(\))\s*===?\s*"""
              r"""(?P<q>["'])(?P<said>[^"'\\=]{1,60})(?P=q)""")


def _ref_name(m: re.Match[str], ids: dict[str, str]) -> str | None:
    """The field a matched reference names (an element id through ``ids``)."""
    ref = re.match(_REF, m["ref"])
    found = next((g for g in ref.groups() if g), None) if ref else None
    return ids.get(found) if found and re.match(ID_REF, m["ref"]) else found


def _empty_test(part: str, ids: dict[str, str]) -> tuple[str, str, str] | None:
    """A test that ``x`` is empty (``!x.value``, ``.trim() === ""``, no radio checked...): (x, "required", "")."""
    if m := UNTICKED.match(part):
        return (next(g for g in m.groups() if g), "required", "")
    for shape in (rf"^!\s*{JQ_VALUE}$", rf"^{JQ_VALUE}\s*===?\s*(?:\"\"|'')$"):
        if (m := re.match(shape, part)) and (name := ids.get(m[1]) if m[1] else m[2]):
            return (name, "required", "")
    value = rf"(?P<ref>{_REF})\.value(?:\.trim\(\))?"
    for shape in (rf"^!\s*{value}$", rf"^{value}\s*(?:===?|==)\s*(?:\"\"|''|``)$",
                  rf"^{value}\.length\s*(?:===?\s*0|<\s*1)$"):
        if (m := re.match(shape, part)) and (name := _ref_name(m, ids)):
            return (name, "required", "")
    return None


def checks_as_rules(body: str, handlers: list[str], notes: list[str], stayed: list[Check] | None = None) -> str:
    """Each handler check in ``notes``: page rules onto their controls; others by condition, message, in ``stayed``."""
    ids = {i[1]: n[1] for tag in FIELD_TAG.finditer(body) if (i := ID.search(tag[0])) and (n := _NAME.search(tag[0]))}
    textareas = _names(body, r"<textarea\b[^>]*>")  # HTML has no pattern on a textarea: such a check stays the script's
    boxes = _names(body, r"<crowd-checkbox\b[^>]*>|<input\b[^>]*\btype\s*=\s*[\"']?checkbox\b[^>]*>")
    scripts = script_text(body)
    for check in submit_checks(handlers, scripts, ids):
        said = f" (it says {check.message!r})" if check.message else ""
        if not check.rules and len(boxes) == 1 and ANY_BOX_UNTICKED.match(_unwrapped(check.resolved)):
            check.rules = [(next(iter(boxes)), "required", "")]  # "no box ticked" on a page of one group
        if not check.rules and ASKS_ALL.search(check.message):  # a check read by what it tells the person
            check.rules = _every_question(body, with_called_functions("\n".join(handlers), scripts))
        # a group with none ticked: on a checkbox, required is that one box
        check.rules = [(n, "data-min-selections", "1") if a == "required" and n in boxes else (n, a, v)
                       for n, a, v in check.rules]
        if check.rules and not any(a == "pattern" and n in textareas for n, a, _ in check.rules):
            for rule in check.rules:
                body = FIELD_TAG.sub(functools.partial(with_rule, rule=rule), body)
            rules = ", ".join(f"{a}={v!r} on {n}" if a in ("pattern", "data-required-when") else
                              f"{a}{'=' + v if v else ''} on {n}" for n, a, v in check.rules)
            notes.append(f"the page's submit check `if ({check.condition[:120]})`{said} is now the page rule {rules}: "
                         "hitflow's page, its QC and every simulated worker enforce it; check it says what it meant")
        else:
            words = word_limit(check.resolved or check.condition, ids)
            if words and words[0] != "<field>" and words[1] == "min_words" and words[2] > 0:  # a blank is short too
                body = FIELD_TAG.sub(functools.partial(with_rule, rule=(words[0], "required", "")), body)
                said += f" (a blank {words[0]} has too few words: it is now required)"
            how = (f"re-express it as [qc.fields.{words[0]}] {words[1]} = {words[2]} (QC's rule for a word count)"
                   if words else "re-express it as page rules (required, data-required-when, pattern, min/max, "
                   "minlength, data-min-selections)")
            check.note = (f"the page's submit check `if ({check.condition[:160]})`{said} stays in its script only: a "
                          f"person's browser runs it, hitflow's QC and form-reading simulated workers do not; {how} or "
                          "check the answers for it ([target] sim_workers = \"browser\" rehearses it)")
            notes.append(check.note)
            (stayed if stayed is not None else []).append(check)
    return body


def _names(body: str, tags: str) -> set[str]:
    return {n[1] for tag in re.finditer(tags, body, re.I) if (n := _NAME.search(tag[0]))}


def _every_question(body: str, code: str) -> list[tuple[str, str, str]]:
    """``required`` on each single-choice question the handlers name, else every one ("answer all the questions")."""
    groups = [tag_name(tag[0]) for tag in FIELD_TAG.finditer(body)
              if re.match(r"<select\b|<input\b[^>]*\btype\s*=\s*[\"']?radio\b", tag[0], re.I)
              and "multiple" not in tag[0].lower() and NAME_ATTR.search(tag[0])]
    named = [g for g in groups if re.search(rf"(?<![\w-]){re.escape(g)}(?![\w-])", code)]
    return [(g, "required", "") for g in dict.fromkeys(named or groups)]


def with_rule(control: re.Match[str], rule: tuple[str, str, str]) -> str:
    """The control with the rule's attribute if it is the rule's field's and has none already."""
    tag, (field, attr, value) = control.group(0), rule
    if tag_name(tag) != field or re.search(rf"\s{attr}\b", tag, re.I):
        return tag
    return re.sub(r"^<([\w-]+)", lambda t: f'<{t[1]} {attr}' + (f'="{value}"' if value else ""), tag)


# the page's own <form onsubmit> code as the import wrote it into its listener on hitflow's form (page_import.py)
OWN_SUBMIT = re.compile(re.escape(OWN_SUBMIT_HOOK) + r"function \(event\) \{\n  if \(\(function \(event\) \{ (.*?) "
                        r"\}\)\.call\(this, event\) === false\)", re.S)


def script_only_checks(template: str) -> list[Check]:
    """Script checks on hitflow's form no page rule says (each with its note): only a browser enforces them, so QC
    would pass them. The page's own onsubmit is read as the import read it, from the code it wrote into its listener."""
    stayed: list[Check] = []
    template = template.replace("{{ i }}", "0")  # the first item's names, in its fields and its scripts alike
    scripts = script_text(template)
    handlers = attached_handlers(scripts, [HITFLOW_FORM, HITFLOW_SUBMIT]) + OWN_SUBMIT.findall(scripts)
    checks_as_rules(template, handlers, [], stayed)
    return stayed
