"""Text telemetry added to every rendered page with a free-text field (docs/telemetry.md)."""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from markupsafe import escape

from flows.core.pages.templates import render
from flows.core.pages.tolerant_html import TolerantHTMLParser
from qc.worker_values import nesting_depth

FIELD = "hitflow_telemetry"
FORMS = ("form", "crowd-form")
# input types a person types prose into; crowd-input draws an <input> of its own type attribute
FREE_TEXT_TYPES = ("text", "search", "")
# Five captions take about 6 KB (docs/telemetry.md); a page of many text fields may take more.
MAX_TELEMETRY_CHARS = 64 * 1024
MAX_TELEMETRY_DEPTH = 8  # the format nests 5 deep ({"f": {name: {"paste": [[...]]}}})
logger = logging.getLogger("hitflow.task_server")


_FORM_START = re.compile(r"<(?:form|crowd-form)\b", re.I)
_HAS_FIELD = re.compile(r"""\bname\s*=\s*["']?hitflow_telemetry\b""", re.I)
# Part of every _HAS_FIELD match, found ~20x faster: a page without it cannot hold the field.
_FIELD_PART = re.compile("_telemetry", re.I)
# Read from the first form this much at a time, doubling, stopping at its first text field.
FIRST_CHUNK, CHUNK = 512, 4096
FREE_TEXT_TAGS = ("textarea", "crowd-text-area", "input", "crowd-input")  # the only tags _free_text may pass


class _FreeTextForm(TolerantHTMLParser):
    """Where the first form holding a free-text control opens (``found``), or None."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.found: int | None = None
        self._open: tuple[str, int] | None = None  # (tag, offset just after its start tag)
        first = _first_form(html)
        if first is None:
            return
        self._base, self._text = first, html[first:]
        if not _may_hold_free_text(self._text):
            return
        self._line_starts = [0]  # where each line of _text starts, as getpos() counts lines: found as needed
        at, size = 0, FIRST_CHUNK
        while at < len(self._text) and self.found is None:
            self.feed(self._text[at:at + size])
            at, size = at + size, min(size * 2, CHUNK)

    def _offset(self) -> int:
        line, column = self.getpos()
        while len(self._line_starts) < line:
            self._line_starts.append(self._text.index("\n", self._line_starts[-1]) + 1)
        return self._base + self._line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        if tag in FORMS and self._open is None:
            self._open = (tag, self._offset() + len(self.get_starttag_text() or ""))
        elif self._open is not None and self.found is None and tag in FREE_TEXT_TAGS and \
                _free_text(tag, {k: v or "" for k, v in attrs_list}):
            self.found = self._open[1]

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == self._open[0]:
            self._open = None


# Where a start tag of a free-text control may begin (a tag name ends at one of these characters).
_CANDIDATE = re.compile(r"<(?:textarea|crowd-text-area|input|crowd-input)(?=[\t\n\r\f />\x00])", re.I)


class _TagReader(TolerantHTMLParser):
    """One start tag read as the parser reads it in a page (``parse_starttag`` at its ``<``)."""

    read: tuple[str, dict[str, str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.read = (tag, {k: v or "" for k, v in attrs})


def _may_hold_free_text(text: str) -> bool:
    """False only when no start tag in ``text`` can be a free-text control (the page need not be parsed)."""
    found = [(m.start(), m[0].lower().endswith("area")) for m in _CANDIDATE.finditer(text)]
    for at in [*(at for at, area in found if area), *(at for at, area in reversed(found) if not area)]:
        simple = _SIMPLE_TAG.match(text, at)
        if _tag_may_be_free_text(_decisive(simple[0])) if simple else _read_may_be_free_text(text, at):
            return True
    return False


# A start tag of plain ``name="value"`` attributes, parsed the same wherever it stands: kept by its text.
_SIMPLE_TAG = re.compile(r"<[a-zA-Z-]+(?:\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*"
                         r"""(?:\s*=\s*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'=<>`]+))?)*\s*/?>""")


# One attribute with a value in a plain tag; only ``type``'s value decides (and which attributes are there).
_VALUED = re.compile(r"""(\s+)([a-zA-Z_:][-a-zA-Z0-9_:.]*)(\s*=\s*)("[^"<>]*"|'[^'<>]*'|[^\s"'=<>`]+)""")


def _decisive(tag: str) -> str:
    """A plain tag with every value but ``type``'s emptied (as far as free text goes, the same tag)."""
    return _VALUED.sub(lambda m: m[0] if m[2].lower() == "type" else f'{m[1]}{m[2]}{m[3]}""', tag)


@lru_cache(maxsize=4096)
def _tag_may_be_free_text(tag: str) -> bool:
    return _read_may_be_free_text(tag, 0)


def _read_may_be_free_text(text: str, at: int) -> bool:
    """The start tag at ``at`` read as the parse reads it there: unfinished, or a free-text control."""
    reader = _TagReader(convert_charrefs=True)
    reader.rawdata = text
    return reader.parse_starttag(at) < 0 or reader.read is None or _free_text(*reader.read)


def _first_form(html: str) -> int | None:
    """Where the first form tag starts that is markup, not text in a script or a comment."""
    for m in _FORM_START.finditer(html):
        before = html[:m.start()].lower()
        if before.rfind("<script") <= before.rfind("</script") and before.rfind("<!--") <= before.rfind("-->"):
            return m.start()
    return None


def _free_text(tag: str, attrs: dict[str, str]) -> bool:
    if "disabled" in attrs or "readonly" in attrs:
        return False
    if tag in ("textarea", "crowd-text-area"):
        return True
    return tag in ("input", "crowd-input") and attrs.get("type", "").lower() in FREE_TEXT_TYPES


def with_telemetry(html: str, notice: str, nonce: str = "") -> str:
    """The page with the notice, hidden field and recorder when it has free text in a form; else unchanged."""
    if _FIELD_PART.search(html) and _HAS_FIELD.search(html):
        return html
    start = _FreeTextForm(html).found
    if start is None:
        return html
    field, script = _field(notice), _script(nonce)
    page = html[:start] + field + html[start:]  # first in the form: read before anything is typed
    body_end = page.lower().rfind("</body")
    return page[:body_end] + script + page[body_end:] if body_end >= 0 else page + script


@lru_cache(maxsize=16)
def _field(notice: str) -> str:
    return render("_telemetry_field.html.j2", {"notice": notice, "field": FIELD})


_NONCE_MARK = "\ue000nonce\ue000"  # private-use characters: nothing the template holds


@lru_cache(maxsize=1)
def _script_template() -> str:
    return render("_telemetry_script.html.j2", {"csp_nonce": _NONCE_MARK})


def _script(nonce: str) -> str:
    """The recorder rendered once; each page's CSP nonce (one per task server response) put in."""
    return _script_template().replace(_NONCE_MARK, str(escape(nonce)))


def telemetry_refusal(value: str) -> str:
    """Why a telemetry value is not stored as sent (too long, too deep), "" when it may be."""
    if len(value) > MAX_TELEMETRY_CHARS:
        return f"{len(value)} characters, over the {MAX_TELEMETRY_CHARS} a page's recorder writes"
    if nesting_depth(value) > MAX_TELEMETRY_DEPTH:
        return f"nested more than {MAX_TELEMETRY_DEPTH} levels deep, which the format never is"
    return ""


def bounded_telemetry(fields: dict[str, str]) -> dict[str, str]:
    """``fields`` with a telemetry value no recorder writes replaced by ``refused: <why>``."""
    why = telemetry_refusal(fields.get(FIELD, ""))
    if not why:
        return fields
    logger.warning("task server: telemetry refused (%s); the rest of the answer is kept", why)
    return {**fields, FIELD: f"refused: {why}"}
