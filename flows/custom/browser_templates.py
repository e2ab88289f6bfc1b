"""In-browser templates of an imported page (Mustache, Handlebars) kept as text, each ``{{ ... }}`` kept noted."""

from __future__ import annotations

import bisect
import re

from flows.custom.foreign_syntax import line_finder

# a <script> whose body is a template a script renders (Handlebars, Mustache, Underscore, Vue's x-template...)
TEMPLATE_SCRIPT = re.compile(r"<script\b[^>]{0,400}?\btype\s*=\s*[\"']?(text/(?:x-handlebars(?:-template)?|"
                             r"x-mustache(?:-template)?|x-template|template|html|x-jsrender|ng-template|"
                             r"x-tmpl(?:-mustache)?))\b[^>]{0,400}>", re.I)
SCRIPT_END = re.compile(r"</script\s*>", re.I)
# the page loads or calls a library that renders {{ ... }} in the browser
BROWSER_RENDERER = re.compile(r"<script\b[^>]{0,400}?\bsrc\s*=\s*[\"']?[^\"'>\s]{0,300}?\b(handlebars|mustache)"
                              r"[^\"'>\s]{0,100}|\b(Handlebars)\.compile\s*\(|\b(Mustache)\.render\s*\(", re.I)
KEPT = re.compile(r"\{\{\{.{0,300}?\}\}\}|\{\{.{0,300}?\}\}|\{%.{0,300}?%\}", re.S)
HANDLEBARS_ONLY = re.compile(r"^\{\{(?:[#/>^!]|\{)")
SHOWN = 30  # notes on kept expressions: this many, then how many more


def renderer(source: str) -> str:
    """"Handlebars" or "Mustache" when the page renders its templates in the browser, else ""."""
    m = BROWSER_RENDERER.search(source)
    if not m:
        return ""
    name = next(g for g in m.groups() if g).lower()
    return "Handlebars" if name == "handlebars" else "Mustache"


def browser_template_spans(source: str) -> list[tuple[int, int, str]]:
    """(start, end, type) of each template script's body, to the first ``</script>``; each end found once."""
    ends = [m.start() for m in SCRIPT_END.finditer(source)]
    spans = []
    for m in TEMPLATE_SCRIPT.finditer(source):
        at = bisect.bisect_left(ends, m.end())
        spans.append((m.end(), ends[at] if at < len(ends) else len(source), m.group(1).lower()))
    return spans


def comment_spans(source: str) -> list[tuple[int, int]]:
    """(start, end) of each HTML comment, found in one pass (an unclosed one runs to the page's end)."""
    spans, at = [], source.find("<!--")
    while at >= 0:
        end = source.find("-->", at + 4)
        spans.append((at, len(source) if end < 0 else end + 3))
        at = -1 if end < 0 else source.find("<!--", end + 3)
    return spans


def in_browser(source: str, offset: int, spans: list[tuple[int, int, str]], library: str) -> bool:
    """Whether the ``{{`` at ``offset`` is rendered by the page's own script: in a template script, or a section."""
    if _span_at(offset, spans) is not None:
        return True
    return bool(library) and bool(HANDLEBARS_ONLY.match(source[offset:offset + 4]))


def _span_at(offset: int, spans: list[tuple[int, int, str]]) -> int | None:
    at = bisect.bisect_right(spans, offset, key=lambda span: span[0]) - 1
    return at if at >= 0 and spans[at][0] <= offset < spans[at][1] else None


def kept_expression_notes(source: str) -> list[tuple[int, str]]:
    """(line, note) for each ``{{ ... }}``/``{% ... %}`` the import keeps as text."""
    spans, library = browser_template_spans(source), renderer(source)
    comments = comment_spans(source)
    starts = [s for s, _ in comments]
    line_at, notes = line_finder(source), []
    in_scripts: dict[int, list[str]] = {}  # template script -> its expressions
    for m in KEPT.finditer(source):
        at = bisect.bisect_right(starts, m.start()) - 1
        if at >= 0 and comments[at][0] <= m.start() < comments[at][1]:
            continue  # a comment is dropped, and what it mentions with it
        code = " ".join(m.group(0).split())[:80]
        span = _span_at(m.start(), spans)
        if span is not None:
            in_scripts.setdefault(span, []).append(code)
        else:
            notes.append((line_at(m.start()), _note(code, in_browser(source, m.start(), spans, library), library)))
    notes += [(line_at(spans[n][0]), _script_note(spans[n][2], codes, library)) for n, codes in in_scripts.items()]
    notes.sort()
    if len(notes) > SHOWN:
        return [*notes[:SHOWN], (notes[SHOWN][0], f"and {len(notes) - SHOWN:,} more {{{{ ... }}}} kept as text")]
    return notes


def _script_note(script_type: str, codes: list[str], library: str) -> str:
    engine = library or ("Handlebars" if "handlebars" in script_type else "Mustache/Handlebars")
    shown = ", ".join(repr(c) for c in list(dict.fromkeys(codes))[:8]) + (", ..." if len(set(codes)) > 8 else "")
    return (f"the <script type=\"{script_type}\"> is a {engine} template the page's own script renders in the "
            f"worker's browser, not server-side code and not Jinja: its {len(codes)} expression(s) ({shown}) are "
            "kept as written for that script; check in `hitflow preview` that it still finds and fills them")


def _note(code: str, browser: bool, library: str) -> str:
    if browser:
        return (f"{code!r} is a {library} section the page's own script renders in the worker's browser, not "
                "server-side code and not Jinja: kept as written for that script; check in `hitflow preview` that "
                "it still fills it")
    if HANDLEBARS_ONLY.match(code):
        return (f"{code!r} is Mustache/Handlebars syntax no script of the page renders: kept as text, a worker "
                "would see it as written; write what it stood for into the page")
    unless = f" unless the page's {library} script fills it" if library else ""
    return (f"{code!r} is kept as text, shown as written{unless} (hitflow runs no expression of a page from "
            "elsewhere): for an item's value write ${column}; if you wrote it for hitflow, import again with "
            "--keep-jinja")


FIELD_TAG = re.compile(r"<(input|select|textarea)\b[^>]{0,400}?\bname\s*=\s*[\"']?([^\"'\s>]{1,200})", re.I)


def fields_in_templates(source: str) -> list[tuple[int, str, str]]:
    """(line, field name, script type) of each named control inside an in-browser template: not a field as served."""
    line_at, found = line_finder(source), []
    for start, end, kind in browser_template_spans(source):
        for m in FIELD_TAG.finditer(source, start, end):
            if m.group(1).lower() != "input" or not re.search(r"type\s*=\s*[\"']?(hidden|submit|button)\b",
                                                              m.group(0), re.I):
                found.append((line_at(m.start()), m.group(2), kind))
    return found


def raw_browser_templates(source: str) -> tuple[str, list[tuple[int, str]]]:
    """A ``--keep-jinja`` page with template scripts holding ``{{``/``{%`` in ``{% raw %}``; returns (text, notes)."""
    line_at, notes, pieces, last = line_finder(source), [], [], 0
    for start, end, kind in browser_template_spans(source):
        if start < last:
            continue  # inside an unclosed one before it
        body = source[start:end]
        if not re.search(r"\{[{%]", body) or re.search(r"\{%-?\s*(?:end)?raw\b", body):
            continue  # nothing Jinja would read, or the user's own raw block already
        pieces += [source[last:start], "{% raw %}", body, "{% endraw %}"]
        last = end
        notes.append((line_at(start), f"the <script type=\"{kind}\"> is a template the page's own script renders in "
                      "the browser (Mustache/Handlebars), not hitflow's Jinja: kept as written in {% raw %}; check "
                      "in `hitflow preview` that the script still finds and fills it"))
    return "".join(pieces) + source[last:], notes
