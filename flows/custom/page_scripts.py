"""What a page's scripts do that the simulated crowd must know: whether they write answers, their "no answer", nonce."""

from __future__ import annotations

import json
import re

from qc.worker_values import read_json

_INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc\s*=)(?![^>]*type\s*=\s*[\"']application/json)[^>]*>(.*?)"
                            r"</script\s*>", re.S | re.I)
# a DOM write (el.value = x, setAttribute("value", x)), jQuery's ($(el).val(x), .attr/.prop("value", x)), a JSON answer
_WRITES_FIELD = re.compile(r"\.value\s*=(?!=)|setAttribute\(\s*[\"']value[\"']|JSON\.stringify"
                           r"|\.val\(\s*[^)\s]|\.(?:attr|prop)\(\s*[\"']value[\"']\s*,")
_UNNONCED = re.compile(r"<(script(?![^>]*\bsrc\s*=)|style)\b(?![^>]*\bnonce\s*=)"
                       r"(?![^>]*type\s*=\s*[\"']application/json)", re.I)


# an inline event handler (onclick=, oninput=...) whose code holds a placeholder: the task server's CSP allows a
# template's handlers by hash (flows/taskserver/task_guard.py), which an item's value would change
_HELD = r"(?:\{\{|\{%|\$\{)"  # a placeholder
ITEM_HANDLER = re.compile(rf"""<[a-z][^>]*?\son[a-z]+\s*=\s*(?:"[^"]*{_HELD}[^"]*"|'[^']*{_HELD}[^']*')""", re.I)


# a script or stylesheet from elsewhere; MTurk's own helpers have hitflow's stand-ins, so they are not counted
_OUTSIDE = re.compile(r"<(?:script\b[^>]*?\bsrc|link\b(?=[^>]*\brel\s*=\s*[\"']?stylesheet)[^>]*?\bhref)\s*=\s*"
                      r"[\"']?(https://[A-Za-z0-9.-]+(?::\d+)?)(/[^\"'>\s]*)?", re.I)
_STOOD_IN = re.compile(r"crowd-html-elements|externalHIT_v1", re.I)


def outside_origins(source: str) -> list[str]:
    """The origins the page loads scripts or stylesheets from (MTurk's own helpers aside: hitflow stands in)."""
    return sorted({m.group(1) for m in _OUTSIDE.finditer(source) if not _STOOD_IN.search(m.group(2) or "")})


def task_server_blocks_lines(source: str, serves_pages: bool, page_origins: tuple[str, ...]) -> list[str]:
    """Dry-run warnings where people open the task server: its CSP blocks inline event handlers holding an item's
    value (MTurk runs them) and scripts or styles from an origin [target] page_origins does not list."""
    if not serves_pages:
        return []
    lines = [f"warning: {len(found)} inline event handler(s) on the page (onclick=, oninput=...) hold an item's "
             "value and do not run on this route: the task server's content security policy lets a handler run only "
             "as the template spells it; read the value from a data- attribute, or move them into a <script>"
             ] if (found := ITEM_HANDLER.findall(source)) else []
    unlisted = sorted(set(outside_origins(source)) - set(page_origins))
    if unlisted:
        lines.append(f"warning: the page loads scripts or styles from {', '.join(unlisted)}, which the task server's "
                     "content security policy blocks on this route, so people get the page without them (its own "
                     f"checks and widgets too); to allow them: [target] page_origins = {json.dumps(unlisted)}")
    return lines


def session_copy(field_id: str) -> str:
    """What a page's script finds for a platform's session field that hitflow's page carries itself: a copy of the
    session's value whose writes touch nothing (MTurk's boilerplate sets assignmentId from a URL Prolific lacks)."""
    return f'({{value: (document.getElementsByName("{field_id}")[0] || "").value || "", sessionCopy: true}})'


JQUERY_STAND_IN = '("<input>")'  # what jQuery's $('#<session field>') becomes: a detached input
_ANY_FIELD = "FIELD_ID_"
_SESSION_COPY_WRITE = re.compile(re.escape(session_copy(_ANY_FIELD)).replace(_ANY_FIELD, r"[\w-]+")
                                 + r"\.value\s*=(?!=)|(?:\$|jQuery)" + re.escape(JQUERY_STAND_IN) + r"\.val\(")


def scripts_write_fields(source: str) -> bool:
    """True when an inline script of the page (a template's own text) writes a field's value (not a session copy)."""
    return any(_WRITES_FIELD.search(_SESSION_COPY_WRITE.sub("", code)) for code in _INLINE_SCRIPT.findall(source or ""))


def sim_workers(setting: str, template_source: str) -> str:
    """"browser" or "form": the setting, or for "auto" what the template's own scripts need."""
    if setting != "auto":
        return setting
    return "browser" if scripts_write_fields(template_source) else "form"


def with_nonce(page: str, nonce: str) -> str:
    """Every inline ``<script>``/``<style>`` gets the page's nonce, so the task server's CSP runs the page's code."""
    if not nonce:
        return page
    return _UNNONCED.sub(lambda m: f'{m.group(0)} nonce="{nonce}"', page)


# what a script writes for "no answer here": a marker (<END>, <MISSING>) or a placeholder word
NO_ANSWER = re.compile(r"<\s*[A-Za-z][\w -]{0,20}>|n/?a|none|null|undefined|nil|missing|skipped|unanswered|"
                       r"no[ _-]?answer|not[ _-]?answered|empty|blank|-+|\?+", re.I)
_STRING = re.compile(r"""'((?:[^'\\\n]|\\.){1,24})'|"((?:[^"\\\n]|\\.){1,24})\"""")
_PARTS = re.compile(r"[,;|\t\n]")


def script_blanks(page: str, options: set[str]) -> frozenset[str]:
    """The words for "no answer" inline scripts write (``picked || "<END>"``), but not values a worker may choose."""
    found = (a or b for code in _INLINE_SCRIPT.findall(page or "") for a, b in _STRING.findall(code))
    return frozenset(t.strip() for t in found if NO_ANSWER.fullmatch(t.strip()) and t.strip() not in options)


def left_blank(answer: str, blanks: frozenset[str]) -> str:
    """The first of ``blanks`` that is ``answer`` or one of its parts (JSON value, comma or bar entry); "" when none."""
    if not blanks or not answer:
        return ""
    try:
        parts = _values(read_json(answer)) if answer.lstrip()[:1] in "[{" else _PARTS.split(answer)
    except ValueError:
        parts = _PARTS.split(answer)
    return next((p.strip() for p in parts if p.strip() in blanks), "")


def _values(data: object) -> list[str]:
    if isinstance(data, dict):
        return [v for x in data.values() for v in _values(x)]
    if isinstance(data, list):
        return [v for x in data for v in _values(x)]
    return [str(data)] if isinstance(data, str) else []
