"""A page written for one item, imported and shown with several items on one page: each item's label points at its
own box, an id the page's script reads is left as written, and the page's style is sent once."""

from __future__ import annotations

import re
from pathlib import Path

from flows.cli.main import main
from flows.core.pages.templates import render_source

PAGE = """<html><head><style>.photo { width: 300px; }</style></head><body>
<p>Which photo is sharper?</p>
<img class="photo" src="${left}"><img class="photo" src="${right}">
<label><input type="radio" name="sharper" value="left" required> left</label>
<label><input type="radio" name="sharper" value="right"> right</label>
<label for="why">Why? (at least eight words)</label>
<textarea id="why" name="why" required></textarea>
<div id="counter"></div>
<script>document.getElementById("counter").textContent = "0";</script>
</body></html>
"""


def test_two_items_on_one_page_have_their_own_ids_and_one_style(tmp_path: Path) -> None:
    (tmp_path / "sharp.html").write_text(PAGE, encoding="utf-8")
    assert main(["new", "sharp", "--from", str(tmp_path / "sharp.html"), "--dir", str(tmp_path)]) == 0
    template = (tmp_path / "config" / "sharp.html.j2").read_text(encoding="utf-8")
    items = [{"item_id": f"p{n}", "left": f"https://example.org/{n}a.jpg", "right": f"https://example.org/{n}b.jpg"}
             for n in range(2)]
    page = render_source(template, "t", {"title": "t", "rules": {}, "items": items})
    ids = re.findall(r'\sid="([^"]+)"', page)
    labelled = re.findall(r'<label for="([^"]+)"', page)
    assert labelled == ["why_0", "why_1"] and all(ids.count(i) == 1 for i in labelled)
    assert [re.search(rf'id="{i}" name="([^"]+)"', page)[1] for i in labelled] == ["why_0", "why_1"]
    assert ids.count("counter") == 2 and 'getElementById("counter")' in page  # the script's id, as written
    assert page.count(".photo { width: 300px; }") == 1


DOCUMENT = """<!DOCTYPE html><html><head><title>Headlines</title>
<script>window.loads = (window.loads || 0) + 1;</script></head>
<body onload="window.ready = true"><h1>Headline study</h1>
<p>${headline}</p>
<select name="clear" required><option value="">choose</option><option>yes</option><option>no</option></select>
<script>var shown = "${headline}";</script>
<textarea name="why" required></textarea>
<script>document.title = "Headlines (" + window.loads + ")";</script>
</body></html>
"""


def test_a_documents_own_scripts_and_title_run_once_a_page_and_the_items_own_once_an_item(tmp_path: Path) -> None:
    (tmp_path / "doc.html").write_text(DOCUMENT, encoding="utf-8")
    assert main(["new", "doc", "--from", str(tmp_path / "doc.html"), "--dir", str(tmp_path)]) == 0
    template = (tmp_path / "config" / "doc.html.j2").read_text(encoding="utf-8")
    items = [{"item_id": f"h{n}", "headline": f"Headline number {n}"} for n in range(3)]
    page = render_source(template, "t", {"title": "t", "rules": {}, "items": items})
    once = ["window.loads = (window.loads || 0) + 1", "window.ready = true", "Headline study", "document.title ="]
    assert [page.count(text) for text in once] == [1, 1, 1, 1]
    assert page.index("window.loads =") < page.index('name="clear_0"')  # the head's script runs before the items
    assert page.index("document.title =") > page.index('name="why_2"')  # the closing one after every item
    assert [page.count(f'var shown = "Headline number {n}"') for n in range(3)] == [1, 1, 1]  # reads its item
