"""`hitflow new --from` keeps a crowd page's answers to what MTurk would post:
a paragraph that opens with "Instructions:" inside the <crowd-form> (as Ground Truth's text templates
write it) is the page's instructions, shown once and not read as the item's text; a control outside
the <crowd-form> is not a field, since MTurk never submits it. Pages of our own in those shapes."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from flows.cli.main import main
from flows.custom.page_import import import_page

NEXT_WORD = """<script src="https://assets.crowd.aws/crowd-html-elements.js"></script>
<crowd-form>
  <p><b>Instructions:</b> Read the line and type the one word you expect to come next.</p>
  <p><strong>Line: </strong>${line} ____</p>
  <crowd-input name="word" label="The next word"></crowd-input>
</crowd-form>
"""
ZOOM = """<script src="https://assets.crowd.aws/crowd-html-elements.js"></script>
<p>Zoom the photo if it helps:</p>
<input type="range" name="zoom" id="zoom" min="1" max="4" value="1">
<crowd-form>
  <img id="photo" src="${photo}" alt="">
  <crowd-text-area name="note" label="What is in the photo?" required></crowd-text-area>
</crowd-form>
<script>document.getElementById("zoom").addEventListener("input", function (e) {
  document.getElementById("photo").style.width = (25 * e.target.value) + "%"; });</script>
"""


def test_an_instructions_paragraph_leaves_the_item_block_with_a_note() -> None:
    imported = import_page(NEXT_WORD, "next_word.html")
    assert "type the one word you expect" in imported.instructions
    assert "type the one word you expect" not in imported.body  # it was in the item block, read as the item's
    assert "{{ item.line }}" in imported.body
    assert any("instructions (1 block) were moved" in n for n in imported.notes), imported.notes


def test_a_control_outside_the_crowd_form_is_no_field(tmp_path: Path, monkeypatch, capsys) -> None:
    page = tmp_path / "zoom.html"
    page.write_text(ZOOM, encoding="utf-8")
    assert main(["new", "zoom", "--from", str(page), "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert '<input name="zoom"> is outside the page\'s <crowd-form>' in out.out + out.err
    template = (tmp_path / "config" / "zoom.html.j2").read_text()
    assert 'data-unposted="zoom"' in template and 'id="zoom"' in template  # still there for its script
    with (tmp_path / "config" / "zoom_items.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["item_id", "photo"]] + [[f"z{n}", f"https://example.org/z/{n}.jpg"]
                                                         for n in range(4)])
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/zoom.toml", "--no-prefect"]) == 0
    data = pd.read_csv(tmp_path / "runs" / "zoom" / "dataset.csv", keep_default_na=False, dtype=str)
    assert set(data["field"]) == {"note"}  # "zoom" was a column MTurk would never have sent
