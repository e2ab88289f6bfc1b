"""MTurk question XML in, form fields out, and QuestionFormAnswers XML back.

The simulator's workers see what a person sees: the HTML of an HTMLQuestion (or the page
behind an ExternalQuestion), whose form fields they fill.
"""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace
from functools import lru_cache
from html.parser import HTMLParser
from xml.sax.saxutils import escape

from flows.core.pages.crowd_elements import INSTRUCTIONS, FormField, close_radio_group, flat_answers, open_crowd_element
from qc.worker_values import read_json, whole_characters

NS_HTML = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2011-11-11/HTMLQuestion.xsd"
NS_EXTERNAL = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
NS_FORM = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2017-11-06/QuestionForm.xsd"
NS_ANSWERS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"
MAX_QUESTION_BYTES = 65535
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class QuestionError(ValueError):
    pass


@dataclass
class Question:
    kind: str  # HTMLQuestion | ExternalQuestion | QuestionForm
    html: str = ""
    url: str = ""
    form_ids: list[str] = field(default_factory=list)


def parse_question(xml: str) -> Question:
    """Check a Question the way MTurk does: size, well-formedness, schema root."""
    if len(xml.encode("utf-8")) > MAX_QUESTION_BYTES:
        raise QuestionError(f"Question is {len(xml.encode())} bytes; the limit is {MAX_QUESTION_BYTES}")
    try:
        root = ET.fromstring(xml.strip())
    except ET.ParseError as exc:
        raise QuestionError(f"Question is not well-formed XML: {exc}") from exc
    ns, _, local = root.tag[1:].partition("}") if root.tag.startswith("{") else ("", "", root.tag)
    if local == "HTMLQuestion" and ns == NS_HTML:
        html = root.findtext(f"{{{NS_HTML}}}HTMLContent")
        if not html or root.find(f"{{{NS_HTML}}}FrameHeight") is None:
            raise QuestionError("HTMLQuestion needs HTMLContent and FrameHeight")
        return Question("HTMLQuestion", html=html)
    if local == "ExternalQuestion" and ns == NS_EXTERNAL:
        url = root.findtext(f"{{{NS_EXTERNAL}}}ExternalURL") or ""
        if not url.startswith("https://") and not url.startswith("http://127.0.0.1"):
            raise QuestionError("ExternalURL must be an https URL")
        return Question("ExternalQuestion", url=url)
    if local == "QuestionForm" and ns == NS_FORM:
        ids = [e.text or "" for e in root.iter(f"{{{NS_FORM}}}QuestionIdentifier")]
        return Question("QuestionForm", form_ids=ids)
    raise QuestionError(f"Question root {root.tag} is not an HTMLQuestion, ExternalQuestion or QuestionForm "
                        "in its 2011-11-11 / 2006-07-14 / 2017-11-06 namespace")


BUTTON_TYPES = ("submit", "button", "image", "reset", "file")
_SKIPPED_TEXT = ("script", "style", "title", "option", "textarea", "button", "select")
# a choice's own text is a label too (a crowd-radio-button's "Cannot tell what it shows"): not the item's content
_LABEL_TEXT = ("label", "legend", "h1", "h2", "h3", "h4", "h5", "h6", "th", "crowd-radio-button", "crowd-checkbox",
               *INSTRUCTIONS)


class _FormParser(HTMLParser):
    """Form controls as a browser submits them (disabled ones never are), and in document order
    what a worker sees around them: text chunks (``(position, text, is_label)``), images, fields."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.fields: dict[str, FormField] = {}
        self._select: FormField | None = None
        self._textarea: FormField | None = None
        self._open: list[str] = []
        self.texts: list[tuple[int, str, bool]] = []
        self.images: list[tuple[int, str]] = []  # (position, src or alt)
        self.positions: dict[str, int] = {}  # field name -> position of its last control
        self.step = 0
        self.group: FormField | None = None  # an open crowd-radio-group (flows/core/pages/crowd_elements.py)
        self._option_text = False
        self._choice_text = False

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k: v or "" for k, v in attrs_list}
        self.step += 1
        # the text right after a radio button or checkbox (no <label> around it) names that choice
        self._choice_text = tag == "input" and attrs.get("type", "").lower() in ("radio", "checkbox")
        if tag not in ("input", "img", "br", "hr", "meta", "link"):
            self._open.append(tag)
        if tag == "img":
            self.images.append((self.step, attrs.get("alt") or attrs.get("src", "")))
        name = attrs.get("name", "")
        if tag.startswith("crowd-"):
            open_crowd_element(self, tag, name, attrs)
            return
        if "disabled" in attrs and tag in ("input", "textarea", "select"):
            return  # a browser neither checks nor submits a disabled control
        if tag == "input" and name:
            self.add_input(name, attrs)
        elif tag == "textarea" and name:
            self._textarea = self.fields[name] = FormField(name, "textarea", "", [], attrs)
            self.positions[name] = self.step
        elif tag == "select" and name:
            self._select = self.fields[name] = FormField(name, "select", "", [], attrs)
            self.positions[name] = self.step
        elif tag == "option" and self._select is not None and "disabled" in attrs:
            self._option_text = False  # a placeholder ("-", "Choose one"): a person cannot pick it
        elif tag == "option" and self._select is not None:
            self._option_text = "value" not in attrs  # a browser submits the option's text then
            self._select.options.append(attrs.get("value", ""))
            if "selected" in attrs:
                self._select.checked.append(attrs.get("value", ""))

    def add_input(self, name: str, attrs: dict[str, str]) -> None:
        kind = attrs.get("type", "text").lower()
        if kind in BUTTON_TYPES:
            return
        self.positions[name] = self.step
        existing = self.fields.get(name)
        value = attrs.get("value", "on")
        if kind in ("radio", "checkbox") and existing:
            existing.options.append(value)
        elif kind in ("radio", "checkbox"):
            existing = self.fields[name] = FormField(name, kind, attrs.get("value", ""), [value], attrs)
        else:
            self.fields[name] = FormField(name, kind, attrs.get("value", ""), [], attrs)
            return
        if "checked" in attrs:
            existing.checked.append(value)
        if "required" in attrs:
            if kind == "checkbox":
                existing.required_options.append(value)
            existing.attrs.setdefault("required", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "crowd-radio-group":
            close_radio_group(self)
        if tag in ("select", "option"):
            self._option_text = False
        if tag == "select":
            self._select = None
        if tag == "textarea":
            self._textarea = None
        if tag in self._open:
            while self._open and self._open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self._option_text and self._select is not None and self._select.options:
            self._select.options[-1] += " ".join(data.split())
        if self._textarea is not None:
            self._textarea.value += data.removeprefix("\n") if not self._textarea.value else data
            return
        text = " ".join(data.split())
        if text and not any(t in _SKIPPED_TEXT for t in self._open):
            self.step += 1
            self.texts.append((self.step, text, self._choice_text or any(t in _LABEL_TEXT for t in self._open)))
            self._choice_text = False


def form_fields(html: str) -> list[FormField]:
    return list(read_page(html).fields.values())


def read_page(html: str) -> _FormParser:
    """The page as a worker reads it: its fields, and the text and images around them. Each caller gets
    its own copy (fields included) of one parse per page text: the simulator reads a page per assignment."""
    page = _parsed(html) if len(html) <= MAX_CACHED_PAGE else _parse(html)
    copied = copy.copy(page)
    copied.fields = {name: replace(f, options=[*f.options], attrs={**f.attrs}, checked=[*f.checked],
                                   required_options=[*f.required_options]) for name, f in page.fields.items()}
    copied.texts, copied.images, copied.positions = [*page.texts], [*page.images], {**page.positions}
    return copied


MAX_CACHED_PAGE = 512 * 1024  # a page's parse kept for the next reader: 64 of them at most 32 MB


@lru_cache(maxsize=64)
def _parsed(html: str) -> _FormParser:
    return _parse(html)


def _parse(html: str) -> _FormParser:
    parser = _FormParser()
    parser.feed(html)
    return parser


def _element(tag: str, value: str) -> str:
    """``<tag>value</tag>`` in ASCII; a carriage return as ``&#13;`` so parsing keeps it (XML turns a
    raw CR into LF). XML 1.0 cannot carry some characters at all, not even as references (controls
    other than tab/LF/CR, lone surrogates, U+FFFE/U+FFFF): such a value goes JSON-escaped, marked
    ``encoding="json"``, so it round-trips exactly and the marking records that it was escaped."""
    if _NOT_XML.search(value):
        return f'<{tag} encoding="json">{escape(json.dumps(value))}</{tag}>'
    text = escape(value, {"\r": "&#13;"}).encode("ascii", "xmlcharrefreplace").decode("ascii")
    return f"<{tag}>{text}</{tag}>"


def _text(element: ET.Element | None) -> str:
    if element is None:
        return ""
    if element.get("encoding") != "json":
        return element.text or ""
    try:
        value = read_json(element.text or "")
    except ValueError as exc:
        raise ET.ParseError(f"a JSON-escaped value does not decode ({exc})") from exc
    if not isinstance(value, str):
        raise ET.ParseError("a JSON-escaped value is not a string")
    return value


def answer_xml(values: dict[str, str]) -> str:
    """QuestionFormAnswers as MTurk returns it for an HTMLQuestion: one FreeText per field."""
    parts = [f'<?xml version="1.0" encoding="ASCII"?><QuestionFormAnswers xmlns="{NS_ANSWERS}">']
    for name, value in values.items():
        parts.append(f"<Answer>{_element('QuestionIdentifier', name)}{_element('FreeText', value)}</Answer>")
    parts.append("</QuestionFormAnswers>")
    return "".join(parts)


def parse_answer_xml(xml: str) -> dict[str, str]:
    """Field name -> value; raises ``ET.ParseError`` with the reason on malformed XML.

    Another producer (the real MTurk) may write a character XML 1.0 cannot carry raw or as a
    reference (``&#11;``): such an answer is read with the character kept (a lone surrogate as
    U+FFFD, which no text store takes), rather than lost as malformed."""
    try:
        root, marked = ET.fromstring(xml), False
    except (ET.ParseError, UnicodeEncodeError):  # a raw lone surrogate cannot even be encoded to parse
        if _MARK_OPEN in xml or not (_NOT_XML.search(xml) or _CHAR_REF.search(xml)):
            raise
        root, marked = ET.fromstring(_CHAR_REF.sub(_mark_ref, _NOT_XML.sub(lambda m: _mark(ord(m[0])), xml))), True
    out: dict[str, str] = {}
    for ans in root.iter(f"{{{NS_ANSWERS}}}Answer"):
        qid = _text(ans.find(f"{{{NS_ANSWERS}}}QuestionIdentifier"))
        free = ans.find(f"{{{NS_ANSWERS}}}FreeText")
        sel = [e.text or "" for e in ans.iter(f"{{{NS_ANSWERS}}}SelectionIdentifier")]
        out[qid] = _text(free) if free is not None else "|".join(sel)
    found = {_unmark(k): _unmark(v) for k, v in out.items()} if marked else out
    try:
        return flat_answers(found)  # a crowd-form's one taskAnswers field: one value per element
    except ValueError as exc:
        raise ET.ParseError(f"taskAnswers does not decode ({exc})") from exc


def answer_fields(xml: str) -> dict[str, str]:
    """:func:`parse_answer_xml` with half a character (JSON's "\ud83d") as U+FFFD: no ledger can store it."""
    return {whole_characters(k): whole_characters(v) for k, v in parse_answer_xml(xml).items()}


_MARK_OPEN, _MARK_CLOSE = "\ue000\u2060", "\u2060\ue000"  # private use + word joiner: a marker no answer holds
_CHAR_REF = re.compile(r"&#(?:x([0-9a-fA-F]{1,8})|([0-9]{1,10}));")
_MARKED = re.compile(f"{_MARK_OPEN}([0-9a-f]+){_MARK_CLOSE}")


def _mark(code: int) -> str:
    return f"{_MARK_OPEN}{code:x}{_MARK_CLOSE}"


def _mark_ref(m: re.Match[str]) -> str:
    code = int(m[1], 16) if m[1] else int(m[2])
    return _mark(code) if code > 0x10FFFF or _NOT_XML.match(chr(code)) else m[0]


def _unmark(text: str) -> str:
    def char(m: re.Match[str]) -> str:
        code = int(m[1], 16)
        return "\ufffd" if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF else chr(code)

    return _MARKED.sub(char, text)


def html_question(html: str, frame_height: int = 0) -> str:
    safe = html.replace("]]>", "]]]]><![CDATA[>")  # a CDATA section cannot hold its own end
    return (f'<HTMLQuestion xmlns="{NS_HTML}"><HTMLContent><![CDATA[{safe}]]></HTMLContent>'
            f"<FrameHeight>{frame_height}</FrameHeight></HTMLQuestion>")


INDEXED = re.compile(r"^(?P<base>.+)_(?P<index>\d+)$")  # a field of item N: caption_2 answers image_id_2


def answer_rows(assignment_id: str, answer_xml: str, item_ids: list[str]) -> list[dict[str, str]]:
    """One row per item x field: ``caption_2`` belongs to the item in ``image_id_2``. Only the HIT's own
    ``item_ids`` get rows (answers for items it never showed are dropped); values as :func:`answer_fields`."""
    fields = answer_fields(answer_xml)
    by_index: dict[str, str] = {}
    for name, value in fields.items():
        m = INDEXED.match(name)
        if m and m["base"] == "image_id":
            by_index[m["index"]] = value
    rows = []
    for name, value in fields.items():
        m = INDEXED.match(name)
        if m and m["base"] != "image_id":
            idx = int(m["index"])
            item = by_index.get(m["index"], item_ids[idx] if idx < len(item_ids) else "")
            if item in item_ids:
                rows.append({"assignment_id": assignment_id, "item_id": item, "field": m["base"], "value": value})
        elif not m:
            rows.append({"assignment_id": assignment_id, "item_id": "", "field": name, "value": value})
    return rows


def read_crowd_fields(html: str) -> list[FormField]:
    """The page's crowd elements as answer fields (``FormField``, ``attrs["data-crowd"]`` = the element)."""
    return [f for f in form_fields(html) if f.attrs.get("data-crowd")]
