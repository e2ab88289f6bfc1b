"""The sixth security round: a render is bounded in total, not only value by value. A codec whose C code runs long
(punycode, idna) is refused before the call the deadline cannot interrupt; what one render builds
together (every ``{% set %}``, macro and block value) has a ceiling; a macro's 16-million-character value
is not split into millions of strings before its size is checked; and a Liquid page's converted filters
are bounded as written, so its import renders nothing (100,000 ``| upcase``: 74 s and 1.5 GB before)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flows.core.errors import ConfigError
from flows.core.pages.templates import render_source
from flows.custom.foreign_syntax import only_hitflow_expressions
from flows.custom.page_import import import_page
from flows.custom.scaffold_import import template_text
from tests.address_space import headroom

CJK = "".join(chr(0x4E00 + n) for n in range(100))
EMOJI = "\U0001F600"


def refusal(source: str, room: int = 2**30) -> str:
    with headroom(room), pytest.raises(ConfigError) as refused:
        render_source(source, "page.html.j2", {})
    message = str(refused.value)
    assert "\n" not in message and re.match(r"page\.html\.j2(:1)?: ", message) and "out of memory" not in message
    return message


@pytest.mark.parametrize("source", [
    "{{ ('" + CJK + "' * 1000).encode('punycode')|length }}",  # 0.9 s in one C call before; the x10: minutes
    "{{ 'bücher.example'.encode('idna') }}",
    "{{ 'abc'.encode().decode('punycode') }}",
    "{{ 'abc'.encode('utf-8', 'namereplace') }}",
], ids=["punycode", "idna", "decode punycode", "namereplace"])
def test_a_codec_outside_the_safe_list_is_refused_before_it_runs(source: str) -> None:
    assert "is not among those a page may use" in refusal(source)


def test_the_safe_codecs_still_encode_and_decode() -> None:
    page = "{{ 'é ü'.encode('utf-8').decode('utf-8') }}|{{ 'é'.encode('latin-1')|length }}|" \
           "{{ 'é'.encode('ascii', 'xmlcharrefreplace').decode() }}|{{ 'a,b'.split(',')|length }}"
    assert render_source(page, "p", {}) == "é ü|1|&amp;#233;|2"


def test_what_a_render_builds_together_is_bounded() -> None:
    """The issue's page: a 999,000-emoji string, then ``{% set sN = a ~ N %}`` 100 times (4 MB each, 984 MB
    at 250 before): refused at about 256 MB, well inside 1 GiB of headroom."""
    page = "{% set a = '" + EMOJI + "' * 999000 %}" + "".join(f"{{% set s{n} = a ~ {n} %}}" for n in range(100)) \
        + "{{ s0|length }}"
    assert "the values the page built together would take" in refusal(page)


def test_macro_values_count_toward_the_total() -> None:
    page = ("{% macro m(n) %}{{ '" + EMOJI + "' * 999000 }}{{ n }}{% endmacro %}"
            + "".join(f"{{% set s{n} = m({n}) %}}" for n in range(100)) + "{{ s0|length }}")
    assert "the values the page built together would take" in refusal(page)


def test_a_macros_long_value_is_not_split_into_millions_of_strings() -> None:
    """A macro may return up to 16 Mi characters; its ``split()`` made 8 million strings (1-2 GB) before the
    list's size was checked. Refused from the separators' count first, within 400 MB of headroom."""
    page = "{% macro m() %}{% for n in range(16) %}{{ 'a ' * 499999 }}{% endfor %}{% endmacro %}" \
           "{{ m().split()|length }}"
    assert "the pieces of a split value" in refusal(page, 400 * 2**20)


def test_a_liquid_pages_filters_are_bounded_as_written() -> None:
    """20,000 ``{{ task.input.x | upcase }}`` and a condition: the converted page holds only expressions
    hitflow writes, so ``hitflow new`` renders nothing to check it (a render compiled 1.5 GB before)."""
    page = ("<crowd-form><input name='ok'>{% if task.input.x == 'a' %}A{% else %}B{% endif %}"
            + "{{ task.input.x | upcase }}" * 20_000 + "</crowd-form>")
    imported = import_page(page, "page.html")
    template = template_text(imported, Path("page.html"), page)
    assert template.count("{{ item.x | upper }}") == 20_000 and only_hitflow_expressions(template)


def test_slices_count_toward_the_total() -> None:
    """A slice is a copy Jinja writes as Python's own ``value[a:b]``: 20 of a macro's 15-million-emoji value
    (60 MB each) ran past 1 GiB before; each is counted with what the render builds."""
    page = ("{% macro m() %}{% for n in range(15) %}{{ '" + EMOJI + "' * 999999 }}{% endfor %}{% endmacro %}"
            "{% set big = m() %}" + "".join(f"{{% set s{n} = big[{n}:] %}}" for n in range(20)) + "{{ s0|length }}")
    assert "the values the page built together would take" in refusal(page)


def test_a_template_of_too_many_expressions_is_refused_before_it_compiles() -> None:
    """Compiling costs ~13 KB a tag before the deadline runs: 100,000 imported Liquid outputs took 1.4 GB and
    10 s to preview. Past 20,000 tags (or 60,000 parsed parts in fewer tags) the page is refused at once."""
    many_tags = '{% extends "_custom_page.html.j2" %}{% block item %}' + "{{ item.x }}" * 20_001 + "{% endblock %}"
    assert "the template has 20,004 expressions and statements, over the 20,000" in refusal(many_tags)
    one_tag = "{{ " + " ~ ".join(["x"] * 60_001) + " }}"
    assert "parts, over the 60,000 a page may have" in refusal(one_tag)


def test_import_writes_a_page_past_the_size_a_page_may_render_and_says_so(tmp_path: Path) -> None:
    from flows.custom.scaffold_import import scaffold_from

    (tmp_path / "page.html").write_text("<input name='ok'>" + "${x}" * 20_001)
    written, notes = scaffold_from("big", tmp_path / "page.html", tmp_path)
    assert written and any("over the 20,000 a page may render" in n for n in notes)


@pytest.mark.parametrize("call,shown", [
    ("'ab'.replace('a', 'c')", "cb"), ("'a\\tb'.expandtabs()", "a       b"), ("'a\\tb'.expandtabs(tabsize=2)", "a b"),
    ("'x'.zfill(3)", "00x"), ("'é'.encode('utf-8')|length", "2"), ("'a b'.split()|join('-')", "a-b"),
])
def test_a_bounded_method_works_inside_a_block(call: str, shown: str) -> None:
    """Every task page's items are a block, where Jinja passes its block's variables along with a call's own
    (``_block_vars``): a bound reading the call's arguments takes only the call's (``.replace`` inside any
    block failed with a TypeError)."""
    assert render_source("{% block item %}[{{ " + call + " }}]{% endblock %}", "page.html.j2", {}) == f"[{shown}]"
