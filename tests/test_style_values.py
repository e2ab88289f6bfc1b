"""A colour swatch from an items column (``style="background: ${hex}"``): imported as the value of its declaration
through ``css_value``, which lets a colour, a number with its unit or a plain word through and shows nothing for any
other text; an items file with another value is refused at import, and the dry run names its items and column."""

from __future__ import annotations

import csv
import io
from contextlib import redirect_stderr, redirect_stdout
from html.parser import HTMLParser
from pathlib import Path

import pytest

from flows.campaigns.task_kinds import load_campaign
from flows.cli.main import main
from flows.core.pages.css_values import css_value
from flows.custom.custom_task import custom_page, dry_run_lines, read_custom_items

SWATCH = """<h3>Name this paint</h3>
<div style="width: 260px; height: 160px; border: ${edge} solid #999; background: ${hex};"></div>
<p>Family: ${family} (${hex})</p>
<label><input type="radio" name="tone" value="warm" required> Warm</label>
<label><input type="radio" name="tone" value="cool"> Cool</label>
"""
HOSTILE = ["red; background: url(https://evil.example/x.png)", "url(https://evil.example/x.png)", "red\" onclick=\"x",
           "expression(alert(1))", "red !important", "}</style><script>alert(1)</script>", "\\72 ed", "/* x */ red",
           "var(--x)", "rgb(1, 2, 3); color: red", "attr(title)", "javascript:alert(1)", "'red'", "@import x"]


@pytest.mark.parametrize("value", ["#F4C542", "#abc", "#12345678", "teal", "rgb(46, 94, 140)", "rgba(0 0 0 / 50%)",
                                   "hsl(210deg, 50%, 40%)", "12px", "1.5em", "-3px", "40%", ".5", "sans-serif",
                                   "1px solid #333", "2E5E8C", "bold", "0"])
def test_a_colour_length_or_word_is_a_css_value(value: str) -> None:
    assert css_value(value) == value


@pytest.mark.parametrize("value", [*HOSTILE, "", "#12", "a" * 41, "x " * 9])
def test_anything_else_is_shown_as_nothing(value: str) -> None:
    assert css_value(value) == ""


def write_items(path: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("item_id", "hex", "family", "edge"), *rows])
    return path


def imported(tmp_path: Path, rows: list[tuple[str, str, str, str]]) -> tuple[int, str]:
    (tmp_path / "paint.html").write_text(SWATCH, encoding="utf-8")
    items = write_items(tmp_path / "paint_items.csv", rows)
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main(["new", "paint", "--from", str(tmp_path / "paint.html"), "--items", str(items),
                     "--dir", str(tmp_path)])
    return code, err.getvalue()


class Styles(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.styles: list[str] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.styles += [v or "" for n, v in attrs if n == "style"]
        self.attributes += [n for n, _ in attrs]


def styles_of(page: str) -> Styles:
    reading = Styles()
    reading.feed(page)
    return reading


def test_a_swatch_page_imports_and_shows_each_items_colour(tmp_path: Path) -> None:
    code, err = imported(tmp_path, [("p1", "#F4C542", "yellow", "1px"), ("p2", "rgb(46, 94, 140)", "blue", "2px")])
    assert code == 0, err
    cfg = load_campaign(tmp_path / "config" / "paint.toml")
    for row in read_custom_items(cfg):
        page = custom_page(cfg, [{**row, "image_id": row["item_id"]}])
        assert f"width: 260px; height: 160px; border: {row['edge']} solid #999; background: {row['hex']};" in \
            styles_of(page).styles
    assert not [line for line in dry_run_lines(cfg) if line.startswith("PROBLEM")]


def test_an_items_file_with_another_value_is_refused_naming_items_and_column(tmp_path: Path) -> None:
    code, err = imported(tmp_path, [("p1", "#F4C542", "yellow", "1px"), ("p2", HOSTILE[0], "blue", "1px"),
                                    ("p3", "#12", "red", "1px")])
    assert code == 2 and not (tmp_path / "config" / "paint.toml").exists()
    assert "'hex'" in err and "p2" in err and "p3" in err and "p1 " not in err and "'edge'" not in err


def test_a_value_changed_after_the_import_shows_nothing_and_the_dry_run_names_it(tmp_path: Path) -> None:
    assert imported(tmp_path, [("p1", "#F4C542", "yellow", "1px")])[0] == 0
    plain = styles_of(custom_page(load_campaign(tmp_path / "config" / "paint.toml"),
                                  [{"item_id": "p1", "image_id": "p1", "hex": "red", "family": "x", "edge": "1px"}]))
    write_items(tmp_path / "config" / "paint_items.csv", [(f"h{k}", v, "x", "1px") for k, v in enumerate(HOSTILE)])
    cfg = load_campaign(tmp_path / "config" / "paint.toml")
    for row in read_custom_items(cfg):
        shown = styles_of(custom_page(cfg, [{**row, "image_id": row["item_id"]}]))
        assert shown.attributes == plain.attributes and shown.styles[0] == plain.styles[0].replace("red", "")
    problems = [line for line in dry_run_lines(cfg) if line.startswith("PROBLEM") and "'hex'" in line]
    assert len(problems) == 1 and all(f"h{k} " in problems[0] for k in range(5)) and " ..." in problems[0]
