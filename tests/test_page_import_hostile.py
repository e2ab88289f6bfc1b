"""The third security round: ``hitflow new NAME --from PAGE`` reads generated hostile pages (random bytes,
deep nesting, huge attributes, ``${``/``{{``/``{%`` fragments, scripts, MTurk XML wrappers with bad
XML, QuestionForm garbage) and exits 0 (files written) or 2 (a few short lines naming the page,
nothing written): never a traceback, never another exit code."""

from __future__ import annotations

import io
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flows.cli.main import main

HTML_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2011-11-11/HTMLQuestion.xsd"
QF_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2017-11-06/QuestionForm.xsd"
FRAGMENTS = st.sampled_from([
    "${", "${item", "}", "{{", "{{ task.input.", "}}", "{%", "{% if", "{% for x in", "%}", "{%-", "{#", "#}",
    "{{ item.x | attr('__class__') }}", "{% extends 'x' %}", "{% include '/etc/passwd' %}", "{% raw %}",
    "<script>", "</script>", "<script src='https://assets.crowd.aws/crowd-html-elements.js'></script>",
    "<form id='f' onsubmit=\"return check()\">", "</form>", "<input type='submit'>", "<button type=submit>",
    "<input name='", "<input name=a_{{ i }}>", "<textarea name=t>", "<select name=s>", "<crowd-form>",
    "<crowd-input name='c'>", "<crowd-button form-action='submit'>", "<body>", "</body>", "<head>", "<title>",
    "<h1>", "<![CDATA[", "]]>", "<!DOCTYPE html>", "<?xml version='1.0'?>", "'", '"', "<", ">", "&", "&#0;",
    "\x00", "\ufeff", "\u202e", "<Question>", "<QuestionIdentifier>", "</QuestionIdentifier>",
    "<AnswerSpecification>", "<FreeTextAnswer>", "<SelectionAnswer>", "<Selections>", "<Selection>",
    "<SelectionIdentifier>", "<Text>", "<Overview>", "<QuestionContent>", "<ExternalURL>", "<!ENTITY a 'b'>",
    "&a;", "\n", " ", "x"])
HTMLISH = st.lists(st.one_of(FRAGMENTS, st.text(max_size=12)), max_size=40).map("".join)
WRAPPED = st.one_of(
    HTMLISH.map(lambda b: f'<HTMLQuestion xmlns="{HTML_NS}"><HTMLContent><![CDATA[{b}]]></HTMLContent>'
                          "<FrameHeight>0</FrameHeight></HTMLQuestion>"),
    HTMLISH.map(lambda b: f'<HTMLQuestion xmlns="{HTML_NS}"><HTMLContent>{b}</HTMLContent></HTMLQuestion>'),
    HTMLISH.map(lambda b: f'<QuestionForm xmlns="{QF_NS}">{b}</QuestionForm>'),
    HTMLISH.map(lambda b: f'<?xml version="1.0"?><QuestionForm xmlns="{QF_NS}"><Question>{b}</Question>'
                          "</QuestionForm>"),
    st.just('<ExternalQuestion><ExternalURL>http://127.0.0.1:9/page</ExternalURL></ExternalQuestion>'),
    HTMLISH.map(lambda b: f"<ExternalQuestion><ExternalURL>{b}</ExternalURL></ExternalQuestion>"))
BIG_PAGES = [
    "<div>" * 20_000 + "x" + "</div>" * 20_000,
    f'<QuestionForm xmlns="{QF_NS}">' + "<Question>" * 5_000 + "</Question>" * 5_000 + "</QuestionForm>",
    f'<HTMLQuestion xmlns="{HTML_NS}"><HTMLContent>' + "<a>" * 3_000 + "</HTMLContent></HTMLQuestion>",
    '<input name="a" value="' + "x" * 300_000 + '">',
    "<input name='" + "n" * 100_000 + "'>",
    "<button type=submit>" * 2_000 + "${x}" * 2_000,
    "<form onsubmit='" + "'" * 50_000 + "'>",
    "{{" * 30_000, "${" * 30_000, "{%" * 30_000, "{{" * 30_000 + "{{ task.input.x }}",
    "{%" * 30_000 + " if task.input.x %}", "{{ task.input." + "a." * 50_000 + " }}"]
BIG = st.sampled_from(BIG_PAGES)
PAGES = st.one_of(HTMLISH.map(str.encode), WRAPPED.map(str.encode), BIG.map(str.encode), st.binary(max_size=200),
                  HTMLISH.map(lambda t: t.encode("utf-16")))


def import_page(page: bytes, answer_key: bytes | None = None) -> tuple[int, str, list[str]]:
    """Exit code, what was printed (stdout and stderr), the files written."""
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp, redirect_stdout(out), redirect_stderr(out):
        root = Path(tmp)
        (root / "page.html").write_bytes(page)
        extra = []
        if answer_key is not None:
            (root / "key.xml").write_bytes(answer_key)
            extra = ["--answer-key", str(root / "key.xml")]
        code = main(["new", "imp", "--from", str(root / "page.html"), "--dir", str(root / "out"), *extra])
        written = sorted(p.name for p in (root / "out").rglob("imp*")) if (root / "out").exists() else []
    return code, out.getvalue(), written


# 60 examples: every kind of page (fragments, wrappers, the big ones, bytes) comes up many times over;
# each big page alone is imported in test_every_huge_or_deep_page_is_imported_or_refused_in_a_few_lines
@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(PAGES, st.none() | PAGES)
def test_a_hostile_page_is_imported_or_refused_in_a_few_lines(page: bytes, answer_key: bytes | None) -> None:
    code, printed, written = import_page(page, answer_key)
    assert code in (0, 1, 2), printed[-2000:]  # 1: imported, but not ready (no field a worker answers)
    assert "Traceback" not in printed and 'File "' not in printed, printed[-2000:]
    assert (code in (0, 1)) == bool(written) and (code != 1 or "not ready" in printed), printed[-500:]
    if code == 2:  # a header and one line per problem, each naming the page (or the key) and short
        lines = printed.strip().splitlines()
        assert 1 <= len(lines) <= 50 and all(len(line) < 1000 for line in lines), printed[:2000]


@pytest.mark.parametrize("page", BIG_PAGES, ids=range(len(BIG_PAGES)))
def test_every_huge_or_deep_page_is_imported_or_refused_in_a_few_lines(page: str) -> None:
    # ("{{" x 30,000 took 130 s before the placeholder sniffing was bounded: bench-security times this surface)
    code, printed, written = import_page(page.encode())
    assert code in (0, 1, 2) and "Traceback" not in printed and (code in (0, 1)) == bool(written), printed[-2000:]


def test_a_page_over_the_size_limit_is_refused_before_it_is_read_whole() -> None:
    code, printed, written = import_page(b"<p>" + b" " * (17 << 20) + b"</p>")
    assert code == 2 and not written and "too large for the page" in printed  # before: imported as a page


def test_line_finder_gives_line_of_for_every_offset() -> None:
    """The Liquid converter finds each tag's line by search, not by counting from the start (100,000
    tags on one line took 94 s of 124 in `hitflow new --from`): the same lines as line_of."""
    from flows.custom.foreign_syntax import line_finder, line_of

    for source in ("", "no newline", "a\nbb\n\nccc\n", "\n\n{{ x }}\n{{ y }}"):
        line_at = line_finder(source)
        assert [line_at(i) for i in range(len(source) + 1)] == [line_of(source, i) for i in range(len(source) + 1)]


def test_an_items_value_in_srcset_goes_through_the_url_check() -> None:
    """`srcset` and `imagesrcset` list URLs: an item's value there passes safe_url as in `src` (a javascript: URL
    becomes about:blank), like every other URL attribute."""
    from flows.custom.page_import import import_page as imported

    body = imported('<html><body><img srcset="${img}" alt="x"><link rel="preload" as="image" '
                       'imagesrcset="${img2}"><input name="a"></body></html>', "srcset.html").body
    assert 'srcset="{{ item.img | safe_url }}"' in body and 'imagesrcset="{{ item.img2 | safe_url }}"' in body
