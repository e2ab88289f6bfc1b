"""The fifth security round: importing a page of MTurk ``${x}`` placeholders takes time in proportion to the
page (300,000 in 1.2 MB took 176 s and 3.3 GB). Three costs are gone: the import rendered the
converted page once to check its expressions' bounds, compiling one Jinja output node per placeholder,
though every expression in it was one hitflow wrote; each placeholder's "inside a URL attribute?" search
tried every start in a 300-character window; and each new column was looked for in a list.
``make bench-placeholder-import`` gives the seconds and memory per size."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.core.errors import ConfigError
from flows.custom.foreign_syntax import only_hitflow_expressions
from flows.custom.page_import import import_page
from flows.custom.scaffold_import import refuse_unbounded, template_text


def converted(page: str) -> str:
    return template_text(import_page(page, "page.html"), Path("page.html"), page)


def test_a_placeholder_page_holds_only_hitflow_expressions() -> None:
    page = ("<title>T</title><form><p>${a} {{ literal }} {% x %} {# c #}</p><a href='${url}'>x</a>"
            "<script>var x = '${c}';</script><input name='ok'><p>${b-1}</p></form>")
    template = converted(page)
    assert "{{ item.url | safe_url }}" in template and "{{ item['b-1'] }}" in template
    assert only_hitflow_expressions(template)


@pytest.mark.parametrize("own", ["{{ 'a'*10**9 }}", "{{ item.a * 10**9 }}", "{%- set x = 1 %}",
                                 "{{ item.a|center(9) }}", "{{# #}{ 'a'*9 }}", "{{ '{{' }}{{ i*9 }}",
                                 "{% raw %}{% endraw %}"])
def test_any_other_expression_is_still_rendered_to_check_it(own: str) -> None:
    template = '{% extends "_custom_page.html.j2" %}{% block item %}<p>' + own + "</p>{% endblock %}"
    assert not only_hitflow_expressions(template)


def test_an_unbounded_expression_in_a_jinja_page_is_still_refused() -> None:
    """With --keep-jinja (the page's own Jinja runs): by default it is kept as text and never runs."""
    page = '{% extends "_custom_page.html.j2" %}{% block item %}<p>{{ item.a }}{{ "a" * 10**9 }}</p>{% endblock %}'
    imported = import_page(page, "page.html", keep_jinja=True)
    with pytest.raises(ConfigError, match="cannot be converted"):
        refuse_unbounded(template_text(imported, Path("page.html"), page, keep_jinja=True), imported,
                         Path("page.html"), page)


def test_300000_placeholders_import_with_every_column() -> None:
    """The issue's page (1.2 MB of ``${x}``) and one naming 100,000 columns: before, minutes each."""
    page = "<form><input name='ok'>" + "${x}" * 300_000 + "</form>"
    imported = import_page(page, "page.html")
    template = template_text(imported, Path("page.html"), page)
    assert imported.columns == ["x"] and template.count("{{ item.x }}") == 300_000
    assert only_hitflow_expressions(template)
    refuse_unbounded(template, imported, Path("page.html"), page)  # returns at once: nothing to render
    many = "<form><input name='ok'>" + "".join(f"${{c{i}}}" for i in range(100_000)) + "</form>"
    assert import_page(many, "page.html").columns == [f"c{i}" for i in range(100_000)]
