"""A page's `pattern` attribute is matched in time linear in the answer, read as a browser reads it (JavaScript
under the v flag), or refused with its reason: at import with its line, as a dry-run problem, and never by a
stalled QC. A page's `!/^(a+)+$/.test(x.value)` becomes `pattern="(a+)+"`; Python's backtracking `re` took
16.6 s of CPU on a 29-character answer to it."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.custom.page_check import refused_pattern_problems
from flows.custom.page_import import PageProblems, import_page
from flows.sim.people.pattern_text import matching_text
from qc.form_constraints import check_field, compiled_pattern
from qc.page_patterns import PagePattern, PatternRefused, page_pattern, translated


def _text(pattern: str) -> dict[str, object]:
    return {"name": "code", "type": "text", "input": "text", "required": True, "pattern": pattern}


def test_qc_matches_patterns_with_a_linear_time_engine() -> None:
    """The engine is RE2, which never backtracks: the check of a blow-up pattern is its object, not `re`'s."""
    found = compiled_pattern("(a+)+")
    assert isinstance(found, PagePattern) and type(found.regex).__module__.startswith("re2")
    assert check_field(_text("(a+)+"), "a" * 28 + "!") == "pattern"
    assert check_field(_text("(a+)+"), "a" * 28) == ""


@pytest.mark.parametrize(("pattern", "value", "matches"), [
    (r"\d{3}", "١٢٣", False),  # Arabic-Indic digits: Python's \d takes them, JavaScript's does not
    (r"\d{3}", "123", True),
    (r"\w+", "é", False),  # JavaScript's \w is ASCII
    ("a.b", "a\rb", False),  # "." stops at every line terminator in JavaScript, \r too
    (r"\s", "\u00a0", True),  # JavaScript's \s takes a no-break space
    (r"\s", "\u200b", False),
    (r"\u{1F600}", "\U0001F600", True),  # one code point under the v flag
    (r"\uD83D\uDE00", "\U0001F600", True),
    ("[^]", "x", True), ("[]", "", False),
    (r"[a-z\-]+", "a-b", True),
    ("a|b", "ab", False),  # the whole value: ^(?:a|b)$, not ^a|b$
    (r"x\p{Lu}", "xÉ", True),
])
def test_a_pattern_reads_as_javascript_reads_it(pattern: str, value: str, matches: bool) -> None:
    found = page_pattern(pattern)
    assert isinstance(found, PagePattern), found
    assert found.matches(value) is matches


@pytest.mark.parametrize(("pattern", "why"), [
    (r"(a)\1", "back-reference"), (r"(?<x>a)\k<x>", "back-reference"), ("(?=a)a", "look-around"),
    ("(?<!a)b", "look-around"), ("[a-z-]", "'-' in a class"), ("a{", "lone '{'"), ("a}", "lone '}'"),
    ("]", "lone ']'"), (r"\@", r"escape \@"), ("[A--B]", "set operation"), ("[[a]]", "nested class"),
    ("(?i:a)", "modifier"), ("(?P<n>a)", "Python-only"), ("a{2000}", "over 1,000"), ("a{3,2}", "below n"),
    (r"\p{Alphabetic}", "Unicode property"), (r"\uD800", "lone surrogate"), ("(a", "without its ')'"),
    ("a)", "without its '('"), ("*a", "lone '*'"), ("a**", "nothing to repeat"), ("[a&&b]", "set operation"),
    ("(" * 2000 + ")" * 2000, "nested too deeply"),
])
def test_what_cannot_be_read_or_bounded_is_refused_with_its_reason(pattern: str, why: str) -> None:
    found = page_pattern(pattern)
    assert isinstance(found, PatternRefused) and why in str(found)
    assert compiled_pattern(pattern) is None  # QC checks no such pattern; the dry run names it (below)


def test_a_pattern_too_large_for_the_engine_is_refused() -> None:
    found = page_pattern("(?:(?:a{1000}){1000}){1000}")
    assert isinstance(found, PatternRefused)


# the pieces a page's pattern is made of: every one of them kept by the importer
ATOMS = st.sampled_from(["a", "b", "ab", ".", r"\d", r"\w", r"\s", "[a-c]", "[^a]", r"\.", "(?:a|b)", "(a+)",
                         "(a*)", "(a|aa)", "(a|a)", r"[\w.\-]", "@"])
QUANTIFIERS = st.sampled_from(["", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?"])


@st.composite
def patterns(draw: st.DrawFn, depth: int = 2) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        atom = f"(?:{draw(patterns(depth - 1))})" if depth and draw(st.booleans()) else draw(ATOMS)
        parts.append(f"(?:{atom})" if len(atom) > 1 and not atom.startswith(("(", "[")) else atom)
        parts[-1] += draw(QUANTIFIERS)
    return ("|" if draw(st.booleans()) else "").join(parts)


@settings(max_examples=60, deadline=None)  # pieces and quantifiers recur long before 200
@given(patterns(), st.sampled_from(["a", "ab", "a@b.", " ", "aa", "1"]), st.integers(1, 10_000),
       st.sampled_from(["", "!", "\n", "a", "@"]))
def test_any_kept_pattern_matches_like_a_backtracking_engine_and_never_stalls(
        pattern: str, unit: str, times: int, tail: str) -> None:
    """Against 10,000-character answers the check stays linear (bench/security.py times it); on short ones it
    agrees with Python's own re, whose reading of these pieces is JavaScript's, on the same translation."""
    found = page_pattern(pattern)
    assert isinstance(found, PagePattern), (pattern, found)
    value = (unit * times)[:10_000] + tail
    got = found.matches(value)
    if len(value) <= 12:  # short enough for backtracking to finish
        assert got == bool(re.fullmatch(f"(?:{translated(pattern)})", value))


def test_a_pattern_attribute_the_importer_cannot_check_is_refused_with_its_line() -> None:
    page = ('<html><body>\n<p>Type the code twice</p>\n<input name="a" pattern="(\\w+)\\1">\n'
            '<input name="b" pattern="[a-z-]+">\n<input name="c" pattern="(a+)+">\n</body></html>\n')
    with pytest.raises(PageProblems) as got:
        import_page(page, "twice.html")
    lines = got.value.lines
    assert lines[0].startswith("twice.html:3: the pattern '(\\\\w+)\\\\1' cannot be checked: a back-reference")
    assert lines[1].startswith("twice.html:4: the pattern '[a-z-]+' cannot be checked: a '-' in a class")
    assert len(lines) == 2  # (a+)+ is kept: RE2 matches it in linear time


def test_a_script_check_the_engine_cannot_bound_stays_the_scripts() -> None:
    page = ('<html><body><form id="f"><input id="w" name="word"><button type="submit" id="go">Go</button></form>'
            '<script>document.getElementById("go").addEventListener("click", function (e) {\n'
            '  if (!/^(\\w)\\1$/.test(document.getElementById("w").value)) { alert("twice"); e.preventDefault(); }\n'
            '  if (!/^(a+)+$/.test(document.getElementById("w").value)) { alert("as"); e.preventDefault(); }\n'
            '});</script></body></html>')
    imported = import_page(page, "twice.html")
    notes = [n for n in imported.notes if "submit check" in n]
    assert "stays in its script only" in notes[0] and "is now the page rule pattern='(a+)+'" in notes[1]
    assert 'pattern="(a+)+"' in imported.body and "\\1" not in imported.body.split("<script")[0]


def test_the_dry_run_names_a_rendered_pattern_it_refuses() -> None:
    spec = {"kind": "form", "fields": [_text("(.)\\1"), {**_text("\\d+"), "name": "zip"}]}
    problems = refused_pattern_problems(spec)
    assert len(problems) == 1 and problems[0].startswith("field code: the pattern '(.)\\\\1' cannot be checked")


def test_a_simulated_worker_types_a_value_the_page_accepts() -> None:
    rng = random.Random(3)
    for pattern in (r"\d{5}", "[A-Z]{2}-\\d{3}", "(a+)+", r"\w+@\w+\.com"):
        text = matching_text(pattern, rng)
        assert text is not None and check_field(_text(pattern), text) == ""
    assert matching_text(r"(a)\1", rng) is None


def test_a_question_forms_regex_the_engine_cannot_bound_is_refused_with_its_line() -> None:
    form = ('<QuestionForm xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2017-11-06/'
            'QuestionForm.xsd">\n<Question><QuestionIdentifier>code</QuestionIdentifier><IsRequired>true</IsRequired>'
            '<QuestionContent><Text>Type the code</Text></QuestionContent><AnswerSpecification><FreeTextAnswer>'
            '<Constraints>\n<AnswerFormatRegex regex="(\\w)\\1" errorText="twice"/></Constraints></FreeTextAnswer>'
            '</AnswerSpecification></Question>\n</QuestionForm>')
    with pytest.raises(PageProblems) as got:
        import_page(form, "form.xml")
    assert got.value.lines == [got.value.lines[0]] and got.value.lines[0].startswith(
        "form.xml:3: the pattern '(\\\\w)\\\\1' cannot be checked: a back-reference")
    kept = import_page(form.replace("(\\w)\\1", "[A-Z]{3}"), "form.xml")
    assert 'pattern="[A-Z]{3}"' in kept.body


def test_a_value_past_the_checked_length_does_not_match_and_is_not_read() -> None:
    from qc.page_patterns import MAX_CHECKED

    anything = page_pattern(".*")
    assert isinstance(anything, PagePattern)
    assert anything.matches("a" * MAX_CHECKED) and not anything.matches("a" * (MAX_CHECKED + 1))
