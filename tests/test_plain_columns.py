"""A page's own template prints its columns plainly (flows/core/pages/plain_columns.py) only when every read of
an item's value is a print of it, as it is or through safe_url: anything that could branch on a value or change
it is not plain, so a dry run renders each page in full."""

from __future__ import annotations

import pytest

from flows.core.pages.plain_columns import shows_columns_plainly

PLAIN = ['<img src="{{ item.image_url | safe_url }}"><p>{{ item.caption }}</p>{{ item["note"] }} {{ i }}',
         "{% block item %}{{ item.item_id }}{% endblock %}", "no columns at all"]
NOT_PLAIN = ["{{ item.caption | upper }}", "{% if item.x %}a{% endif %}", "{{ item }}", "{{ items[0].x }}",
             "{% set c = item.x %}{{ c }}", "{{ item.x ~ 'a' }}", "{{ item[k] }}", "{{ item.x.y }}",
             "{{ item.get('x') }}", "{% for c in item.x %}{% endfor %}", "{{ item.x | safe_url | upper }}",
             "{{ item.x | safe_url(1) }}", "{{ item.x if i else '' }}", "{% for item in rows %}{% endfor %}",
             "{{ unclosed", "{% autoescape false %}{{ item.x }}{% endautoescape %}",
             "{% filter upper %}{{ item.x }}{% endfilter %}"]


@pytest.mark.parametrize("source", PLAIN)
def test_plain_prints(source: str) -> None:
    assert shows_columns_plainly(source)


@pytest.mark.parametrize("source", NOT_PLAIN)
def test_any_other_read_of_a_value(source: str) -> None:
    assert not shows_columns_plainly(source)
