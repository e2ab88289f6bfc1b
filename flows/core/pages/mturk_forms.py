"""MTurk question XML in, form fields out, and QuestionFormAnswers XML back."""

from __future__ import annotations

import copy
import json
import re
import threading
import xml.etree.ElementTree as ET
from collections import OrderedDict
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from flows.core.pages.crowd_elements import FormField, flat_answers
from flows.core.pages.form_parser import FormParser as _FormParser
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


def form_fields(html: str) -> list[FormField]:
    return list(read_page(html).fields.values())


def read_page(html: str) -> _FormParser:
    """The page as a worker reads it (its fields, the text and images around them): a copy of one parse a text."""
    page = _parsed(html)
    copied = copy.copy(page)
    # FormField(...) and not dataclasses.replace: the same copy without reading the dataclass's fields each time
    # (named, so a reordered field stays itself; tests/test_page_parse_cache.py checks a copy equals its parse)
    copied.fields = {name: FormField(name=f.name, kind=f.kind, value=f.value, options=[*f.options],
                                     attrs={**f.attrs}, checked=[*f.checked], required_options=[*f.required_options],
                                     labels={**f.labels}) for name, f in page.fields.items()}
    copied.texts, copied.images, copied.positions = [*page.texts], [*page.images], {**page.positions}
    return copied


def _parse(html: str) -> _FormParser:
    parser = _FormParser()
    parser.feed(html)
    return parser


# A page's parse kept for its next reader, least recently read dropped past MAX_CACHED_CHARS of pages (~32 MB)
MAX_CACHED_PAGE = 512 * 1024
MAX_CACHED_CHARS = 8 * 1024 * 1024
_PARSES: OrderedDict[str, _FormParser] = OrderedDict()
_PARSES_LOCK = threading.Lock()
_cached_chars = 0


def _parsed(html: str) -> _FormParser:
    global _cached_chars
    if len(html) > MAX_CACHED_PAGE:
        return _parse(html)
    with _PARSES_LOCK:  # the simulator's threads read pages too
        page = _PARSES.get(html)
        if page is not None:
            _PARSES.move_to_end(html)
            return page
    page = _parse(html)
    with _PARSES_LOCK:
        if html not in _PARSES:
            _PARSES[html] = page
            _cached_chars += len(html)
        while _cached_chars > MAX_CACHED_CHARS:
            _cached_chars -= len(_PARSES.popitem(last=False)[0])
    return page


def _element(tag: str, value: str) -> str:
    """``<tag>value</tag>`` in ASCII; a value XML 1.0 cannot carry goes JSON-escaped (``encoding="json"``)."""
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
    """Field name -> value; ``ET.ParseError`` on malformed XML; characters XML cannot carry are kept."""
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


def field_base(name: str) -> str:
    """A field's name without its item index (``description_0`` -> ``description``)."""
    return m["base"] if (m := INDEXED.match(name)) else name


def item_index(name: str) -> str:
    """A field's item index (``description_0`` -> ``0``), "" for a field of the page."""
    return m["index"] if (m := INDEXED.match(name)) else ""


def answer_rows(assignment_id: str, answer_xml: str, item_ids: list[str]) -> list[dict[str, str]]:
    """One row per item x field, for the HIT's own ``item_ids`` only; values as :func:`answer_fields`."""
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
