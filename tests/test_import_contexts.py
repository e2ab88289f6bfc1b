"""The sixth security round: an imported page cannot run an item's script. Each placeholder of ``hitflow new --from``
is placed by the HTML context it stands in or refused with its line; every placed context is rendered with
hostile item text and the result read with html.parser, by code of this test alone: the tags and
attribute names, the scripts' code outside their JSON strings and the styles are those the page has with
a harmless item, no URL attribute starts with ``javascript:``, and no handler, ``srcdoc`` or style holds
the item's text."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flows.cli.main import main
from flows.core.pages.templates import render_source
from flows.custom.page_import import PageProblems, import_page
from flows.custom.scaffold_import import template_text

HOSTILE = ["x onerror=alert(1)", '"><script>alert(1)</script>', "' onmouseover='alert(1)", "javascript:alert(1)",
           "</script><script>alert(1)</script>", "<img src=x onerror=alert(1)>", "';alert(1);//", '";alert(1);//',
           "*/alert(1)/*", "${alert(1)}", "`+alert(1)+`", "\\", "&lt;script&gt;alert(1)&lt;/script&gt;",
           "x\" srcdoc=\"<script>alert(1)</script>", " JaVaScRiPt:alert(1)", "\u2028alert(1)//", "-->alert(1)<!--"]
HARMLESS = "plain"
# (what it is, the page's HTML) for each context a placeholder is placed in
PLACED = [
    ("text", "<p>${t}</p>"),
    ("double-quoted attribute", '<p title="${t}">x</p>'),
    ("single-quoted attribute", "<p title='${t}'>x</p>"),
    ("unquoted attribute", '<img src=${t} alt="y">'),  # the issue's example
    ("unquoted value attribute", "<input value=${t} name=v>"),
    ("URL attribute", '<a href="${t}">x</a>'),
    ("URL attribute with a prefix", "<a href=https://example.org/?q=${t}>x</a>"),
    ("URL attribute starting a path", '<img src="${t}.png" alt="y">'),
    ("URL attribute after a prefix not a scheme", '<img src="image_${t}.png">'),
    ("URL attribute after mailto:", '<a href="mailto:${t}">x</a>'),
    ("iframe src after its host", '<iframe src="https://video.example.org/embed/${t}"></iframe>'),
    ("textarea", "<textarea name=v>${t}</textarea>"),
    ("style attribute's value", '<p style="color: ${t}">x</p>'),
    ("style value beside the page's own", "<div style='width: 9px; background: #${t}; border: 1px solid ${t}'></div>"),
    ("script string", '<script>var a = "${t}";</script>'),
    ("script single-quoted string", "<script>var a = '${t}';</script>"),
    ("script string in another string", "<script>var a = \"say '${t}' now\";</script>"),
    ("script template literal", "<script>var a = `${t}`;</script>"),
    ("script comment", "<script>/* '${t}' */ var a = 1;</script>"),
    ("module script string", '<script type="module">let a = "${t}";</script>'),
    ("JSON data script", '<script type="application/json" id="d">{"a": "${t}"}</script>'),
    ("Liquid text", "<p>{{ task.input.t | upcase }}</p>"),
    ("Liquid unquoted URL", "<img src={{ task.input.t }}>"),
    ("Liquid JSON attribute", "<div data-v={{ task.input.t | to_json }}></div>"),
    ("Liquid JSON quoted attribute", '<crowd-input name="v" value="{{ task.input.t | grant_read_access | to_json }}">'),
    ("Liquid style value", '<div style="color: {{ task.input.t | downcase }}">x</div>'),
    ("Liquid script JSON", "<script>var a = {{ task.input.t | to_json }};</script>"),
    ("Liquid script string", "<script>var a = '{{ task.input.t }}';</script>"),
]
# (what it is, the page's HTML): no placement is safe; the import names the line
REFUSED = [
    ("srcdoc", '<iframe srcdoc="${t}"></iframe>'),
    ("event handler", "<button onclick=\"say('${t}')\">x</button>"),
    ("unquoted event handler", "<img src=a.png onerror=${t}>"),
    ("style property", '<p style="${t}: red">x</p>'),
    ("style declaration of its own", '<p style="color: red; ${t}">x</p>'),
    ("style url()", '<p style="background: url(${t})">x</p>'),
    ("style string", "<p style=\"font-family: 'A ${t}'\">x</p>"),
    ("style comment", '<p style="color: red /* ${t} */">x</p>'),
    ("style function name", '<p style="background: ${t}(https://example.org/a.png)">x</p>'),
    ("style escape", '<p style="color: \\72 ed; background: ${t}">x</p>'),
    ("style element", "<style>p { color: ${t} }</style>"),
    ("tag name", "<${t}>x"),
    ("end tag", "<p>x</${t}>"),
    ("attribute name", "<p ${t}>x</p>"),
    ("script source", '<script src="${t}"></script>'),
    ("base", '<base href="${t}">'),
    ("SVG script", '<svg><script href="${t}"></script></svg>'),
    ("HTML template script", '<script type="text/template"><div title="${t}"></div></script>'),
    ("formaction", "<button formaction=${t}>send</button>"),
    ("iframe src", '<iframe src="${t}"></iframe>'),
    ("scheme before the page's colon", '<a href="${t}:alert(document.domain)">x</a>'),
    ("scheme of two placeholders", '<a href="${t}${u}">x</a>'),
    ("scheme the item completes", "<a href='javascript${t}'>x</a>"),
    ("the page's javascript: URL", "<a href=\"javascript:go('${t}')\">x</a>"),
    ("javascript: URL split by a tab", '<svg><a xlink:href="java\tscript:go(${t})"><text>x</text></a></svg>'),
    ("SVG animation", '<svg><a><animate attributeName="href" to="${t}"/><text>x</text></a></svg>'),
    ("unclosed tag", '<p>x</p>\n<img src="a.png" alt=${t}'),
    ("Liquid event handler", '<div onclick="go({{ task.input.t | to_json }})">x</div>'),
    ("Liquid srcdoc", "<iframe srcdoc='{{ task.input.t | escape }}'></iframe>"),
    ("Liquid script code", "<script>var a = {{ task.input.t }};</script>"),
    ("Liquid script in a string", '<script>var a = "say {{ task.input.t }}";</script>'),
]


class Reading(HTMLParser):
    """What a browser would build from the page: its tags with their attributes, its scripts and styles."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple[str, ...]]] = []
        self.attributes: list[tuple[str, str]] = []
        self.code: dict[str, list[str]] = {"script": [], "style": []}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, tuple(name for name, _ in attrs)))
        self.attributes += [(name, value or "") for name, value in attrs]

    handle_startendtag = handle_starttag

    def handle_data(self, data: str) -> None:
        if self.cdata_elem:
            self.code[self.cdata_elem].append(data)


JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def read(page: str) -> Reading:
    reading = Reading()
    reading.feed(page)
    reading.close()
    return reading


def script_code(reading: Reading) -> list[str]:
    """Each script's code with its double-quoted strings taken out (where the item's text may be, as JSON)."""
    return [JSON_STRING.sub('""', script) for script in reading.code["script"]]


def rendered(page: str, value: str) -> str:
    imported = import_page(page, "page.html")
    template = template_text(imported, Path("page.html"), page)
    item = {"item_id": "i1", **{c: value for c in imported.columns}}
    return render_source(template, "page.html.j2", {"title": "t", "rules": {"kind": "form", "fields": []},
                                                    "items": [item]})


@pytest.mark.parametrize("what,page", PLACED, ids=[w for w, _ in PLACED])
def test_hostile_item_text_stays_text_in_every_placed_context(what: str, page: str) -> None:
    plain = read(rendered(page, HARMLESS))
    for value in HOSTILE:
        hostile = read(rendered(page, value))
        assert hostile.tags == plain.tags, (what, value)  # no tag or attribute of the item's
        assert script_code(hostile) == script_code(plain), (what, value)  # its text only inside JSON strings
        assert hostile.code["style"] == plain.code["style"], (what, value)
        for name, text in hostile.attributes:
            assert not (name.startswith("on") or name in ("srcdoc", "style")) or "alert" not in text, (what, value)
            if name in ("href", "src", "action", "formaction"):
                assert not re.sub(r"[\x00-\x20]", "", text).lower().startswith("javascript:"), (what, value)


def test_item_text_in_a_script_is_one_json_string() -> None:
    """The script reads the item's text as it was: JSON's escapes keep ``</script>`` and quotes inside."""
    for value in HOSTILE:
        scripts = read(rendered('<script>var a = "${t}";</script>', value)).code["script"]
        mine = [s for s in scripts if "var a = " in s]
        assert len(mine) == 1 and json.loads(mine[0].split("var a = ", 1)[1].rstrip().rstrip(";")) == value


def imported_by_cli(tmp_path: Path, page: str) -> tuple[int, str, list[str]]:
    (tmp_path / "page.html").write_text(page)
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main(["new", "imp", "--from", str(tmp_path / "page.html"), "--dir", str(tmp_path / "out")])
    written = sorted(p.name for p in (tmp_path / "out").rglob("imp*")) if (tmp_path / "out").exists() else []
    return code, err.getvalue(), written


@pytest.mark.parametrize("what,page", REFUSED, ids=[w for w, _ in REFUSED])
def test_a_placeholder_no_escaping_protects_is_refused_with_its_line(tmp_path: Path, what: str, page: str) -> None:
    page = "<h1>Task</h1>\n<input name='answer'>\n" + page
    code, err, written = imported_by_cli(tmp_path, page)
    line = page.count("\n", 0, max(page.find("${t}"), page.find("{{ task"))) + 1
    assert code == 2 and written == [], (what, err)
    problems = [x for x in err.splitlines() if x.startswith(f"{tmp_path / 'page.html'}:")]
    assert problems and problems[0].startswith(f"{tmp_path / 'page.html'}:{line}: "), (what, err)
    assert "Traceback" not in err and all(len(x) < 400 for x in problems)


def test_the_issues_unquoted_image_renders_no_handler_through_preview(tmp_path: Path) -> None:
    """The issue's page end to end: imported, its items file given the issue's item, ``hitflow preview``'s
    file holds one <img> whose only attributes are the page's own."""
    code, err, _ = imported_by_cli(tmp_path, "<h1>T</h1><img src=${t} alt=\"y\"><input name=answer>")
    assert code == 0, err
    items = tmp_path / "out" / "config" / "imp_items.csv"
    items.write_text("item_id,t\ni1,x onerror=alert(1)\n")
    out = tmp_path / "preview.html"
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(["preview", str(tmp_path / "out" / "config" / "imp.toml"), "--out", str(out)]) == 0
    images = [t for t in read(out.read_text()).tags if t[0] == "img" and "alt" in t[1]]
    assert images == [("img", ("src", "alt"))]


FRAGMENTS = ["<p>", "</p>", "<p title=", "<a href=", "<img src=", "<input value=", "<div data-x=", " alt=y", ">", '"',
             "'", "${t}", "${u}", " ", "x", "<script>var a = ", "<script>", "</script>", "<style>", "</style>",
             "<!-- ", " -->", "<", "</", "=", "/", "<textarea>", "</textarea>", "<iframe srcdoc=", " onclick=",
             "`", "//", "\n", "&amp;", "{{", "<svg>", "</svg>", "<br/>", ";", "= ", "==", "'${t}'", '"${t}"', "<!",
             "<?", "<![CDATA[", "]]>", "<noscript>", "<title>", "/*", "*/", "<a href=javascript:x>",
             "{{ task.input.t }}", "{{ task.input.t | to_json }}", "{% if task.input.u %}", "{% endif %}",
             "<x-y z=", "/>", "\t"]


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join), st.sampled_from(HOSTILE))
def test_any_page_imported_keeps_hostile_item_text_out_of_markup_and_code(page: str, value: str) -> None:
    """Generated pages: each is refused, or renders a hostile item with the tags, attribute names, code and
    handlers it renders a harmless item with."""
    try:
        plain = read(rendered(page, HARMLESS))
    except PageProblems:
        return
    hostile = read(rendered(page, value))
    assert hostile.tags == plain.tags and script_code(hostile) == script_code(plain), (page, value)
    assert hostile.code["style"] == plain.code["style"], (page, value)
    risky = [(n, v) for n, v in plain.attributes if n.startswith("on") or n in ("srcdoc", "style")]
    assert [(n, v) for n, v in hostile.attributes if n.startswith("on") or n in ("srcdoc", "style")] == risky
    def scripted(reading: Reading) -> list[str]:
        return [t for n, t in reading.attributes if n in ("href", "src") and
                re.sub(r"[\x00-\x20]", "", t).lower().startswith("javascript:")]
    assert scripted(hostile) == scripted(plain), (page, value)


@pytest.mark.browser
def test_chromium_runs_no_item_script_in_the_preview(tmp_path: Path, page) -> None:
    """The preview of an imported page, in Chromium: items written to run script in an unquoted attribute,
    text, a script's string, a link and a focused field run none (no dialog, on load, click or focus),
    while the page's own script runs and reads its item's text exactly."""
    source = ("<h1>T</h1><img src=${a} alt=y><p>${b}</p><a id=go href=${c}>go</a><input id=f name=f value=${d}>"
              "<script>document.title = \"${e}\";</script>")
    assert imported_by_cli(tmp_path, source)[0] == 0
    items = {"a": "x onerror=alert(1)", "b": "<img src=x onerror=alert(2)>", "c": "javascript:alert(3)",
             "d": "x autofocus onfocus=alert(4)", "e": "</script><script>alert(5)</script>"}
    csv = tmp_path / "out" / "config" / "imp_items.csv"
    csv.write_text("item_id," + ",".join(items) + "\ni1," + ",".join(f'"{v}"' for v in items.values()) + "\n")
    out = tmp_path / "preview.html"
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(["preview", str(tmp_path / "out" / "config" / "imp.toml"), "--out", str(out)]) == 0
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(out.as_uri())
    page.focus("#f")
    assert page.title() == items["e"] and page.get_attribute("#go", "href") == "about:blank"
    page.click("#go")  # to about:blank, which safe_url put in javascript:'s place
    page.wait_for_timeout(300)
    assert dialogs == []


def test_many_refused_placeholders_are_named_in_a_few_lines(tmp_path: Path) -> None:
    code, err, written = imported_by_cli(tmp_path, "<input name=a>\n" + '<b onclick="go(${t})">x</b>\n' * 5_000)
    problems = [x for x in err.splitlines() if x.startswith(str(tmp_path / "page.html"))]
    assert code == 2 and written == [] and len(problems) == 31 and "and 4,970 more" in problems[-1]


@pytest.mark.parametrize("script", [
    "var a = \"say '${t}' now\";", "var a = `${t}`;", "/* '${t}' */ var a = 1;", "// '${t}'\nvar a = 1;",
    "if (a) /\"${t}\"/.test(b);", "function f() {} /'${t}'/.test(1);", "var r = /x\"${t}\"/;",
], ids=["string in a string", "template literal", "block comment", "line comment", "regex after a condition",
        "regex after a block", "regex"])
def test_a_placeholder_inside_a_scripts_own_syntax_is_left_as_written(script: str) -> None:
    """Inside a longer string, a template literal, a comment or a regular expression no escaping keeps the
    item's text from being code (JSON's ``/`` ends a regular expression): the script keeps ``${t}`` as it
    was, and the item's text appears nowhere in it."""
    scripts = read(rendered(f"<script>{script}</script>", "/;alert(1);//")).code["script"]
    mine = [s for s in scripts if "${t}" in s]
    assert len(mine) == 1 and "alert" not in mine[0], scripts


@pytest.mark.parametrize("value", ["/\\evil.example/x.js", "\\\\evil.example", "/\t/evil.example", "\x01//evil.example",
                                   " //evil.example"])
def test_a_url_attribute_never_names_another_host(value: str) -> None:
    """A browser drops tabs and newlines from a URL, strips controls and spaces at its ends and reads ``\\``
    as ``/`` in an http(s) page's links: each of these is ``//evil.example`` to it, another host."""
    hrefs = [v for n, v in read(rendered('<a href="${t}">x</a>', value)).attributes if n == "href"]
    seen = [re.sub(r"[\t\n\r]", "", h).lstrip("".join(map(chr, range(0x21)))).replace("\\", "/") for h in hrefs]
    assert seen and not any(h.startswith("//") for h in seen), hrefs
