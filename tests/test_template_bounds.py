"""The fifth security round: rendering bounded by construction, not by spelling. Round five's expressions (2 GB
strings, renders past the deadline) are refused in one line, quickly and in little memory; a generated
composition of template operations (concatenation, repetition, formatting, methods, filters, macros,
loops, blocks) never renders more than the page limit, never runs past the deadline and never runs out of
memory (the test lowers the process's address-space limit to 1 GiB above what it uses while it runs, so
an expression that allocated gigabytes would fail as "out of memory" instead of being refused by a bound);
the deadline holds in any thread; hitflow's own pages render the same bounded or not."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flows.core.errors import ConfigError
from flows.core.pages import template_limits
from flows.core.pages.templates import environment, render, render_source, sample_context, task_templates
from tests import address_space

BIG = "{% set s = 'a' * 999999 %}"
ROUND_FIVE = [
    "{{ ('\t'*999999).expandtabs(2000)|length }}",
    "{{ ('{0}'*2000).format('a'*999999)|length }}",
    "{{ ('{a}'*2000).format_map({'a': 'a'*999999})|length }}",
    BIG + "{{ (s ~ s ~ s ~ s ~ s ~ s ~ s ~ s)|length }}",
    BIG + "{{ (s + s + s)|length }}",
    BIG + "{{ s.replace('a', 'aa')|length }}",
    "{{ ('a'*999999).replace('', 'bb')|length }}",
    "{{ ('a'*999999).translate({97: 'b'*2000})|length }}",
    "{{ [[[['x']*100]*100]*100]|tojson|length }}",
    "{% set ns = namespace(x=[1]) %}{% for i in range(30) %}{% set ns.x = [ns.x, ns.x] %}{% endfor %}"
    "{{ ns.x|tojson|length }}",
    "{{ ([[1]*999]*999)|sum(start=[])|length }}",
    "{{ ('%(a)s'*2000 % {'a': 'x'*999999})|length }}",
    "{{ ('%(a)s'*2000)|format(a='x'*999999)|length }}",
    "{{ 9**(9**9) }}",
    "{{ (2**70000) * (2**70000) }}",
    "{{ ('a'*999999)|replace('a', 'bb')|length }}",
    "{% macro m() %}{% for i in range(99999) %}{{ 'a'*999990 ~ i }}{% endfor %}{% endmacro %}{{ m()|length }}",
    "{% set x %}{% for i in range(99999) %}{{ 'a' * 999999 }}{% endfor %}{% endset %}{{ x|length }}",
    "{{ ['a'*999999]*2 }}",
    "{{ ('a '*499999)|wordwrap(1)|length }}",
    "{{ range(10**5)|list|pprint|length }}",
    "{{ ('a'*999999).center(1000001) }}",
    "{{ ''.join(['a'*999999, 'b'*999999]) }}",
    "{{ 'x'.ljust(10**7) }}",
    "{{ [1]|tojson(indent=10**6) }}",
    "{{ ('x'*999999).encode().hex() }}",
    "{{ ('x'*600000 ~ '<a>'*133333)|striptags|length }}",
    "{{ ('www.a.b '*110000)|urlize|length }}",
    "{{ ('a-'*499999)|title|length }}",
]


@pytest.fixture
def headroom() -> Iterator[None]:
    """The address space capped at 1 GiB above this process's size for the test."""
    with address_space.headroom(2**30):
        yield


def refused(source: str) -> str:
    """The one-line refusal of ``source``, well before the 10 s deadline (a bound refused it, not the clock)."""
    environment()  # built once before any render is timed
    started = time.monotonic()
    with pytest.raises(ConfigError) as refusal:
        render_source(source, "page.html.j2", {})
    message = str(refusal.value)
    assert "\n" not in message and message.startswith("page.html.j2:"), message
    assert time.monotonic() - started < 8, source
    return message


@pytest.mark.parametrize("source", ROUND_FIVE)
def test_round_five_expressions_are_refused_by_a_bound(headroom: None, source: str) -> None:
    message = refused(source)
    assert "over the limit" in message and "out of memory" not in message, message


def test_nested_loops_over_long_strings_stop_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(template_limits, "RENDER_DEADLINE_S", 0.5)
    message = refused("{% for c in 'a'*999999 %}{% for d in 'a'*999999 %}{% endfor %}{% endfor %}")
    assert "took more than 0.5 s" in message


def test_the_deadline_holds_in_a_worker_thread_and_leaves_no_exception_behind(monkeypatch) -> None:
    """The task server renders in a thread pool, where no SIGALRM reaches: the render still stops at its
    deadline; a render that ends right at its deadline leaves nothing behind for the thread's next work."""
    monkeypatch.setattr(template_limits, "RENDER_DEADLINE_S", 0.3)
    loops = "{% for c in 'a'*999999 %}{% for d in 'a'*999999 %}{% endfor %}{% endfor %}"

    def in_thread() -> tuple[str, float]:
        started = time.monotonic()
        try:
            render_source(loops, "page.html.j2", {})
        except ConfigError as exc:
            return str(exc), time.monotonic() - started
        return "rendered", time.monotonic() - started

    with ThreadPoolExecutor(1) as pool:
        message, took = pool.submit(in_thread).result(timeout=30)
    assert "took more than 0.3 s" in message and took < 3
    monkeypatch.setattr(template_limits, "RENDER_DEADLINE_S", 0.02)
    for _ in range(10):  # renders of about the deadline's length, then plain Python work in the same thread
        with contextlib.suppress(ConfigError):
            render_source("{% for i in range(3000) %}{{ i }}{% endfor %}", "page.html.j2", {})
        # a timer, signal or async exception left behind lands in the sleep or in the next bytecode, a tracer
        # left checking the (long past) deadline on the line after: no 0.1 s of spinning needed to meet either
        time.sleep(0.1)
        sum(range(100))
    assert threading.current_thread() is threading.main_thread()


def test_ordinary_expressions_render_as_before() -> None:
    """The expected text is what the sandbox before the fifth security round rendered for the same page."""
    page = ("{{ 'ab' ~ 1 ~ [2] }} {{ [1] + [2] }} {{ 'a' + 'b' }} {{ 7 // 2 }} {{ 2 ** 100 }} {{ '%s-%d' % ('x', 3) }} "
            "{{ '{}|{:>4}'.format('y', 5) }} {{ '{a}'.format_map({'a': 1}) }} {{ 'a\tb'.expandtabs(4) }} "
            "{{ 'abc'.replace('b', 'XY') }} {{ 'ab'.translate({97: 'z'}) }} {{ '-'.join(['a', 'b']) }} "
            "{{ 'a,b'.split(',') }} {{ [[1], [2]]|sum(start=[]) }} {{ [1, 2]|sum }} {{ {'k': [1]}|tojson }} "
            "{{ 'x'|indent(2, true) }} {{ 'hello world'|wordwrap(5) }} {{ [1, 2, 3]|batch(2, 0)|list }} "
            "{{ [1, 2, 3]|map('string')|join(',') }} {{ '<b>'|e }} {{ 'ab'|center(6) }}|")
    macro = "{% macro m(v) %}[{{ v }}]{% endmacro %}{% set b %}{{ m('x') }}{% endset %}{{ b ~ m('y') }}"
    shown = render_source(page + macro, "page.html.j2", {})
    assert shown == ("ab1[2] [1, 2] ab 3 1267650600228229401496703205376 x-3 y|   5 1 a   b aXYc zb a-b "
                     "[&#39;a&#39;, &#39;b&#39;] [1, 2] 3 {\"k\": [1]}   x hello\nworld [[1, 2], [3, 0]] 1,2,3 "
                     "&lt;b&gt;   ab  |[x][y]")


def test_a_method_outside_the_allow_list_is_refused() -> None:
    """Methods are allowed by name, each with its bound; one not listed is refused, never run."""
    for source, name in (("{{ {}.fromkeys(range(10), 'x') }}", "dict.fromkeys"),
                         ("{{ 'x'.encode().center(5) }}", "bytes.center"),
                         ("{{ (7).from_bytes('x'.encode()) }}", "int.from_bytes")):
        assert f"{name} is not among the methods a page may call" in refused(source)
    assert "over the limit" in refused("{{ (4).to_bytes(10**7) }}")


def test_a_filter_given_arguments_it_does_not_take_says_so() -> None:
    """``{{ item|pprint(999) }}`` said "KeyError: 'value'" (the bound read the filter's arguments by name and found
    none): now the filter and what it takes, in the one line."""
    for source, said in (("{{ 'x'|pprint(999) }}", "the pprint filter takes (value): too many positional"),
                         ("{{ 'x'|center(9, 3, 4) }}", "the center filter takes (value, width)"),
                         ("{{ 'x'|replace('a') }}", "the replace filter takes (s, old, new, count)")):
        message = refused(source)
        assert said in message and "KeyError" not in message, message


@pytest.mark.parametrize("task", task_templates())
def test_hitflows_own_pages_render_the_same_bounded(task: str) -> None:
    """The bounds change nothing on hitflow's pages: rendered bounded (as a requester's page extending
    them is) and trusted (as hitflow renders them), byte for byte."""
    context = sample_context(task)
    bounded = environment().get_template(f"{task}.html.j2").render(**context)
    assert bounded == render(f"{task}.html.j2", context)


# Generated compositions ---------------------------------------------------------------------------

SIZES = st.sampled_from(["0", "1", "3", "40", "2000", "999999", "10**7", "2**31"])
ATOMS = st.sampled_from(["'ab'", "'\\t'", "'{0}'", "'%s'", "'%(a)s'", "'a b\\nc'", "[1, 'x']", "{'a': 'y'}", "s",
                         "t", "7"])


def _compose(draw: st.DrawFn, depth: int) -> str:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(ATOMS)
    x, n = _compose(draw, depth - 1), draw(SIZES)
    y = _compose(draw, depth - 1)
    shapes = [f"({x} ~ {y})", f"({x} + {y})", f"({x} * {n})", f"({x} % ({y},))", f"({x} % {{'a': {y}}})",
              f"({x}|string).format({y}, {y})", f"({x}|string).format_map({{'a': {y}}})",
              f"({x}|string).replace('a', {y}|string)", f"({x}|string).center({n})", f"({x}|string).expandtabs({n})",
              f"({x}|string).zfill({n})", f"({x}|string).join([{y}, {y}])",
              f"({x}|string).translate({{97: {y}|string}})",
              f"({x}|string).split('a')", f"{x}|replace('a', {y}|string)", f"{x}|center({n})", f"{x}|indent({n})",
              f"({x}|string)|format({y})", f"{x}|tojson", f"{x}|list", f"{x}|batch({n}, {y})|list", f"[{x}, {x}]",
              f"[{x}]|sum(start=[])", f"{x}|join({y}|string)", f"{x}|wordwrap({n})", f"{x}|pprint", f"{x}|e",
              f"{x}|upper", f"{x}|string|list", f"({x}|string)[:{n}]", f"({x}|length) ** {n}", f"m({x})"]
    return draw(st.sampled_from(shapes))


@st.composite
def pages(draw: st.DrawFn) -> str:
    expr = _compose(draw, 3)
    body = draw(st.sampled_from([
        "{{ E }}", "{% for i in range(20) %}{{ E }}{% endfor %}", "{% set b %}{{ E }}{{ E }}{% endset %}{{ b ~ b }}",
        "{% set ns = namespace(x=E) %}{% for i in range(25) %}{% set ns.x = ns.x ~ ns.x %}{% endfor %}{{ ns.x }}",
        "{% for i in range(30) %}{{ m(E) }}{% endfor %}"]))
    return ("{% set s = 'ab' * 499999 %}{% set t = 'ab' * 1000 %}{% macro m(v) %}{{ v }}{{ v }}{% endmacro %}"
            + body.replace("E", expr))


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(pages())
def test_no_composed_expression_renders_past_the_cap_or_the_deadline(headroom: None, page: str) -> None:
    assert len(page.encode()) < 600
    environment()  # built once before any render is timed
    template_limits.RENDER_DEADLINE_S, deadline = 1.0, template_limits.RENDER_DEADLINE_S
    started = time.monotonic()
    try:
        shown = render_source(page, "page.html.j2", {})
        assert len(shown) <= template_limits.MAX_OUTPUT_CHARS
    except ConfigError as exc:
        assert "\n" not in str(exc) and "out of memory" not in str(exc), (page, str(exc))
    finally:
        template_limits.RENDER_DEADLINE_S = deadline
    assert time.monotonic() - started < 1.0 + 3.0, page  # the deadline, and slack for a loaded machine


def test_an_imported_pages_jinja_is_text_unless_the_user_opts_in(tmp_path, capsys) -> None:
    """security round: a page from elsewhere runs none of its expressions; ``--keep-jinja`` runs them, bounded."""
    from flows.cli.main import main

    page = tmp_path / "theirs.html"
    page.write_text("<p>${review}</p>\n<p>{{ item.review|upper }} {% if 1 %}{{ 'a' * 10**7 }}{% endif %}</p>\n"
                    "<input name='ok'>\n", encoding="utf-8")
    assert main(["new", "theirs", "--from", str(page), "--dir", str(tmp_path)]) == 0
    said = capsys.readouterr().err
    assert all(f"{page}:2: note: {code!r} is kept as text" in said  # each expression named
               for code in ("{{ item.review|upper }}", "{% if 1 %}", "{{ 'a' * 10**7 }}", "{% endif %}"))
    template = (tmp_path / "config" / "theirs.html.j2").read_text()
    context = {"title": "t", "rules": {"kind": "form", "fields": []},
               "items": [{"item_id": "x", "review": "Good <b>kettle</b>"}]}
    shown = render_source(template, "theirs.html.j2", context)
    assert "<p>Good &lt;b&gt;kettle&lt;/b&gt;</p>" in shown  # ${review} still reads its column
    assert "{{ item.review|upper }} {% if 1 %}{{ 'a' * 10**7 }}{% endif %}" in shown  # shown as written
    assert main(["new", "mine", "--from", str(page), "--dir", str(tmp_path), "--keep-jinja"]) == 2
    assert f"{page}:2:" in capsys.readouterr().err and not (tmp_path / "config" / "mine.html.j2").exists()
