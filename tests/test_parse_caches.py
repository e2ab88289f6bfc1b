"""A page's parse and a task template's compilation are kept per text (the simulator reads a page per
assignment, a campaign renders its template per HIT): each reader still gets what a fresh parse gives,
its own copy, and a kept template stays as bounded as a fresh one."""

from __future__ import annotations

import pytest

from flows.core.errors import ConfigError
from flows.core.pages import mturk_forms
from flows.core.pages.mturk_forms import _parse, form_fields, read_page
from flows.core.pages.templates import compiled, render_source

PAGE = """<html><body><h1>Describe the image</h1><img src="a.png" alt="a cat">
<form><label>Caption <input type="text" name="caption_0" required></label>
<input type="radio" name="ok" value="yes" checked> yes <input type="radio" name="ok" value="no"> no
<select name="kind"><option value="a" selected>A</option><option value="b">B</option></select>
<textarea name="note">first line</textarea></form></body></html>"""


def _snapshot(page: mturk_forms._FormParser) -> tuple:
    return ({n: vars(f) for n, f in page.fields.items()}, page.texts, page.images, page.positions)


def test_a_kept_parse_reads_as_a_fresh_one() -> None:
    assert _snapshot(read_page(PAGE)) == _snapshot(_parse(PAGE))
    assert _snapshot(read_page(PAGE)) == _snapshot(read_page(PAGE))  # the second from the kept parse
    assert [vars(f) for f in form_fields(PAGE)] == [vars(f) for f in _parse(PAGE).fields.values()]


def test_each_reader_gets_its_own_copy() -> None:
    first = read_page(PAGE)
    first.fields["ok"].checked.append("no")
    first.fields["ok"].options.clear()
    first.fields["caption_0"].attrs["value"] = "changed"
    first.texts.clear()
    first.positions.clear()
    fields = form_fields(PAGE)
    fields[0].attrs.clear()
    assert _snapshot(read_page(PAGE)) == _snapshot(_parse(PAGE))


def test_a_kept_template_renders_each_context_and_stays_bounded() -> None:
    source = "{% for i in range(n) %}{{ word * reps }}{% endfor %}"
    compiled.cache_clear()
    assert render_source(source, "t.html", {"n": 2, "word": "ab", "reps": 2}) == "abababab"
    assert render_source(source, "t.html", {"n": 1, "word": "c", "reps": 3}) == "ccc"
    assert compiled.cache_info().hits == 1
    for _ in range(2):  # the kept template is bounded as a fresh one: each time
        with pytest.raises(ConfigError, match="over the limit"):
            render_source(source, "t.html", {"n": 1, "word": "x" * 1000, "reps": 10**6})


def test_a_template_that_fails_to_compile_fails_each_time() -> None:
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"t\.html:1"):
            render_source("{% for %}", "t.html", {})
