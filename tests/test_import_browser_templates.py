"""`hitflow new --from` on pages with Mustache/Handlebars the page's own script renders in the browser:
a `<script type="text/x-handlebars-template">` is named for what it is, not refused as
server-side code and not run as Jinja (with --keep-jinja too), and every `{{ }}` the import keeps as text
gets a note (a kept `{{ example_word }}` once got none although the docs said it did)."""

from __future__ import annotations

import re
from pathlib import Path

from flows.cli.main import main

TEMPLATE_SCRIPT = """<script id="rows" type="text/x-handlebars-template">
<ul>{{#each senses}}<li>{{this}}</li>{{/each}}</ul>{{> footer}}
</script>
<div id="out"></div>
<script>document.getElementById("out").innerHTML =
  Handlebars.compile(document.getElementById("rows").innerHTML)({senses: ["a", "b"]});</script>
"""
PAGE = ("<html><head><title>Words</title>\n<script src=\"https://cdn.example.org/handlebars.min.js\"></script>"
        "</head><body>\n<p>Judge the word ${word}. Example: {{ example_word }}</p>\n" + TEMPLATE_SCRIPT
        + "<input name=\"comment\">\n</body></html>\n")


def imported(tmp_path: Path, capsys, text: str, *flags: str) -> tuple[str, list[str]]:
    page = tmp_path / "page.html"
    page.write_text(text, encoding="utf-8")
    assert main(["new", "words", "--from", str(page), "--dir", str(tmp_path), *flags]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if ": note: " in line]
    return (tmp_path / "config" / "words.html.j2").read_text(encoding="utf-8"), notes


def preview(tmp_path: Path, capsys) -> str:
    out = tmp_path / "preview.html"
    assert main(["preview", str(tmp_path / "config" / "words.toml"), "--out", str(out)]) == 0
    capsys.readouterr()
    return out.read_text(encoding="utf-8")


def test_a_handlebars_template_script_is_named_kept_and_still_there_for_the_script(tmp_path: Path, capsys) -> None:
    _, notes = imported(tmp_path, capsys, PAGE)
    script = [n for n in notes if 'the <script type="text/x-handlebars-template"> is a Handlebars template' in n]
    assert len(script) == 1 and ":4: note:" in script[0] and "not server-side code" in script[0]
    for code in ("{{#each senses}}", "{{this}}", "{{/each}}", "{{> footer}}"):
        assert repr(code) in script[0]
    # the worker's page carries the template as the page wrote it, for Handlebars.compile to find
    assert "<ul>{{#each senses}}<li>{{this}}</li>{{/each}}</ul>{{> footer}}" in preview(tmp_path, capsys)


def test_every_kept_expression_gets_a_note(tmp_path: Path, capsys) -> None:
    text = ("<p>Example: {{ example_word }}</p>\n<p>{{ count }} of {{ total }}</p>\n"
            "<!-- {{ dropped_with_the_comment }} -->\n<input name=\"a\">\n")
    _, notes = imported(tmp_path, capsys, text)
    kept = [m.group(0) for m in re.finditer(r"\{\{.*?\}\}", text) if "dropped" not in m.group(0)]
    said = [n for n in notes if "is kept as text, shown as written" in n]
    assert len(said) == len(kept) == 3
    assert all(repr(code) in note and "${column}" in note and "--keep-jinja" in note
               for code, note in zip(kept, said, strict=True))
    assert [int(n.split(":")[1]) for n in said] == [1, 2, 2]
    assert not any("dropped_with_the_comment" in n for n in notes)


def test_with_keep_jinja_a_template_script_is_not_read_as_jinja(tmp_path: Path, capsys) -> None:
    text = PAGE.replace("${word}", "{{ item.word }}").replace(" Example: {{ example_word }}", "")
    template, notes = imported(tmp_path, capsys, text, "--keep-jinja")
    assert "{% raw %}" in template and any("kept as written in {% raw %}" in n for n in notes)
    (tmp_path / "config" / "words_items.csv").write_text("item_id,word\nw1,lantern\n", encoding="utf-8")
    shown = preview(tmp_path, capsys)
    assert "Judge the word lantern." in shown  # the page's own Jinja ran ...
    assert "<ul>{{#each senses}}<li>{{this}}</li>{{/each}}</ul>{{> footer}}" in shown  # ... the template did not


def test_a_section_no_script_renders_is_still_refused_as_server_side(tmp_path: Path, capsys) -> None:
    page = tmp_path / "page.html"
    page.write_text("<p>Rate it</p>\n{{#each options}}<input type='radio' name='r' value='{{this}}'>{{/each}}\n",
                    encoding="utf-8")
    assert main(["new", "words", "--from", str(page), "--dir", str(tmp_path)]) == 2
    said = capsys.readouterr().err
    assert "Handlebars/Mustache server-side code" in said and 'type="text/x-handlebars-template"' in said
