"""The sixth security round: every error a requester's template raises while it compiles or renders is one line, never
a traceback, in ``hitflow preview``, ``hitflow run --dry-run`` and ``hitflow new --keep-jinja``: round six's
examples (a filter's own argument check, an unknown test or filter in ``select``/``map``, two ``{% extends
%}``, 25 nested loops), each through the CLI's ``main()``, its exit code and what it printed."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from flows.cli.main import main

PAGE = ('{% extends "_custom_page.html.j2" %}\n{% block item %}\n<p>{{ item.t }}</p>EXPR\n'
        '<input name="answer_{{ i }}" required>\n{% endblock %}\n')  # answered: the dry run's rehearsal passes it
NESTED = "".join(f"{{% for x{n} in [1] %}}" for n in range(25)) + "x" + "{% endfor %}" * 25
# (the template, the line the error names: 0 where Jinja gives none)
EXAMPLES = [
    (PAGE.replace("EXPR", "{{ 1.5|round(method='bogus') }}"), 3),
    (PAGE.replace("EXPR", "{{ {'a': 1}|dictsort(by='x') }}"), 3),
    (PAGE.replace("EXPR", "{{ [1]|select('no_such_test')|list }}"), 3),
    (PAGE.replace("EXPR", "{{ [1]|map('no_such_filter')|list }}"), 3),
    (PAGE.replace("EXPR", "{{ [{'a': 1}]|selectattr('a', 'no_such_test')|list }}"), 3),
    ('{% extends "_custom_page.html.j2" %}\n' + PAGE.replace("EXPR", ""), 1),
    (PAGE.replace("EXPR", NESTED), 0),
]
IDS = ["round method", "dictsort by", "select test", "map filter", "selectattr test", "two extends", "25 loops"]


def cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main(list(argv))
    return code, err.getvalue()


@pytest.fixture
def campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A campaign imported from a page of the requester's own Jinja; its template is rewritten per example."""
    (tmp_path / "page.html").write_text(PAGE.replace("EXPR", ""))
    assert cli("new", "err", "--from", str(tmp_path / "page.html"), "--dir", str(tmp_path), "--keep-jinja")[0] == 0
    monkeypatch.chdir(tmp_path)
    return tmp_path / "config" / "err.toml"


def one_error_line(err: str, line: int) -> None:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    where = f"err.html.j2:{line}: " if line else "err.html.j2: "
    assert lines[0].startswith("hitflow: error: ") and where in lines[0], err


@pytest.mark.parametrize("template,line", EXAMPLES, ids=IDS)
def test_preview_and_the_dry_run_say_one_line(campaign: Path, template: str, line: int) -> None:
    campaign.with_name("err.html.j2").write_text(template)
    code, err = cli("preview", str(campaign), "--out", str(campaign.parent / "preview.html"))
    assert code == 2
    one_error_line(err, line)
    code, err = cli("run", str(campaign), "--dry-run")
    assert code == 2
    one_error_line(err, line)


@pytest.mark.parametrize("template,line", EXAMPLES, ids=IDS)
def test_new_keep_jinja_writes_the_page_for_the_dry_run_to_name(tmp_path: Path, template: str, line: int) -> None:
    """The import renders the page once only to refuse what builds too much; any other error is the dry
    run's to name (above), so the page is written and nothing but the usual lines is printed."""
    (tmp_path / "page.html").write_text(template)
    code, err = cli("new", "err", "--from", str(tmp_path / "page.html"), "--dir", str(tmp_path), "--keep-jinja")
    assert code == 0 and "Traceback" not in err and (tmp_path / "config" / "err.html.j2").read_text() == template


@pytest.mark.parametrize("section", ["<![foo bar]>", "<![ x ]>", "<![foo[x]]>"])
def test_a_marked_section_html_parser_does_not_know_is_read_as_a_browser_reads_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, section: str) -> None:
    """html.parser raises AssertionError on ``<![foo bar]>`` (to browsers a comment up to its ``>``): ``new``
    (a ``${x}`` page and a Jinja one), ``preview`` and the dry run printed its traceback."""
    (tmp_path / "dollar.html").write_text(f"<h1>T</h1><p>${{t}}</p>{section}<input name=a required>\n")
    (tmp_path / "own.html").write_text(PAGE.replace("EXPR", section))
    assert cli("new", "dollar", "--from", str(tmp_path / "dollar.html"), "--dir", str(tmp_path)) == (0, "")
    code, err = cli("new", "own", "--from", str(tmp_path / "own.html"), "--dir", str(tmp_path), "--keep-jinja")
    assert code == 0 and "Traceback" not in err
    monkeypatch.chdir(tmp_path)
    for name in ("dollar", "own"):
        code, err = cli("preview", f"config/{name}.toml", "--out", f"{name}.html")
        assert code == 0 and "Traceback" not in err, err
        code, err = cli("run", f"config/{name}.toml", "--dry-run")
        assert code == 0 and "Traceback" not in err, err


def test_a_placeholder_after_an_unknown_marked_section_keeps_its_place(tmp_path: Path) -> None:
    """html.parser moved its position past ``<![`` before giving up, so later tokens were reported 3
    characters on and a placeholder fell in none (a KeyError traceback from ``new``)."""
    (tmp_path / "page.html").write_text("<input name=a><![><p>${t}</p>")
    assert cli("new", "imp", "--from", str(tmp_path / "page.html"), "--dir", str(tmp_path)) == (0, "")
    assert "<p>{{ item.t }}</p>" in (tmp_path / "config" / "imp.html.j2").read_text()
