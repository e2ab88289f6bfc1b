"""Where each placeholder of an imported page stands in its HTML; places autoescape cannot protect are refused."""

from __future__ import annotations

import re
from dataclasses import dataclass

from flows.core.pages.css_values import style_place_problem
from flows.core.pages.tolerant_html import TolerantHTMLParser

# Unicode noncharacters: never text of a page, and no part of HTML's syntax
MARK = re.compile("\ufdd0(\\d+)\ufdd1")
URL_ATTRIBUTES = frozenset(("href", "src", "action", "formaction", "poster", "background", "cite", "data",
                            "codebase", "longdesc", "usemap", "icon", "manifest", "ping", "xlink:href", "lowsrc",
                            "dynsrc", "archive", "classid", "profile", "srcset", "imagesrcset"))
# attributes whose value loads code or decides where the answers go
CODE_SOURCES = {"script": ("src", "href", "xlink:href"), "link": ("href",), "base": ("href",),
                "object": ("data", "codebase", "classid"), "embed": ("src",), "applet": ("code", "codebase", "archive")}
SENDS_ANSWERS = ("formaction",)
FRAMES = ("iframe", "frame")  # a page of the item's choosing, its script running beside the task's
# what a frame's address holds before a placeholder for the host to be the page's: https://host/, /path, ./
FIXED_HOST = re.compile(r"\s*(?:https?://[^/\\\s]+/|/[^/\\]|\.{1,2}/)", re.I)
# a <script> of these types is JavaScript or JSON data; any other (text/template...) holds HTML a script inserts
SCRIPT_TYPES = frozenset(("", "text/javascript", "application/javascript", "module", "text/ecmascript",
                          "application/ecmascript", "application/x-javascript", "text/x-javascript", "text/jscript",
                          "application/json", "application/ld+json"))
SVG_ANIMATION = frozenset(("animate", "set", "animatemotion", "animatetransform"))
MOVE_OUT = "put the value in an element's text or a quoted attribute instead"
# what a browser strips from a URL's start and drops anywhere in it (as safe_url reads it)
URL_START_DROPPED, URL_TABS_DROPPED = "".join(map(chr, range(0x21))), dict.fromkeys(map(ord, "\t\n\r"))
SCHEME_SO_FAR = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*\Z")  # text an item's ":..." would make a URL's scheme
SCRIPT_SCHEMES = frozenset(("javascript", "vbscript"))


def mark(n: int) -> str:
    return f"\ufdd0{n}\ufdd1"


def has_marks(text: str) -> bool:
    return "\ufdd0" in text


@dataclass(frozen=True)
class Place:
    kind: str  # text, attribute, url, style, script-string, script-code, script-inside, comment, refused
    why: str = ""  # refused: where it stood and what to do


# a mark the tokenizer reported in no token (none is known): refused rather than guessed
UNREAD = Place("refused", "its place in the page's markup could not be read; check the tags around it")
# one of each place that is not refused, shared by every mark in it (300,000 placeholders: 30 MB of copies)
PLAIN = {kind: Place(kind) for kind in ("text", "attribute", "url", "style", "script-string", "script-code",
                                         "script-inside", "comment")}


class _Events(TolerantHTMLParser):
    """The page's tokens with their offsets: (offset, kind, tag, attributes, raw text)."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.starts = [0] + [m.end() for m in re.finditer("\n", page)]
        self.events: list[tuple[int, str, str, list[tuple[str, str | None]], int]] = []
        self.script_kind = "script"

    def _add(self, kind: str, tag: str = "", attrs: list[tuple[str, str | None]] | None = None) -> None:
        line, column = self.getpos()
        raw = len(self.get_starttag_text() or "") if kind in ("start", "startend") else 0
        self.events.append((self.starts[line - 1] + column, kind, tag, attrs or [], raw))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._add("start", tag, attrs)
        if tag == "script":
            kind = (dict(attrs).get("type") or "").split(";")[0].strip().lower()
            self.script_kind = "script" if kind in SCRIPT_TYPES or kind.startswith("text/javascript") else \
                "script-template"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._add("startend", tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self._add("end", tag)

    def handle_data(self, data: str) -> None:
        self._add(self.script_kind if self.cdata_elem == "script" else self.cdata_elem or "text")

    def handle_comment(self, data: str) -> None:
        self._add("comment")

    def handle_decl(self, decl: str) -> None:
        self._add("text")  # <!DOCTYPE ...>, <?...>, <![...]>: an escaped value holds no ">" to end it

    def handle_pi(self, data: str) -> None:
        self._add("text")

    def unknown_decl(self, data: str) -> None:
        self._add("text")


def places(page: str, drop_comments: bool = False) -> tuple[str, dict[int, Place]]:
    """The page with each tag holding a marked attribute written again (values quoted), and each mark's place."""
    parser = _Events(page)
    parser.feed(page)
    parsed = len(page) - len(parser.rawdata)  # what follows is a tag, comment or script the page never ends
    unfinished = "<script>" if parser.cdata_elem else "tag or comment"
    found: dict[int, Place] = {}
    offsets = [e[0] for e in parser.events]
    pieces, done = [], 0
    for i, (start, kind, tag, attrs, raw) in enumerate(parser.events):
        end = start + raw if raw else offsets[i + 1] if i + 1 < len(offsets) else parsed
        if kind == "comment" and drop_comments and page.startswith("<!--", start):  # it mentions no column
            pieces.append(page[done:start])
            done = end
        elif not has_marks(page[start:end]):
            continue
        elif kind in ("start", "startend"):
            pieces += [page[done:start], _tag_places(page[start:end], tag, attrs, kind == "startend", found)]
            done = end
        else:
            _other_places(page, start, end, kind, found)
    for m in MARK.finditer(page, parsed):
        found[int(m.group(1))] = Place("refused", f"it stands in a {unfinished} the page never closes; close it")
    for start, kind, tag, attrs, raw in parser.events:
        if kind in ("start", "startend") and any('"' in name or "'" in name for name, _ in attrs):
            _unpaired_quote(page, start, page[start:start + raw], tag, attrs, found)
    return "".join(pieces) + page[done:], found


def _unpaired_quote(page: str, start: int, raw: str, tag: str, attrs: list[tuple[str, str | None]],
                    found: dict[int, Place]) -> None:
    """A quote html.parser took into an attribute name opens a browser value past the tag's ``>``: marks in it."""
    for name, _ in attrs:
        quote = next((c for c in name if c in "\"'"), "")
        at = raw.lower().find(name) if quote else -1
        if at < 0:
            continue
        opened = start + at + name.index(quote)
        closed = page.find(quote, opened + 1)
        line = page.count("\n", 0, start) + 1
        for m in MARK.finditer(page, start, len(page) if closed < 0 else closed):
            found[int(m.group(1))] = Place("refused", f"it follows <{tag}> on line {line}, whose {quote} opens a "
                                                      "value a browser reads past the tag's >; pair that tag's quotes")


def _tag_places(raw: str, tag: str, attrs: list[tuple[str, str | None]], closed: bool,
                found: dict[int, Place]) -> str:
    for name, value in attrs:
        for m in MARK.finditer(name):
            found[int(m.group(1))] = Place("refused", f"it stands in the name of an attribute of <{tag}>; "
                                                      f"an item may give a value only: {MOVE_OUT}")
        for m in MARK.finditer(value or ""):
            why = _scheme_risk(value or "", m) if name in URL_ATTRIBUTES else \
                style_place_problem(value or "", m.start(), m.end()) if name == "style" else ""
            found[int(m.group(1))] = Place("refused", f"it stands in <{tag} {name}>, where {why}") if why else \
                _attribute_place(tag, name, not FIXED_HOST.match((value or "")[:m.start()]))
    for m in MARK.finditer(raw):
        found.setdefault(int(m.group(1)), Place("refused", "it stands in a tag's name; an item may give a value "
                                                           f"only: {MOVE_OUT}"))
    written = "".join(f" {name}" if value is None else f" {name}={_quoted(value)}" for name, value in attrs)
    return f"<{tag}{written}{' /' if closed else ''}>"


def _quoted(value: str) -> str:
    """An attribute's value in quotes: single around a value holding double ones, else double."""
    text = value.replace("&", "&amp;")
    return f"'{text}'" if '"' in text and "'" not in text else '"' + text.replace('"', "&quot;") + '"'


def _scheme_risk(value: str, m: re.Match[str]) -> str:
    """Why the item's text at ``m`` could make a URL attribute run script, or "": safe_url sees only the item's part, so
    a scheme built around it (``${t}:alert(1)``) or a page's own ``javascript:`` URL passes it."""
    before = value[:m.start()].lstrip(URL_START_DROPPED).translate(URL_TABS_DROPPED)
    after = value[m.end():].translate(URL_TABS_DROPPED)
    head = re.split(r"[/?#]", before, maxsplit=1)[0]
    if ":" in head:
        scheme = head.split(":", 1)[0]
        if has_marks(scheme):
            return "an item's text would pick the URL's scheme (javascript:); write the scheme into the page"
        return f"the page's own {scheme.lower()}: URL would run the item's text as script; move the script into " \
               "a <script> that reads the value from a data- attribute" if scheme.lower() in SCRIPT_SCHEMES else ""
    if head != before:  # past the first / ? or #, the page's text has no scheme: a path, query or fragment
        return ""
    if has_marks(head) or SCHEME_SO_FAR.match(head) or ":" in re.split(r"[/?#]", after, maxsplit=1)[0]:
        return "an item's text would make the URL's scheme (javascript:) with the page's text around it; " \
               "write the address's start (https://host/) into the page"
    return ""


def _attribute_place(tag: str, name: str, picks_host: bool) -> Place:
    if name.startswith("on"):
        return Place("refused", f"it stands in the event handler {name}= of <{tag}>, which the browser runs as "
                                "script after decoding the escaped text; move the handler into a <script> that "
                                f"reads the value from a data- attribute (data-value=\"...\")")
    if name == "srcdoc":
        return Place("refused", f"it stands in <{tag} srcdoc>, whose value the browser decodes and shows as a "
                                "page of its own (running its markup); show the value outside the frame")
    if name == "style":  # a declaration's value (style_place_problem), read through css_value
        return PLAIN["style"]
    if name in CODE_SOURCES.get(tag, ()) or tag in SVG_ANIMATION:
        return Place("refused", f"it stands in <{tag} {name}>, which loads or sets code from the item's value; "
                                "write the address into the page itself")
    if tag in FRAMES and name == "src" and picks_host:
        return Place("refused", f"it starts <{tag} src>, so the item would pick the page the frame shows and run its "
                                "script; write the address's start (https://host/) into the page")
    if name in SENDS_ANSWERS:
        return Place("refused", f"it stands in <{tag} {name}>, which would send the page's answers to the item's "
                                "address; write the address into the page")
    return PLAIN["url" if name in URL_ATTRIBUTES else "attribute"]


def _other_places(page: str, start: int, end: int, kind: str, found: dict[int, Place]) -> None:
    text = page[start:end]
    if kind == "script-template":
        for m in MARK.finditer(text):
            found[int(m.group(1))] = Place("refused", "it stands in a <script> of a type that is not JavaScript "
                                                      "(an HTML template a script inserts), where no escaping keeps "
                                                      f"markup out; {MOVE_OUT}")
        return
    if kind == "script":
        for n, where in script_places(text, MARK).items():
            found[n] = PLAIN[f"script-{where}"]
        return
    for m in MARK.finditer(text):
        at = start + m.start()
        if kind == "style":
            found[int(m.group(1))] = Place("refused", "it stands in a <style> element, which would let the item "
                                                      "write CSS; use a class chosen by the item's value instead")
        elif kind == "end" or page[at - 1:at] == "<" or page[at - 2:at] in ("</", "<!"):
            found[int(m.group(1))] = Place("refused", "it stands where a tag's name goes (right after <); an item "
                                                      f"may give a value only: {MOVE_OUT}")
        else:
            found[int(m.group(1))] = PLAIN["comment" if kind == "comment" else "text"]


# Where a placeholder stands in a page's script (a small JS lexer): only a whole string literal is safe to fill.
# JavaScript tokens enough to tell strings, templates, comments and regexes from code; unterminated ones run to the end.
TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n\r\u2028\u2029]*|/\*.*?(?:\*/|\Z))
  | (?P<string>'(?:[^'\\\n\r]|\\.)*(?:'|$)|"(?:[^"\\\n\r]|\\.)*(?:"|$))
  | (?P<template>`(?:[^`\\]|\\.)*(?:`|\Z))
  | (?P<word>[\w$\ufdd0\ufdd1]+)
  | (?P<open>\()
  | (?P<close>[)\]}])
  | (?P<slash>/)
  | (?P<other>.)
""", re.S | re.X | re.M)
REGEX_BODY = re.compile(r"(?:[^/\\\n\r\[]|\\.|\[(?:[^\]\\\n\r]|\\.)*\])+/[A-Za-z]*")
# after these words a "/" starts a regular expression, not a division
REGEX_AFTER_WORDS = frozenset(("return", "typeof", "case", "do", "else", "in", "instanceof", "new", "delete",
                               "void", "throw", "yield", "await", "of"))
# a "/" after the ")" of their condition starts a regular expression too (``if (a) /x/.test(b)``)
CONDITION_WORDS = frozenset(("if", "while", "for", "with"))


def script_places(code: str, mark: re.Pattern[str]) -> dict[int, str]:
    """Per placeholder mark in ``code``: "string" (whole literal), "code" (code or template literal) or "inside"."""
    places: dict[int, str] = {}
    pos, regex_may_follow, previous = 0, True, ""
    conditions: list[bool] = []  # for each open "(": whether it holds an if/while/for/with condition
    while pos < len(code):
        m = TOKEN.match(code, pos)
        assert m is not None  # "other" takes any character
        kind, text = m.lastgroup or "", m.group(0)
        if kind == "slash" and regex_may_follow and (body := REGEX_BODY.match(code, m.end())):
            kind, text = "regex", code[pos:body.end()]
        _place_marks(kind, text, mark, places)
        if kind not in ("space", "comment"):
            regex_may_follow = _regex_may_follow(kind, text, previous, conditions)
            previous = text
        pos += len(text)
    return places


def _regex_may_follow(kind: str, text: str, previous: str, conditions: list[bool]) -> bool:
    """Whether a "/" after this token starts a regex: after an operator, keyword, "}" or a condition's ")"."""
    if kind == "open":
        conditions.append(previous in CONDITION_WORDS)
        return True
    if text == ")":
        return conditions.pop() if conditions else False
    return text == "}" or kind in ("other", "slash") or (kind == "word" and text in REGEX_AFTER_WORDS)


def _place_marks(kind: str, text: str, mark: re.Pattern[str], places: dict[int, str]) -> None:
    for m in mark.finditer(text):
        if kind == "string" and len(text) >= 2 and text[0] == text[-1] and m.group(0) == text[1:-1]:
            places[int(m.group(1))] = "string"
        elif kind in ("word", "other", "close", "template"):
            places[int(m.group(1))] = "code"
        else:
            places[int(m.group(1))] = "inside"
