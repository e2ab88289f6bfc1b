"""An imported page's scripts pointed at hitflow's fields, form and Submit; their submit listeners read for checks."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from flows.custom.page_scripts import JQUERY_STAND_IN, session_copy

# the tags an imported page is read by: answer controls (crowd-*: MTurk's elements), their names, scripts
FIELD_TAG = re.compile(r"<(input|textarea|select|crowd-[a-z-]+)\b[^>]*>", re.I)
NAME_ATTR = re.compile(r"""(\bname\s*=\s*)(?:(["'])(?P<quoted>.*?)\2|(?P<bare>[^\s>"']+))""", re.I | re.S)
SCRIPT = re.compile(r"(<script\b[^>]*>)(.*?)(</script\s*>)", re.S | re.I)
HITFLOW_FORM = "hit-form"
HITFLOW_SUBMIT = "submit-btn"  # _custom_page.html.j2's Submit button
CROWD_FORM = "crowd-form"  # _crowd_page.html.j2's form, which posts taskAnswers
# the listener the import writes from a page's <form onsubmit>, whose checks the import itself read
OWN_SUBMIT_HOOK = (f'(document.getElementById("{HITFLOW_FORM}") || document.getElementById("{CROWD_FORM}"))'
                   '.addEventListener("submit", ')
ID = re.compile(r"""(?<![\w-])id\s*=\s*["']?([\w-]+)""", re.I)
MAX_HANDLER = 20_000  # characters of one listener read
MAX_LISTENERS = 40  # listeners read, as submit_checks lists at most 40 checks (20,000 of them: 20,000 scans)


def tag_name(tag: str) -> str:
    """A control tag's ``name`` as written ("" without one)."""
    n = NAME_ATTR.search(tag)
    return (n["quoted"] if n["quoted"] is not None else n["bare"]) if n else ""


def _by_id(element_id: str) -> str:
    """A script's reference to the element with this id (DOM or jQuery)."""
    quoted = r"""\s*["']""" + re.escape(element_id) + r"""["']\s*"""
    hashed = r"""\s*["']#""" + re.escape(element_id) + r"""["']\s*"""
    return (rf"(?:document\.getElementById\({quoted}\)|document\.querySelector\({hashed}\)|\$\({hashed}\)|"
            rf"jQuery\({hashed}\)|document\.forms\[{quoted}\])")


# the form or its submit button by tag or type, not id: on hitflow's page they find hitflow's
SELECTOR = r"""\s*["'](?:(?:crowd-)?form|:submit|(?:input|button)?\[type\s*=\s*\\?["']?submit\\?["']?\])["']\s*"""
BY_TAG = (rf"""(?:document\.querySelector\({SELECTOR}\)|\$\({SELECTOR}\)|jQuery\({SELECTOR}\)|"""
          r"""document\.forms\[\s*0\s*\]|document\.getElementsByTagName\(\s*["'](?:crowd-)?form["']\s*\)\[\s*0\s*\])""")
ATTACH = (r"""\s*\.\s*(?:addEventListener\(\s*["'](?:submit|click)["']\s*,\s*|on(?:submit|click)\s*=\s*|"""
          r"""(?:submit|click)\(\s*|on\(\s*["'](?:submit|click)["']\s*,\s*)""")
# a submit hooked anywhere: on an element not read as the form (document, window) its checks are not read
SUBMIT_HOOK = re.compile(r"""\.onsubmit\s*=(?!=)|\.addEventListener\(\s*["']submit["']|\.on\(\s*["']submit["']|"""
                         r"""\.submit\(\s*(?:function\b|[A-Za-z_$])""")
FUNCTION_START = re.compile(r"""function\b[^(]{0,80}\([^)]{0,200}\)\s*(?=\{)|\([^)]{0,200}\)\s*=>\s*(?=\{)|"""
                            r"""[A-Za-z_$][\w$]*\s*=>\s*(?=\{)|([A-Za-z_$][\w$]*)""")


def attached_handlers(scripts: str, element_ids: list[str]) -> list[str]:
    """The code of each submit or click listener the scripts attach to these elements; a named one is its body."""
    refs = [*(_by_id(i) for i in element_ids if i), BY_TAG]
    target = "|".join(refs)
    aliases = re.findall(r"\b(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:" + target + r")\s*;?", scripts)
    target = "|".join([*refs, *(rf"\b{re.escape(a)}\b" for a in aliases)])
    code: list[str] = []
    for m in re.finditer(r"(?:" + target + r")" + ATTACH, scripts):
        if len(code) >= MAX_LISTENERS:
            break
        start = FUNCTION_START.match(scripts, m.end())
        if not start:
            continue
        if start.group(1):  # a named function
            code.append(function_body(scripts, start.group(1)))
        else:
            code.append(balanced(scripts, start.end(), "{", "}")[0] or "")
    return [c for c in code if c.strip()]


def function_body(scripts: str, name: str) -> str:
    """The body of the page's function ``name`` (``function name(...) {...}`` or ``var name = function``)."""
    m = re.search(r"\bfunction\s+" + re.escape(name) + r"\s*\([^)]{0,200}\)\s*(?=\{)", scripts) or re.search(
        r"\b(?:var|let|const)\s+" + re.escape(name) + r"\s*=\s*function\s*\([^)]{0,200}\)\s*(?=\{)", scripts)
    if not m:
        return ""
    body, _ = balanced(scripts, m.end(), "{", "}")
    return "\n" + (body or "")


def balanced(code: str, start: int, opening: str, closing: str) -> tuple[str | None, int]:
    """The text inside the bracket at ``start`` and the offset after its closing one (None unbalanced)."""
    depth = 0
    for at in range(start, min(len(code), start + MAX_HANDLER)):
        depth += (code[at] == opening) - (code[at] == closing)
        if depth == 0:
            return code[start + 1:at], at + 1
    return None, start


def retarget_scripts(body: str, names: list[str], form_ids: list[str], button_ids: tuple[str, ...] = (),
                     form: str = HITFLOW_FORM, session_ids: list[str] | tuple[str, ...] = ()) -> str:
    """The scripts find renamed fields, hitflow's ``form`` and Submit where they found theirs (checks still stop),
    and a copy where they found a dropped session field."""
    targets = [(i, form) for i in form_ids] + [(i, HITFLOW_SUBMIT) for i in button_ids]
    # a word that is also an element's id or a control's value may be either: only a field's name alone is renamed
    ids = set(re.findall(r"""\b(?:id|value)\s*=\s*["']?([\w-]+)""", body))

    def fix(script: re.Match[str]) -> str:
        code = script.group(2)
        for element_id in session_ids:
            code = session_lookup(element_id).sub(
                lambda m, i=element_id: m["jq"] + JQUERY_STAND_IN if m["jq"] else session_copy(i), code)
        for element_id, ours in targets:
            code = re.sub(r"""(getElementById\(\s*|querySelector\(\s*["']#|\$\(\s*["']#|jQuery\(\s*["']#|forms\[\s*)"""
                          r"""(["']?)""" + re.escape(element_id) + r"""(?=["'\]])""",
                          lambda m, ours=ours: m.group(1) + m.group(2) + ours, code)
        for name in names:
            code = re.sub(r"""((?:getElementsByName|namedItem|elements\[|\[name\s*=)\s*\(?\s*["']?)"""
                          + re.escape(name) + r"""(?=["'\])])""", lambda m, n=name: m.group(1) + n + "_{{ i }}", code)
            if name not in ids:
                code = re.sub(r"""(["'])""" + re.escape(name) + r"\1", functools.partial(_named, name=name), code)
        return script.group(1) + code + script.group(3)
    return SCRIPT.sub(fix, body)


def session_lookup(element_id: str) -> re.Pattern[str]:
    """A script's lookup of a dropped session field by its id: ``document.getElementById('id')``,
    ``document.querySelector('#id')`` or jQuery's ``$('#id')``: what :func:`retarget_scripts` gives a copy."""
    found = re.escape(element_id)
    return re.compile(r"""document\.(?:getElementById\(\s*(["'])|querySelector\(\s*(["'])#)""" + found
                      + r"""\1?\2?\s*\)|(?P<jq>\$|jQuery)\(\s*(["'])#""" + found + r"""\4\s*\)""")


def session_stand_in(tag: str, name: re.Match[str]) -> str:
    """A session field kept, unposted, for a script that finds it however it looks (a loop over ids, a selector)
    and writes it: a script stopped by a field gone never wires the page. hitflow's own assignmentId keeps its id."""
    kept = tag[:name.start()] + "data-unposted=" + tag[name.end(1):]
    kept = re.sub(r"""(?<![\w-])id\s*=\s*["']?assignmentId\b["']?""", "", kept)
    return re.sub(r"^<([\w-]+)", r"<\1 hidden", kept) if ID.search(kept) else ""  # no id: nothing finds it


def _named(literal: re.Match[str], name: str) -> str:
    """A string naming a renamed field (a list of names the script builds selectors from) takes the new name; an
    element's id (``getElementById('why')``, the same word) is left alone, and so is a selector's prefix or part
    (``[name^="why"]``): it finds every item's renamed field already, where the new name would find one item's."""
    if re.search(r"getElementById\(\s*$|[\^*]=\s*$", literal.string[max(0, literal.start() - 30):literal.start()]):
        return literal.group(0)
    return f"{literal.group(1)}{name}_{{{{ i }}}}{literal.group(1)}"


def script_text(body: str) -> str:
    return "\n".join(m.group(2) for m in SCRIPT.finditer(body))


# a non-submit button with its onclick (bounded: 20,000 unclosed onclick=" are read once)
BUTTON = re.compile(r"""<(?:button\b(?![^>]{0,2000}\btype\s*=\s*["']?submit)|input\b[^>]{0,2000}?\btype\s*=\s*"""
                    r"""["']?button\b)[^>]{0,2000}?\bonclick\s*=\s*(?:"([^"]{0,5000})"|'([^']{0,5000})')""", re.I)
FORM_SUBMIT_CALL = re.compile(r"\.submit\s*\(\s*\)")
CALL = re.compile(r"\b([A-Za-z_$][\w$]*)\s*\(")


def script_submit_handlers(body: str, unescape: Callable[[str], str]) -> list[str]:
    """The onclick of each button whose script submits the form (``form.submit()``): checks hitflow's Submit skips."""
    scripts, found = script_text(body), []
    bodies: dict[str, str] = {}  # each function looked up once, however many buttons call it
    for m in BUTTON.finditer(body):
        code = unescape(m.group(1) if m.group(1) is not None else m.group(2))
        if FORM_SUBMIT_CALL.search(with_called_functions(code, scripts, bodies)):
            found.append(code)
    return found


def with_called_functions(code: str, scripts: str, bodies: dict[str, str] | None = None) -> str:
    """``code`` followed by the body of each page function it calls, one level deep (``bodies``: lookups kept)."""
    kept: dict[str, str] = {} if bodies is None else bodies
    for name in dict.fromkeys(CALL.findall(code)):
        if name not in kept:
            kept[name] = function_body(scripts, name)
        code += kept[name]
    return code


def unread_hook(template: str) -> list[str]:
    """A line on a submit hook on ``document``/``window``: its checks hold only as far as the import's run found."""
    scripts = script_text(template.replace("{{ i }}", "0")).replace(OWN_SUBMIT_HOOK, "")
    if attached_handlers(scripts, [HITFLOW_FORM, HITFLOW_SUBMIT]) or not (hook := SUBMIT_HOOK.search(scripts)):
        return []
    return [f"the page's script hooks a submit (`{hook[0]}`) on an element not read as hitflow's form: its checks "
            "are not read; QC and form-reading simulated workers hold only the page rules and [qc.fields] word limits "
            "its import found (see its notes): re-express any other, or rehearse with [target] sim_workers = "
            "\"browser\""]
