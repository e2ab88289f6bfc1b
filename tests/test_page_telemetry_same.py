"""The telemetry placement (flows/core/pages/page_telemetry.py) reads a page in growing chunks, finds line
starts as it needs them and searches for the field only where its name is: it must place the notice
exactly where the first version did. That version is kept here, as it was, and both run on every
built-in page and on random pages built to put tags across chunk ends, in scripts and comments."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from flows.core.pages import page_telemetry
from flows.core.pages.templates import render, sample_context, task_templates


class _OldFreeTextForm(HTMLParser):
    """page_telemetry._FreeTextForm before it was made faster (cdcbdc4), unchanged."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.found: int | None = None
        self._open: tuple[str, int] | None = None
        first = _old_first_form(html)
        if first is None:
            return
        self._base, text = first, html[first:]
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        for at in range(0, len(text), 4096):
            self.feed(text[at:at + 4096])
            if self.found is not None:
                break

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._base + self._line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        if tag in ("form", "crowd-form") and self._open is None:
            self._open = (tag, self._offset() + len(self.get_starttag_text() or ""))
        elif self._open is not None and self.found is None and _old_free_text(tag, {k: v or "" for k, v in attrs_list}):
            self.found = self._open[1]

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == self._open[0]:
            self._open = None


def _old_first_form(html: str) -> int | None:
    for m in re.finditer(r"<(?:form|crowd-form)\b", html, re.I):
        before = html[:m.start()].lower()
        if before.rfind("<script") <= before.rfind("</script") and before.rfind("<!--") <= before.rfind("-->"):
            return m.start()
    return None


def _old_free_text(tag: str, attrs: dict[str, str]) -> bool:
    if "disabled" in attrs or "readonly" in attrs:
        return False
    if tag in ("textarea", "crowd-text-area"):
        return True
    return tag in ("input", "crowd-input") and attrs.get("type", "").lower() in ("text", "search", "")


def _old_with_telemetry(html: str, notice: str, nonce: str = "") -> str:
    if re.search(r"""\bname\s*=\s*["']?hitflow_telemetry\b""", html, re.I):
        return html
    start = _OldFreeTextForm(html).found
    if start is None:
        return html
    field, script = page_telemetry._field(notice), page_telemetry._script(nonce)
    page = html[:start] + field + html[start:]
    body_end = page.lower().rfind("</body")
    return page[:body_end] + script + page[body_end:] if body_end >= 0 else page + script


def _same(html: str) -> None:
    assert page_telemetry._FreeTextForm(html).found == _OldFreeTextForm(html).found
    assert page_telemetry.with_telemetry(html, "Typing is recorded.", "n0") == \
        _old_with_telemetry(html, "Typing is recorded.", "n0")


def test_every_built_in_page_gets_the_notice_where_it_did() -> None:
    placed = 0
    for task in task_templates():
        html = render(f"{task}.html.j2", sample_context(task))
        _same(html)
        for cut in (100, 511, 513, 1500, 4000):  # the same page, its form moved across the chunk ends
            _same(html.replace("<form", "x" * cut + "\n<form", 1))
        placed += page_telemetry._FreeTextForm(html).found is not None
    assert placed >= 2  # the caption and describe pages have free text; the rating pages do not


def test_a_later_form_on_a_later_line_gets_the_notice_where_it_did() -> None:
    for gap in ("\n", "\r\n", "\n\n  ", "\n" + "x" * 600 + "\n"):
        _same(f"<p>a</p><form><input type=radio></form>{gap}<form method=post>\n<input name=c></form></body>")
        _same(f"<form>{gap}</form>{gap}<crowd-form>{gap}<textarea></textarea></crowd-form>")


def test_a_page_of_choices_with_one_text_field_anywhere_gets_the_notice_where_it_did() -> None:
    radios = [f"<label><input type='radio' name='q{i}' value='{v}'> {v}</label>" for i in range(12) for v in "abc"]
    for field in ("<textarea name='c'></textarea>", "<input name='c'>", "<input type='text' disabled>",
                  "<crowd-text-area name='c'></crowd-text-area>", "<input type='text' name='c'"):
        for at in (0, 7, len(radios)):
            _same("<html><body><form>" + "".join(radios[:at]) + field + "".join(radios[at:]) + "</form></body></html>")


PIECES = ["</form>\n<form>", "</form>\r\n\n<crowd-form>",
          "<form action='/s'>", "</form>", "<FORM>", "<crowd-form>", "</crowd-form>", "<input type='radio' name='r'>",
          "<input name='c'>", "<INPUT TYPE=TEXT name=x>", "<input type='search' disabled>", "<textarea>t</textarea>",
          "<crowd-input type='number'>", "<crowd-text-area readonly>", "<script>var s = '<form><input>';</script>",
          "<!-- <form><textarea> -->", "\n", "\r\n", "text &amp; more ", "<p class='a'>", "</p>", "<div>",
          "<input type='text' name='hitflow_telemetry'>", "name=hitflow_telemetry", "_TELEMETRY", "</body>", "<BODY>",
          "<input\ntype='text'\nname='y'>", "<input type=\"checkbox\" name='x'/>", "<INPUT type=RADIO>",
          "<input type=hidden value='<input>'>", "<input type='ra", "<input disabled type=text>", "<input/>",
          "<textarea disabled>", "<crowd-input>", "<input type='radio' type='text'>", "<input\x00>",
          "<inputs>", "<input type = 'SEARCH'>", "<input type='radio'", "<!DOCTYPE html>", "<input\t>",
          "<img src='a.png' alt='<form>'>", "&#60;form&#62;", "<style>p{}</style>"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PIECES), st.integers(0, 700)), max_size=30))
def test_random_pages_get_the_notice_where_they_did(parts: list[tuple[str, int]]) -> None:
    _same("".join(piece + " " * pad for piece, pad in parts))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["input", "textarea", "crowd-input", "INPUT", "crowd-text-area"]),
       st.lists(st.tuples(st.sampled_from(["type", "name", "disabled", "readonly", "value", "TYPE", "x:y", "data-i"]),
                          st.sampled_from(['"text"', "'radio'", "text", "search", '"a>b"', "", '"x\'y"', "'hidden'",
                                           '"TEXT"', "a/b", '""', '"&#116;ext"', "&#116;ext", '"a b=c"', "'t ype=text'",
                                           '" disabled"'])), max_size=4),
       st.sampled_from(["", " ", "/", " /"]), st.text(max_size=12), st.text(max_size=12))
def test_a_tag_kept_by_its_text_is_read_as_in_its_page(name: str, attrs: list[tuple[str, str]], close: str,
                                                       before: str, after: str) -> None:
    """What the placement keeps of a plain tag by its text is what the parse reads of it in the page."""
    tag = f"<{name}" + "".join(f" {k}={v}" if v else f" {k}" for k, v in attrs) + f"{close}>"
    text = before + tag + after
    simple = page_telemetry._SIMPLE_TAG.match(text, len(before))
    if simple:
        assert page_telemetry._tag_may_be_free_text(page_telemetry._decisive(simple[0])) == \
            page_telemetry._read_may_be_free_text(text, len(before))
