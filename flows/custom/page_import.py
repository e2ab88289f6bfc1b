"""``hitflow new NAME --from PAGE``: a foreign page as a template's ``item`` block (docs/importing_pages.md)."""

from __future__ import annotations

import html as html_text
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from flows.core.pages.crowd_elements import SELF_CONTAINED
from flows.core.pages.mturk_forms import NS_EXTERNAL, NS_HTML
from flows.custom.browser_templates import kept_expression_notes, raw_browser_templates
from flows.custom.foreign_syntax import Converted, dollar_to_jinja, jinja_columns, line_of, liquid_to_jinja
from flows.custom.item_ids import MOVED, PAGE_LEVEL_NOTE, page_level, per_item_ids
from flows.custom.page_check import QUESTION_XML, SHOWN_BLOCKS, refused_pattern_lines, server_side_blocks
from flows.custom.page_fetch import FetchRefused, Network, fetch_page
from flows.custom.page_instructions import outside_crowd_form, split_instructions
from flows.custom.page_scripts import ITEM_HANDLER, scripts_write_fields
from flows.custom.question_form_page import question_form_page
from flows.custom.script_targets import (
    CROWD_FORM,
    FIELD_TAG,
    HITFLOW_FORM,
    ID,
    NAME_ATTR,
    OWN_SUBMIT_HOOK,
    SUBMIT_HOOK,
    attached_handlers,
    retarget_scripts,
    script_submit_handlers,
    script_text,
    session_lookup,
    session_stand_in,
    tag_name,
)
from flows.custom.submit_checks import checks_as_rules
from flows.custom.submit_probe import stated_minimums

# the platforms' session fields a page carries (MTurk's form fields, Prolific's URL parameters): hitflow's page
# carries the session itself, so these are dropped rather than collected as answers
SESSION_FIELDS = ("assignmentId", "hitId", "workerId", "turkSubmitTo", "PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
MTURK_FORM = "mturk_form"  # the form MTurk wraps a layout fragment in: a fragment's script finds it by this id
# a crowd-form, or an element MTurk documents as self-contained (its own submit, no crowd-form around it)
CROWD_PAGE = re.compile(r"<(?:crowd-form|" + "|".join(SELF_CONTAINED) + r")\b", re.I)
# <crowd-form> and its submit button, MTurk's element script: _crowd_page.html.j2 has its own of each
CROWD_FRAME = re.compile(r"</?crowd-form\b[^>]*>|<crowd-button\b[^>]*\bform-action\s*=\s*[\"']?submit[^>]*>.*?"
                         r"</crowd-button\s*>|<script\b[^>]*\bsrc\s*=\s*[\"'][^\"']*crowd-html-elements[^>]*>\s*"
                         r"</script\s*>", re.I | re.S)
FORM_OPEN = re.compile(r"<form\b([^>]*)>", re.I)
FORM_CLOSE = re.compile(r"</form\s*>", re.I)
SUBMIT = re.compile(r"<input\b[^>]*\btype\s*=\s*[\"']?submit[\"']?[^>]*>|<button\b[^>]*\btype\s*=\s*[\"']?submit"
                    r"[\"']?[^>]*>.*?</button\s*>", re.I | re.S)
HEAD_ASSETS = re.compile(r"<script\b[^>]*>.*?</script\s*>|<style\b[^>]*>.*?</style\s*>|<link\b[^>]*>", re.S | re.I)
# bounded: on a page of 20,000 unclosed <crowd-form each is read 600 characters on, not to the end (a minute)
CROWD_ONSUBMIT = re.compile(r"""<crowd-form\b[^>]{0,600}?\bonsubmit\s*=\s*(["'])(.{0,20000}?)\1""", re.I | re.S)
CROWD_ID = re.compile(r"""<crowd-form\b[^>]{0,600}?(?<![\w-])id\s*=\s*["']?([\w-]+)""", re.I)
ONSUBMIT = re.compile(r"""<form\b[^>]*\bonsubmit\s*=\s*(["'])(.*?)\1""", re.I | re.S)
DISABLED_SUBMIT = re.compile(r"<(?:input|button)\b[^>]*\btype\s*=\s*[\"']?submit[^>]*>|<crowd-button\b[^>]*"
                             r"\bform-action\s*=\s*[\"']?submit[^>]*>", re.I)
JINJA_PAGE = re.compile(r"\{\{\s*item\.|\{%\s*(if|for|set|extends)\b")
ONCLICK = re.compile(r"""\bonclick\s*=\s*(["'])(.*?)\1""", re.I | re.S)


class PageProblems(Exception):
    """The page cannot be converted: ``lines`` say where and how to fix it."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


@dataclass
class ImportedPage:
    body: str  # Jinja for the item block
    columns: list[str]
    title: str
    notes: list[str] = field(default_factory=list)
    answer_key: list[dict[str, str]] = field(default_factory=list)
    scripted: bool = False  # its scripts write answer fields: simulated workers use a browser
    crowd: bool = False  # built on MTurk's crowd elements: the template extends _crowd_page.html.j2
    instructions: str = ""  # shown once above the items (flows/custom/page_instructions.py)
    closing: str = ""  # the page's closing scripts, run once below the items (flows/custom/item_ids.py)


def import_page(source: str, origin: str, answer_key: str = "", allowed: tuple[Network, ...] = (),
                keep_jinja: bool = False) -> ImportedPage:
    """The item block, columns and title; raises PageProblems per line it cannot convert; Jinja text unless kept."""
    kind, content, offset = unwrap(source, origin, allowed)
    if kind == "QuestionForm":
        dropped: list[str] = []
        body, key, problems = question_form_page(content, answer_key, dropped)
        _raise(origin, problems + refused_pattern_lines(content, question_form=True), 0)
        notes = [f"{origin}: note: the QuestionForm's {', '.join(dict.fromkeys(dropped))} content was left out "
                 "(a hitflow page shows text, lists and XHTML): put a link to it in the question's text"] \
            if dropped else []
        return ImportedPage(body, [], _title(content) or "Questions", notes, answer_key=key)
    if answer_key:
        _raise(origin, [(1, "--answer-key goes with a QuestionForm; this page is HTML: leave it out, or score "
                            "answers with [qc] rules")], 0)
    _raise(origin, server_side_blocks(content), offset)  # PHP, ASP, other engines' tags: each block named
    converted = convert_placeholders(content, keep_jinja)
    _raise(origin, converted.problems + refused_pattern_lines(content), offset)
    title = _title(content)
    crowd = bool(CROWD_PAGE.search(converted.text))
    page, outside = outside_crowd_form(converted.text) if crowd else (converted.text, [])
    body, notes = restructure(_without_crowd_frame(page), CROWD_FORM) if crowd else restructure(page)
    notes = outside + notes
    if any(re.search(r"\sdisabled\b", m[0], re.I) for m in DISABLED_SUBMIT.finditer(converted.text)):
        notes.append("the page's submit button starts disabled (its script enables it once the page is complete); "
                     "hitflow's Submit does not, so that check is lost: mark the controls it waits for `required`")
    body, instructions, moved = split_instructions(body)
    body, lead, closing = page_level(per_item_ids(body))  # several items on one page: unique ids, one style...
    notes = notes + moved + ([PAGE_LEVEL_NOTE] if MOVED.search(lead + closing) else [])
    (body, stated), instructions = stated_minimums(body, origin), lead + instructions
    notes = [f"{origin}:{line + offset}: note: {text}" for line, text in converted.notes] + \
            [f"{origin}: note: {n}" for n in notes] + stated
    scripted = scripts_write_fields(lead + body + closing)
    if crowd:
        notes.append(f"{origin}: note: a page of MTurk's crowd elements: it extends _crowd_page.html.j2, whose "
                     "<crowd-form> posts taskAnswers and whose own script draws the elements (MTurk's is not loaded); "
                     "check that `hitflow run --dry-run` lists every element's answer")
    if not FIELD_TAG.search(body) and not scripted:
        notes.append(f"{origin}: note: the page has no answer field (input, textarea, select or crowd element); "
                     "add a named one, or check that the page's script writes one")
    return ImportedPage(body, converted.columns, title, notes, scripted=scripted, crowd=crowd,
                        instructions=instructions, closing=closing)


def _without_crowd_frame(page: str) -> str:
    """The page without <crowd-form> and MTurk's script; its onsubmit and id become a form, its checks read as one's."""
    kept = "".join(f"<form onsubmit={m[1]}{m[2]}{m[1]}></form>" for m in CROWD_ONSUBMIT.finditer(page))
    kept += "".join(f'<form id="{m[1]}"></form>' for m in CROWD_ID.finditer(page))
    page = CROWD_FRAME.sub("", page)
    end = re.search(r"</body\s*>", page, re.I)
    return page[:end.start()] + kept + page[end.start():] if end else page + kept


def _raise(origin: str, problems: list[tuple[int, str]], offset: int) -> None:
    """PageProblems for ``problems``: the first SHOWN_BLOCKS, then how many more."""
    if problems:
        shown = sorted(problems)[:SHOWN_BLOCKS]
        more = [f"{origin}:{shown[-1][0] + offset}: and {len(problems) - SHOWN_BLOCKS:,} more part(s) like those "
                "above"] if len(problems) > SHOWN_BLOCKS else []
        raise PageProblems([f"{origin}:{line + offset}: {text}" for line, text in shown] + more)


def unwrap(source: str, origin: str, allowed: tuple[Network, ...] = ()) -> tuple[str, str, int]:
    """(kind, the page or the QuestionForm's XML, lines before the page in the file)."""
    if not QUESTION_XML.match(source):
        return "HTML", source, 0
    try:
        root = ET.fromstring(source.strip())
    except ET.ParseError as exc:
        raise PageProblems([f"{origin}:{exc.position[0]}: the XML wrapper is not well-formed ({exc}); "
                            "fix it, or import the HTML inside it on its own"]) from exc
    local = root.tag.rpartition("}")[2]
    if local == "HTMLQuestion":
        content = root.findtext(f"{{{NS_HTML}}}HTMLContent") or root.findtext("HTMLContent") or ""
        at = source.find(content[:200]) if content else -1
        return "HTML", content, line_of(source, at) - 1 if at >= 0 else 0
    if local == "ExternalQuestion":
        url = (root.findtext(f"{{{NS_EXTERNAL}}}ExternalURL") or root.findtext("ExternalURL") or "").strip()
        try:  # fetched once, as a worker's browser would (flows/custom/page_fetch.py)
            return "HTML", fetch_page(url, allowed), 0
        except FetchRefused as exc:
            shown = "".join(c for c in url[:100] if c.isprintable())
            raise PageProblems([f"{origin}:1: the ExternalQuestion's page {shown} could not be fetched: {exc}"]) \
                from exc
    return "QuestionForm", source, 0


def convert_placeholders(page: str, keep_jinja: bool = False) -> Converted:
    """Liquid, hitflow's Jinja (``keep_jinja``: sandboxed) or ``${column}``: a foreign page runs none of its own."""
    # bounded: an unbounded [^}]* rescans the rest of the page from every "{{" (30,000 of them: 130 s)
    if "task.input" in page and re.search(r"\{[{%]-?[^}]{0,300}?\btask\.input\b", page):
        return liquid_to_jinja(page)
    if keep_jinja and JINJA_PAGE.search(page):
        text, notes = raw_browser_templates(page)  # a Handlebars template in a script is the script's, not Jinja
        return Converted(text, jinja_columns(page), notes=notes)
    converted = dollar_to_jinja(page)
    converted.notes += kept_expression_notes(page)  # each {{ }} kept as text, named for what it is
    return converted


NO_TITLE = re.compile(r"(?:(?:task|full|short|survey) )?instructions?|(?:your )?task|overview|questions?", re.I)


def _title(page: str) -> str:
    """The page's title or first heading that names it ("Instructions" names no campaign: the name given then)."""
    headings = (r"<h1[^>]*>(.*?)</h1>", r"<h2[^>]*>(.*?)</h2>", r"<h3[^>]*>(.*?)</h3>")  # a fragment's own heading
    for pattern in (r"<title[^>]*>(.*?)</title>", r"<Title>(.*?)</Title>", *headings):
        for m in re.finditer(pattern, page, re.S | re.I):
            text = " ".join(html_text.unescape(re.sub(r"<[^>]+>|\{\{.*?\}\}|\$\{[^}]*\}", "", m.group(1))).split())
            if text and not NO_TITLE.fullmatch(text.rstrip(":")):
                return text[:120]
    return ""


def restructure(page: str, form: str = HITFLOW_FORM) -> tuple[str, list[str]]:
    """The body as an item block: head scripts and styles kept, form, submit, MTurk fields dropped, fields renamed."""
    body, notes = _body_of(page)
    body = re.sub(r"<!DOCTYPE[^>]*>|</?html\b[^>]*>|<meta\b[^>]*>|<title\b[^>]*>.*?</title\s*>", "", body,
                  flags=re.S | re.I)
    form_ids = [re.search(r"\bid\s*=\s*[\"']([^\"']+)", f.group(1)) for f in FORM_OPEN.finditer(body)]
    handlers = [html_text.unescape(m.group(2)) for m in ONSUBMIT.finditer(body)]
    submits = list(SUBMIT.finditer(body))
    clicks = [html_text.unescape(c.group(2)) for b in submits if (c := ONCLICK.search(b.group(0)))]
    if FORM_OPEN.search(body) or submits:
        notes.append("the page's own <form> and submit button were dropped: hitflow's page has the form "
                     "(its action and MTurk's session fields) and one Submit button; check that `hitflow run "
                     "--dry-run` lists every field the page had")
    if handlers or clicks:  # the page's own checks still guard the submit
        notes.append(f"the page's own submit check{'s' if len(handlers + clicks) > 1 else ''} (the form's "
                     "onsubmit, the submit button's onclick) now run when hitflow's form is submitted in a browser "
                     "(`return false` still stops it); check each line below on what it enforces")
    handlers += clicks
    own_forms = [f.group(1) for f in form_ids if f]
    ids = [*own_forms, *([MTURK_FORM] if MTURK_FORM not in own_forms else [])], \
        tuple(i[1] for b in submits if (i := ID.search(b.group(0))))
    listeners = attached_handlers(scripts := script_text(body), [*ids[0], *ids[1]])  # checks a script attaches
    if listeners:
        notes.append(f"the page's script attaches {len(listeners)} submit/click listener(s) to its form or submit "
                     "button: they now run on hitflow's form and Submit button in a browser; check each line below")
    elif hook := SUBMIT_HOOK.search(scripts):
        notes.append(f"the page's script hooks a submit (`{hook[0]}`) on an element not read as its form: its checks "
                     "are not read, and hitflow's QC and form-reading simulated workers skip them; re-express them "
                     "as page rules (required, data-min-selections...)")
    if own := script_submit_handlers(body, html_text.unescape):  # read for their checks, left on the page
        notes.append(f"{len(own)} button(s) of the page submit the form from its script (form.submit()), which "
                     "skips hitflow's checks, and hitflow's Submit skips theirs: remove them (workers use hitflow's "
                     "Submit) once each check below is a page rule or re-expressed")
    body = FORM_CLOSE.sub("", FORM_OPEN.sub("", SUBMIT.sub("", body))) + "".join(map(_submit_listener, handlers))
    body = checks_as_rules(body, handlers + listeners + own, notes)
    body, names, session_ids = rename_fields(body)
    dropped = [f for f in SESSION_FIELDS if re.search(r"""\bname\s*=\s*["']?""" + f + r"""\b""", page)]
    if dropped:
        read = [i for i in session_ids if session_lookup(i).search(scripts)]
        kept = re.search(r"data-unposted=[\"']?(?:" + "|".join(SESSION_FIELDS) + ")", body)
        notes.append(f"the platform's session field{'s' if len(dropped) > 1 else ''} {', '.join(dropped)} not "
                     "posted: hitflow's page carries the session itself" + (
                         "; kept hidden, unnamed, for the page's script" if kept else "")
                     + (f" (it reads {', '.join(read)}: what it writes there is ignored)" if read else "")
                     + "; check that the page needs nothing else from them")
    body = retarget_scripts(body, names, *ids, form=form, session_ids=session_ids)
    if ITEM_HANDLER.search(body):
        notes.append("inline event handlers (onclick=...) holding an item's value run on MTurk but the task server's "
                     "content security policy blocks them (it runs a handler only as the page spells it); read the "
                     "value from a data- attribute, or move them into a <script>")
    return body.strip() + "\n", notes


def _body_of(page: str) -> tuple[str, list[str]]:
    """The body with head scripts and styles, and what follows </body> kept (as a browser reads it); the rest of
    the head and the <body> tag noted (an onload kept as a listener)."""
    m = re.search(r"<body\b([^>]*)>(.*?)(?:</body\s*>|$)", page, re.S | re.I)
    if not m:
        return page, []
    head, notes = page[:m.start()], []
    rest = re.sub(r"</html\s*>", "", page[m.end():], flags=re.I)
    lost = sorted({t.lower() for t in re.findall(r"<([a-z][a-z0-9-]*)", HEAD_ASSETS.sub("", head), re.I)}
                  - {"html", "head", "meta", "title", "!doctype"})
    if lost:
        notes.append(f"the page's <head> held {', '.join('<' + t + '>' for t in lost)}, dropped: hitflow's page has "
                     "its own head; put what the page needs in its body")
    onload = re.search(r"""\bonload\s*=\s*(["'])(.*?)\1""", m.group(1), re.I | re.S)
    kept = ("<script>\nwindow.addEventListener(\"load\", function (event) { " + html_text.unescape(onload.group(2))
            .replace("</", "<\\/") + " });\n</script>\n") if onload else ""
    others = sorted(set(re.findall(r"\b([a-z-]+)\s*=", m.group(1), re.I)) - {"onload"})
    if onload:
        notes.append("the <body>'s onload now runs as a load listener (hitflow's page has its own <body>); check "
                     "that it still does its work once hitflow's own scripts have run")
    if others:
        notes.append(f"the <body>'s {', '.join(others)} dropped: hitflow's page has its own <body>; put them "
                     "on an element around the page's content")
    return "".join(a.group(0) + "\n" for a in HEAD_ASSETS.finditer(head)) + kept + m.group(2) + rest, notes


def _submit_listener(code: str) -> str:
    """The page's ``<form onsubmit>`` as a listener on hitflow's form: ``return false`` still stops the submit."""
    body = code.replace("</", "<\\/")  # the handler's text cannot close the script it now sits in
    return ("\n<script>\n" + OWN_SUBMIT_HOOK + "function (event) {\n  if ((function (event) { " + body
            + " }).call(this, event) === false) { event.preventDefault(); }\n});\n</script>\n")


def rename_fields(body: str) -> tuple[str, list[str], list[str]]:
    """``name="x"`` -> ``name="x_{{ i }}"`` on every control; the platforms' session fields unposted (their ids
    returned last, for the scripts that read them)."""
    names: list[str] = []
    session_ids: list[str] = []

    def one(tag: re.Match[str]) -> str:
        m, name = NAME_ATTR.search(tag.group(0)), tag_name(tag.group(0))
        if not m or not name or "{{" in name:
            return tag.group(0)
        if name in SESSION_FIELDS:
            session_ids.extend([name] + [i[1] for i in ID.finditer(tag.group(0))])
            return session_stand_in(tag.group(0), m)
        names.append(name)
        return tag.group(0)[:m.start()] + f'{m.group(1)}"{name}_{{{{ i }}}}"' + tag.group(0)[m.end():]
    return FIELD_TAG.sub(one, body), list(dict.fromkeys(names)), list(dict.fromkeys(session_ids))
