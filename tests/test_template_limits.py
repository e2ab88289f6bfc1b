"""The fourth security round: a template's expressions are bounded (repetition, powers, widths, ranges, lipsum,
a namespace doubling a string, the output, a render deadline) in the one environment, which keeps its
autoescape and StrictUndefined; an imported page whose expressions exceed them is refused at import with
its line. Sizes here are just over the limits, so that without them each test fails quickly (a render
that succeeds) instead of eating the machine; the issue's own inputs are in bench/hostile_surfaces.py."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.errors import ConfigError
from flows.core.pages import template_limits
from flows.core.pages.templates import environment, render_source

OVER = [
    "{{ 'a' * 10**7 }}",
    "{{ ''.join(['a'] * 10**7) }}",
    "{{ 'x'|center(10**7) }}",
    "{{ 'x'.ljust(10**7) }}",
    "{{ '{:>10000000}'.format(1) }}",
    "{{ '%10000000d' % 1 }}",
    "{{ lipsum(2000) }}",
    "{{ 7 ** 1000000 }}",
    "{{ range(10**7)|list|length }}",
    "{{ [1]|batch(10**7, 'x')|list|length }}",
    "{{ ('a' * 1000)|replace('a', 'b' * 2000) }}",
    "{% set ns = namespace(x='ab') %}{% for i in range(22) %}{% set ns.x = ns.x ~ ns.x %}{% endfor %}{{ ns.x|length }}",
    "{{ '%*d' % (10**7, 1) }}",
    "{{ '{:>{w}}'.format(1, w=10**7) }}",
    "{{ '%10000000d'|format(1) }}",
]
TOO_MUCH_OUTPUT = "{% for i in range(100) %}{% for j in range(100) %}{{ '0123456789' * 2000 }}{% endfor %}{% endfor %}"


@pytest.mark.parametrize("source", OVER)
def test_an_expression_over_the_limits_is_one_line(source: str) -> None:
    started = time.monotonic()
    with pytest.raises(ConfigError) as refused:
        render_source(source, "page.html.j2", {})
    assert "over the limit" in str(refused.value) and "\n" not in str(refused.value)
    assert str(refused.value).startswith("page.html.j2:1:")
    assert time.monotonic() - started < 5


def test_a_page_over_the_output_limit_is_one_line() -> None:
    with pytest.raises(ConfigError, match=r"the page would be .* over the limit") as refused:
        render_source(TOO_MUCH_OUTPUT, "page.html.j2", {})
    assert "\n" not in str(refused.value)


def test_ordinary_expressions_still_render() -> None:
    page = ("{{ 'ab' * 3 }} {{ 2 ** 10 }} {{ '%05d' % 42 }} {{ 'x'|center(5) }} {{ range(3)|list }} "
            "{{ range(4)|length }} {{ lipsum(1, html=False)|length > 0 }} {{ '<b>' }} {{ 'Order 1234567: %s' % 'x' }} "
            "{{ '{:>6}'.format(7) }} {{ 'ab'|replace('a', 'c') }} {{ ['a', 'b']|join('-') }}")
    shown = render_source(page, "page.html.j2", {})
    assert shown == "ababab 1024 00042   x   [0, 1, 2] 4 True &lt;b&gt; Order 1234567: x      7 cb a-b"
    assert environment().autoescape and environment().undefined.__name__ == "StrictUndefined"


def test_a_render_past_its_deadline_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(template_limits, "RENDER_DEADLINE_S", 0.3)
    loops = "{% for i in range(3000) %}{% for j in range(3000) %}{% endfor %}{% endfor %}done"
    started = time.monotonic()
    with pytest.raises(ConfigError, match="took more than"):
        render_source(loops, "page.html.j2", {})
    assert time.monotonic() - started < 3


def test_a_memory_error_while_rendering_is_one_line() -> None:
    class Huge:
        def __str__(self) -> str:
            raise MemoryError

    with pytest.raises(ConfigError, match="ran out of memory") as refused:
        render_source("<p>\n{{ value }}</p>", "page.html.j2", {"value": Huge()})
    assert str(refused.value).startswith("page.html.j2:2:")


def test_an_imported_page_over_the_limits_is_refused_at_import_with_its_line(tmp_path: Path, capsys) -> None:
    page = tmp_path / "greedy.html"
    page.write_text("<html><body>\n<p>{{ item.review_text }}</p>\n<p>{{ 'a' * 10**7 }}</p>\n<input name='ok'>\n"
                    "</body></html>")
    assert main(["new", "greedy", "--from", str(page), "--dir", str(tmp_path), "--keep-jinja"]) == 2
    err = capsys.readouterr().err
    assert f"{page}:3:" in err and "over the limit" in err and "Traceback" not in err
    assert not (tmp_path / "config" / "greedy.html.j2").exists()
