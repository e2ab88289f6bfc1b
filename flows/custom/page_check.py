"""Whether workers can answer the user's page and hitflow read it back, lest honest workers pay for its defect."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path
from typing import Any

from flows.core.pages.crowd_elements import unreadable_crowd_elements
from flows.core.pages.tolerant_html import TolerantHTMLParser
from flows.custom.browser_templates import browser_template_spans, in_browser, renderer
from flows.custom.foreign_syntax import line_finder, line_of
from qc.page_patterns import PatternRefused, page_pattern

FOREIGN = (
    (re.compile(r"\$\{\s*[A-Za-z_][\w.\-]*\s*\}"), "an MTurk requester-UI placeholder"),
    (re.compile(r"\{\{.*?\}\}", re.S), "a Liquid/Mustache placeholder"),
    (re.compile(r"\{%.*?%\}", re.S), "a Liquid tag"),
)
# the wrapper's root past declarations and comments (atomic and possessive, so no backtracking blow-up)
QUESTION_XML = re.compile(r"^\s*(?>(?:<\?.*?\?>|<!--.*?-->)\s*)*+<(HTMLQuestion|ExternalQuestion|QuestionForm)\b",
                          re.S)
ANY_TAG = re.compile(r"<[A-Za-z][\w-]*[\s/>]")
CODE_TAGS = ("script", "style")
NAMED_CONTROLS = ("input", "textarea", "select")
NOT_ANSWERS = ("hidden", "submit", "button", "image", "reset")


def source_problems(path: Path) -> tuple[str | None, list[str]]:
    """The template's text, or None with the reason it is not an HTML page at all."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, [f"{path}: cannot be read ({exc.strerror or exc})"]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if not text or "\x00" in text:
        return None, [f"{path}: is not a text file (binary or not UTF-8); the template must be an HTML page"]
    if m := QUESTION_XML.match(text):
        return None, [f"{path}: is MTurk question XML (<{m[1]}>), not an HTML page; put the page inside "
                      "<HTMLContent> into the template, or bring a QuestionForm in as a campaign of its own"]
    return text, []


class _PageScan(TolerantHTMLParser):
    """Leftover placeholders, nested forms and unnamed controls, with the rendered page's line."""

    def __init__(self, item_text: set[str], scripted: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.item_text, self.depth, self.in_code, self.scripted = item_text, 0, 0, scripted
        self.found: list[tuple[int, str]] = []  # (rendered line, problem)
        self.buttons: dict[str, int] = {}  # each radio or checkbox name -> its buttons
        self.valueless: list[tuple[int, str, str, str]] = []  # (line, kind, name, field) of a button with no value

    def _foreign(self, text: str) -> None:
        for pattern, what in FOREIGN:
            for m in pattern.finditer(text):
                if not any(m[0] in value for value in self.item_text):  # an item's own text is shown as it is
                    self.found.append((self.getpos()[0], f"{what} {m[0][:60]!r} is left over: a worker would "
                                       "see it literally; write it as {{ item.<column> }} (Jinja; "
                                       "{{ item['<column-with-hyphens>'] }} for a column with a hyphen)"))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self._foreign(" ".join(values.values()))
        if tag in CODE_TAGS:
            self.in_code += 1
        if tag == "form":
            self.depth += 1
            if self.depth > 1:
                self.found.append((self.getpos()[0], "a <form> inside the page's form: browsers drop the inner "
                                   "<form> and its </form> ends the page's form early, so later fields are never "
                                   "submitted; remove the page's own <form> and </form> tags"))
        kind = values.get("type", "text").lower()
        if tag in NAMED_CONTROLS and not values.get("name") and kind not in NOT_ANSWERS and "disabled" not in values \
                and "data-unposted" not in values \
                and not self.scripted:  # a page whose script writes the answer reads its unnamed controls itself
            self.found.append((self.getpos()[0], f"a <{tag}> without a name is never submitted: its answer would "
                               "be lost; give it name=\"<field>_{{ i }}\""))
        field = re.sub(r"_\d+$", "", values.get("name", ""))
        if tag == "input" and kind in ("radio", "checkbox") and field:
            self.buttons[values["name"]] = self.buttons.get(values["name"], 0) + 1
        if tag == "input" and kind in ("radio", "checkbox") and field and "value" not in values \
                and not self.scripted:  # the browser posts "on" for it: which option was chosen is lost
            self.valueless.append((self.getpos()[0], kind, values["name"], field))

    def close(self) -> None:
        super().close()
        # a checkbox alone under its name loses nothing by "on": ticked or not is its whole answer
        self.found += [(line, f"a {kind} button of '{field}' without a value posts \"on\", whichever is chosen: "
                        "the answer would be lost; give each button value=\"<option>\"")
                       for line, kind, name, field in self.valueless if kind == "radio" or self.buttons[name] > 1]

    def handle_endtag(self, tag: str) -> None:
        if tag in CODE_TAGS:
            self.in_code = max(0, self.in_code - 1)
        if tag == "form":
            self.depth = max(0, self.depth - 1)

    def handle_data(self, data: str) -> None:
        if not self.in_code:  # ${x} in a script is a JavaScript template literal, not a placeholder
            self._foreign(data)


def _source_line(source: str, snippet: str) -> str:
    """``:N`` of the template line holding the snippet, when the template holds it."""
    for n, line in enumerate(source.splitlines(), 1):
        if snippet and snippet in line:
            return f":{n}"
    return ""


def page_problems(path: Path, source: str, page: str, item_text: set[str], scripted: bool = False) -> list[str]:
    """What makes the rendered ``page`` unreadable, a line each with its line and fix (``scripted``: script answers)."""
    if not ANY_TAG.search(page):
        return [f"{path}: holds no HTML element at all; the template must be an HTML page (it usually "
                "starts with {% extends \"_custom_page.html.j2\" %})"]
    scan = _PageScan({html_lib.unescape(t) for t in item_text if t}, scripted)
    scan.feed(page)
    scan.close()
    lines = page.splitlines()
    out = []
    for n, problem in scan.found:
        rendered = lines[n - 1].strip() if 0 < n <= len(lines) else ""
        quoted = re.search(r"'(.+?)'", problem)
        where = _source_line(source, quoted[1] if quoted else "") or _source_line(source, rendered[:40])
        out.append(f"{path}{where or f' (rendered line {n})'}: {problem}")
    out += [f"{path}: {p}" for p in unreadable_crowd_elements(page)]
    out += [f"{path}:{n}: {what}" for n, what in server_side_blocks(source, other_engines=False)]
    return list(dict.fromkeys(out))


# Server-side templates: hitflow serves the page as is, so their code never runs; matches are bounded (no rescans) ----
MUSTACHE = "Handlebars/Mustache"
SERVER_SIDE = (
    (re.compile(r"<\?(?:php\b|=)(?:.{0,2000}?\?>|[^\n]{0,120})", re.S | re.I), "PHP"),
    (re.compile(r"<%(?:.{0,2000}?%>|[^\n]{0,120})", re.S), "ASP/JSP/ERB/EJS"),
    (re.compile(r"\{\{\{.{0,300}?\}\}\}|\{\{[#/^>](?:.{0,300}?\}\}|[^\n]{0,60})", re.S), MUSTACHE),
)
# tags of Django, Jinja or Twig pages (not Ground Truth's Liquid, not hitflow's own Jinja)
OTHER_ENGINE_TAGS = re.compile(r"\{%-?\s*(?:extends|block|include|load|url|csrf_token|static|trans|blocktrans|with|"
                               r"macro|import|from|autoescape|spaceless|verbatim|cycle|firstof|now|regroup)\b"
                               r"(?:.{0,300}?%\}|[^\n]{0,60})", re.S)
HITFLOW_PAGE = re.compile(r"\{%-?\s*extends\s+[\"']_(custom|crowd)_page\.html\.j2[\"']")
SHOWN_BLOCKS = 30  # a refusal lists this many blocks, then how many more


# What to do with a block, importing (only ${column} read, unless --keep-jinja) and in a template (hitflow's Jinja).
IMPORT_ADVICE = ("write what it printed into the page and import again: the part it repeats per item once, without "
                 "the loop (hitflow shows one item per page), each field named plainly (name=\"caption\": hitflow "
                 "adds the item's index), per-item values as ${column} (a column of the item file), or as "
                 "{{ item.<column> }} with --keep-jinja (without it they are kept as text)")
# no script of the page renders the section: say how a page that does so in the browser is read
IN_BROWSER = ("; if the page's own script renders it in the worker's browser, put it in a <script "
              "type=\"text/x-handlebars-template\"> or load handlebars/mustache on the page, and it is kept as written")
TEMPLATE_ADVICE = "write what it printed into the template, per-item values as {{ item.<column> }}"


def server_side_blocks(source: str, other_engines: bool = True) -> list[tuple[int, str]]:
    """(line, what) for each block of another engine's server code (``other_engines``: Jinja too), and its fields."""
    found: list[tuple[int, str, str]] = []
    engines = other_engines and not HITFLOW_PAGE.search(source)
    patterns = [*SERVER_SIDE, *([(OTHER_ENGINE_TAGS, "Django/Jinja/Twig")] if engines else [])]
    for pattern, engine in patterns:
        found += [(m.start(), engine, " ".join(m.group(0).split())[:80]) for m in pattern.finditer(source)]
    # Mustache/Handlebars the page's own script renders in the browser: it still runs on hitflow's page
    spans, library = browser_template_spans(source), renderer(source)
    found = sorted(f for f in found if f[1] != MUSTACHE or not in_browser(source, f[0], spans, library))
    advice = IMPORT_ADVICE if other_engines else TEMPLATE_ADVICE
    out = [(line_of(source, at), f"{engine} server-side code {code!r} runs on the requester's own server before the "
            f"page is sent; hitflow serves the page as it is, so it would never run and what it prints (names, values, "
            f"items) would be lost: {advice}{IN_BROWSER if engine == MUSTACHE else ''}")
           for at, engine, code in found[:SHOWN_BLOCKS]]
    if len(found) > SHOWN_BLOCKS:
        more = len(found) - SHOWN_BLOCKS
        out.append((line_of(source, found[SHOWN_BLOCKS][0]), f"and {more} more server-side block(s)"))
    if found:
        out += printed_field_names(source, [p for p, _ in patterns])
    return out


# a control's name attribute, quoted (the server's code inside it may hold the other quote)
CONTROL_NAME = re.compile(r"<(input|textarea|select|crowd-[\w-]+)\b[^>]{0,2000}?\sname\s*=\s*"
                          r"(\"[^\"]{0,400}\"|'[^']{0,400}')", re.I | re.S)


def printed_field_names(source: str, patterns: list[re.Pattern[str]]) -> list[tuple[int, str]]:
    """(line, what) per answer field whose name server code prints (a loop's caption0, caption1... is one field)."""
    out = []
    for m in CONTROL_NAME.finditer(source):
        name = m.group(2)[1:-1]
        code = [c for p in patterns for c in p.findall(name)]
        if code:
            plain = name
            for c in code:
                plain = plain.replace(c, "")
            out.append((line_of(source, m.start()), f"the <{m.group(1).lower()}> named {name[:80]!r}: its name is "
                        "printed by the server's code, so hitflow would not see this field as written; name it "
                        f"plainly (name=\"{plain.strip() or '<field>'}\")"))
    return out[:SHOWN_BLOCKS]


# ---- each ``pattern`` a browser ignores or no linear-time engine matches, named, so an answer never stalls QC ----
# an input's pattern attribute (HTML has none on a textarea): quoted either way, or bare
PATTERN_ATTR = re.compile(r"""<input\b[^>]*?\spattern\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s>"']+))""",
                          re.I)
# a QuestionForm's AnswerFormatRegex, which becomes its input's pattern (flows/custom/question_form_page.py)
REGEX_ATTR = re.compile(r"""<(?:\w+:)?AnswerFormatRegex\b[^>]*?\sregex\s*=\s*"""
                        r"""(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>))""")
PLACEHOLDERS = ("{{", "{%", "${")  # filled per item: judged on the rendered page (the dry run)
FIX = "write it in the syntax a browser reads (JavaScript, the v flag) without back-references or look-arounds, " \
      "or drop it and check the format in the answers"


def refused_pattern_lines(page: str, question_form: bool = False) -> list[tuple[int, str]]:
    """(line, problem) for each ``pattern`` attribute (or ``AnswerFormatRegex``) of ``page`` that QC refuses."""
    line = line_finder(page)
    found = []
    for m in (REGEX_ATTR if question_form else PATTERN_ATTR).finditer(page):
        value = html_lib.unescape(m["dq"] if m["dq"] is not None else m["sq"] if m["sq"] is not None else m["bare"])
        why = page_pattern(value)
        if isinstance(why, PatternRefused) and not any(p in value for p in PLACEHOLDERS):
            found.append((line(m.start()), f"the pattern {value[:80]!r} cannot be checked: {why}; {FIX}"))
    return found


def refused_pattern_problems(spec: dict[str, Any]) -> list[str]:
    """One problem for each field of a page's rules (qc/form_constraints.py) whose pattern QC refuses."""
    return [f"field {f['name']}: the pattern {f['pattern'][:80]!r} cannot be checked: {why}; {FIX}"
            for f in spec.get("fields", []) if f.get("pattern")
            and isinstance(why := page_pattern(str(f["pattern"])), PatternRefused)]
