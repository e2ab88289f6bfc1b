"""An item column named like a dict method (update, items, get...) is the column on the page, not the method: an
imported ``${update}`` and a hand-written ``{{ item.get }}`` both show the item's value, and the dry run's render
of the imported page does not stop on it."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from flows.campaigns.task_kinds import load_campaign
from flows.cli.main import main
from flows.core.pages.templates import render_source
from flows.custom.custom_task import custom_page, read_custom_items

# each of dict's methods, the ones the immutable sandbox refuses (update, pop...) and the ones it would call
METHOD_NAMES = ["update", "items", "keys", "values", "get", "pop", "copy", "setdefault", "clear", "popitem"]


@pytest.mark.parametrize("name", METHOD_NAMES)
def test_a_hand_written_dot_reads_the_column(name: str) -> None:
    page = f"<p>{{{{ item.{name} }}}}</p><p>{{{{ item['{name}'] }}}}</p>"
    assert render_source(page, "t", {"item": {name: "the <b>value</b>"}}) == \
        "<p>the &lt;b&gt;value&lt;/b&gt;</p>" * 2


def test_a_dict_without_the_key_keeps_its_methods() -> None:
    page = "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}{{ d.get('a') }}"
    assert render_source(page, "t", {"d": {"a": "1", "b": "2"}}) == "a=1;b=2;1"


def test_an_imported_page_shows_method_named_columns(tmp_path: Path) -> None:
    page = tmp_path / "live.html"
    page.write_text("<div>" + "".join(f'<p id="{n}">${{{n}}}</p>' for n in METHOD_NAMES[:7]) + "</div>\n"
                    '<input type="text" name="rewrite" required>\n', encoding="utf-8")
    items = tmp_path / "live_items.csv"
    with items.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["item_id", *METHOD_NAMES[:7]], ["i1", *(f"{n} of i1" for n in METHOD_NAMES[:7])]])
    assert main(["new", "live", "--from", str(page), "--items", str(items), "--dir", str(tmp_path)]) == 0
    cfg = load_campaign(tmp_path / "config" / "live.toml")
    shown = custom_page(cfg, [{**row, "image_id": row["item_id"]} for row in read_custom_items(cfg)])
    for name in METHOD_NAMES[:7]:
        assert f'<p id="{name}">{name} of i1</p>' in shown
