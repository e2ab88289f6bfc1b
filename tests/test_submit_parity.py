"""The page's rule scripts and the server agree on generated strings, without a browser.

hit_templates/validation.js and judgement.js run under node (tests/js/rules_harness.js, one node
process per test, one JSON line per example); hypothesis writes the strings, biased toward the
characters where JavaScript and Python part ways by default (a BOM, NBSP, U+2028, zero-width
characters, U+001C..U+001F, astral emoji, combining marks, CRLF, ``|`` and odd numbers). Each
caption's verdict must be the same three times: the page's script, ``qc.submit_rules.violations``
(the simulator's worker) and the server's registered QC rules. The named regression cases pin the
expected verdict itself, so the sides cannot agree on a wrong one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qc.form_constraints import check_field
from qc.judgement_spec import check_answers
from qc.runner import prepare, run_rules
from qc.submit_rules import CHECKS, SPACE, VIZWIZ_BANNED_PREFIXES, SubmitRules, violations
from tests.judgement_questions import AGE, MANY, SLIDER

HARNESS = Path(__file__).resolve().parent / "js" / "rules_harness.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed: the page scripts cannot run "
                                                     "without a browser (apt-get install nodejs)")
SUBMIT_RULE_NAMES = tuple(CHECKS)


class PageScripts:
    """One node process running the pages' rule scripts: a line of JSON in, a verdict out."""

    def __init__(self) -> None:
        assert NODE is not None
        self.proc = subprocess.Popen([NODE, str(HARNESS)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8", bufsize=1)

    def ask(self, job: dict[str, Any]) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")  # ASCII JSON: no raw U+2028 or CR in the line
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"node exited ({self.proc.poll()})"
        return json.loads(line)

    def violations(self, text: str, rules: SubmitRules) -> list[tuple[Any, ...]]:
        return [tuple(v) for v in self.ask({"text": text, "spec": rules.to_page_spec()})]

    def broken(self, question: dict[str, Any], values: dict[str, str]) -> str:
        return str(self.ask({"question": question, "values": values}))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def scripts() -> Iterator[PageScripts]:
    node = PageScripts()
    yield node
    node.close()


def server_verdicts(texts: list[str], rules: SubmitRules) -> list[list[tuple[Any, ...]]]:
    """What the server's QC flags on each caption (one batch, one caption per image), in the page's order."""
    frame = prepare(pd.DataFrame({"assignment_id": [f"A{k}" for k in range(len(texts))], "worker_id": "W1",
                                  "image_id": [f"I{k}" for k in range(len(texts))], "caption": texts}))
    flags = run_rules(frame, {"submit_rules": rules}, SUBMIT_RULE_NAMES)
    assert "rule_error" not in set(flags["rule"])
    found = {(r.image_id, r.rule): (r.rule, r.value, r.threshold) for r in flags.itertuples()}
    return [[found[(f"I{k}", name)] for name in SUBMIT_RULE_NAMES if (f"I{k}", name) in found]
            for k in range(len(texts))]


def three_verdicts(scripts: PageScripts, texts: list[str], rules: SubmitRules) -> list[list[tuple[Any, ...]]]:
    """The page's, the simulator's and the server's verdicts on each caption, asserted equal."""
    for text, server in zip(texts, server_verdicts(texts, rules), strict=True):
        page, python = scripts.violations(text, rules), list(violations(text, rules))
        assert page == python == server, (text, page, python, server)
    return [list(violations(text, rules)) for text in texts]


# Where JavaScript's \s/trim()/length/Number() and Python's str.isspace/strip()/len/float differ.
HARD = [*SPACE, "\u00ad", "\u0301", "\u0308", "\u202e", "\x00", "\x7f", "\u0085", "😀", "👍🏽", "👨\u200d👩\u200d👧",
        "\U0001d400", "𝒜", "é", "e\u0301", "İ", "ı", "Σ", "ς", "ß", "ﬁ", "’", "‘", "'", ".", "!", "?", "...",
        "|", "_", "\r\n", "\r", "\n", "0x12", "1_8", "a||b", "x", "A", "9"]
WORDS = ["a", "dog", "runs", "on", "the", "grass", "This is", "It’s", "It's", "There are", "the image", "THIS IS",
         "it is", "Σίσυφος", "İt is"]
PIECE = st.one_of(st.sampled_from(HARD), st.sampled_from(WORDS),
                  st.text(st.characters(exclude_categories=("Cs", "Cn")), max_size=4))
CAPTIONS = st.lists(PIECE, max_size=24).map("".join)
PREFIX_SETS = [VIZWIZ_BANNED_PREFIXES, (), ("A ",), ("It’s", "İt", "Σ", "😀 dog", "a||b")]
SPECS = st.builds(SubmitRules, min_words=st.integers(0, 12), one_sentence=st.booleans(),
                  banned_prefixes=st.sampled_from(PREFIX_SETS), max_chars=st.sampled_from([None, 0, 1, 5, 12, 40]),
                  required=st.booleans())


@given(texts=st.lists(CAPTIONS, min_size=1, max_size=10), rules=SPECS)
@settings(max_examples=60, deadline=None)  # about 300 captions: a batch per example keeps pandas' cost down
def test_page_simulator_and_server_agree_on_generated_captions(scripts: PageScripts, texts: list[str],
                                                                rules: SubmitRules) -> None:
    three_verdicts(scripts, texts, rules)


def test_page_and_server_split_words_on_the_same_characters(scripts: PageScripts) -> None:
    """Every space-like, control and format character (where SPACE could hide on either side):
    the page and the server split "a<c>b" into the same number of words."""
    kinds = {"Zs", "Zl", "Zp", "Cc", "Cf"}
    candidates = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in kinds or chr(c).isspace()]
    two_words = SubmitRules(min_words=2, one_sentence=False, banned_prefixes=(), required=False)
    splits = {c for c in candidates if not scripts.violations(f"a{c}b", two_words)}
    assert splits == {c for c in candidates if not violations(f"a{c}b", two_words)} == set(SPACE)


VIZWIZ = SubmitRules(max_chars=60)


@pytest.mark.parametrize(("text", "rules", "expected"), [
    # emoji under max_chars: code points, not UTF-16 units (12 emoji are 24 units; a family is 5 code points)
    ("🐶" * 12, SubmitRules(min_words=0, max_chars=20), []),
    ("🐶" * 21, SubmitRules(min_words=0, max_chars=20), [("max_chars", 21, 20)]),
    ("A dog 👨\u200d👩\u200d👧 waits.", SubmitRules(min_words=0, max_chars=17), [("max_chars", 18, 17)]),
    # a leading byte-order mark is trimmed on both sides: the prefix under it is seen
    ("\ufeffThis is a dog running on the grass near a fence.", VIZWIZ, [("banned_prefix", "This is", "not allowed")]),
    ("\ufeffA dog runs on the grass near a red fence.\ufeff", SubmitRules(max_chars=41), []),
    # a||b, 1_8, 0x12: one word each
    ("a||b 1_8 0x12", SubmitRules(min_words=4), [("min_words", 3, 4)]),
    ("a||b 1_8 0x12 ok", SubmitRules(min_words=4), []),
    # blank, whichever the invisible characters
    ("\u200b", SubmitRules(min_words=0), [("required", 0, 1)]),
    ("\u00a0\u2028\t\x0b\x0c", SubmitRules(min_words=0), [("required", 0, 1)]),
    ("\x1c\x1f\u3000\u2060", SubmitRules(min_words=0), [("required", 0, 1)]),
    ("\ufeff", SubmitRules(), [("required", 0, 1), ("min_words", 0, 8)]),
    # a second sentence after any space, a zero-width one too
    ("A dog sits.\u2028A cat sits on the warm mat.", SubmitRules(min_words=0), [("one_sentence", "2+ sentences",
                                                                                 "1 sentence")]),
    ("A dog sits.\u200bA cat sits.", SubmitRules(min_words=0), [("one_sentence", "2+ sentences", "1 sentence")]),
    ("A dog sits.\x1cA cat sits.", SubmitRules(min_words=0), [("one_sentence", "2+ sentences", "1 sentence")]),
    # a CRLF counts once: the textarea held LF
    ("ab\r\ncd", SubmitRules(min_words=0, max_chars=5), []),
    # a prefix followed by an astral letter is a longer word, not the prefix
    ("It's\U0001d400 a dog on the grass by a red fence.", VIZWIZ, []),
    ("It's 😀 a dog on the grass by a red fence.", VIZWIZ, [("banned_prefix", "It's", "not allowed")]),
])
def test_named_parity_cases(scripts: PageScripts, text: str, rules: SubmitRules, expected: list[tuple]) -> None:
    assert three_verdicts(scripts, [text], rules) == [expected]


ONE = {"name": "q_0", "type": "one", "options": ["1", "2", "", "a|b"]}
CATS = {"name": "categories_0", "type": "many", "options": ["age", "gender", ""], "min": 0,
        "needs": {"name": "congruent_0", "value": "incongruent", "min": 1},
        "forbids": {"name": "congruent_0", "value": "congruent"}}
QUESTIONS = [ONE, MANY, CATS, SLIDER, AGE]
ODD_NUMBERS = ["0x12", "1_8", "18", "1e1", "1E+1", "+18", "18.", ".5e2", "-0", "1e400", "Infinity", "NaN", "inf",
               "١٨", " 34", "34 ", "\ufeff34", "34\x1c", "0b101", "0o22", "", " ", "30.5", "-.5", "50", "100.0"]
ANSWER = st.one_of(st.sampled_from(ODD_NUMBERS), st.text(st.sampled_from(list("0123456789.eE+-x_ |\ufeff\x1c")),
                                                         max_size=8),
                   st.lists(st.sampled_from(["s1", "s2", "none", "", "age", "gender", "1", "a|b"]), max_size=4)
                   .map("|".join))


@given(question=st.sampled_from(QUESTIONS), answer=ANSWER,
       congruent=st.sampled_from(["", "congruent", "incongruent"]), moved=st.sampled_from(["", "0", "1"]))
@settings(max_examples=100, deadline=None)
def test_judgement_page_and_server_agree_on_generated_answers(scripts: PageScripts, question: dict[str, Any],
                                                              answer: str, congruent: str, moved: str) -> None:
    values = {question["name"]: answer, "congruent_0": congruent, "moved_score_0": moved}
    on_server = check_answers({"questions": [question]}, values)
    assert scripts.broken(question, values) == (on_server[0]["rule"] if on_server else ""), values


@pytest.mark.parametrize(("question", "answer", "rule"), [
    (MANY, "s1||s2", "not_an_option"),  # an empty tick is not one of the options
    (CATS, "age||gender", ""),          # ... unless the page has an option with an empty value
    (AGE, "1_8", "out_of_range"),       # Python's float read 18
    (AGE, "0x12", "out_of_range"),      # JavaScript's Number read 18
    (AGE, "18", ""), (AGE, "1.8e1", ""), (AGE, " 18", "out_of_range"), (AGE, "", "unanswered"),
])
def test_named_judgement_cases(scripts: PageScripts, question: dict[str, Any], answer: str, rule: str) -> None:
    values = {question["name"]: answer, "congruent_0": "incongruent"}
    on_server = check_answers({"questions": [question]}, values)
    assert (on_server[0]["rule"] if on_server else "") == rule
    assert scripts.broken(question, values) == rule


@pytest.mark.parametrize(("field", "answer", "rule"), [
    ({"type": "many", "options": ["a", "b"]}, "a||b", "not_an_option"),
    ({"type": "many", "options": ["a", "b", ""]}, "a||b", ""),
    ({"type": "number", "min": 0, "max": 100}, "1_8", "not_a_number"),
    ({"type": "number", "min": 0, "max": 100}, "0x12", "not_a_number"),
    ({"type": "number", "min": 0, "max": 100, "step": "any"}, "1e1", ""),
    ({"type": "number", "min": 0, "max": 100}, "+18", "not_a_number"),
])
def test_custom_form_reads_answers_as_a_browser_writes_them(field: dict[str, Any], answer: str, rule: str) -> None:
    """A custom page leaves these to the browser, whose number input submits only a valid
    floating-point number (or nothing) and whose checkboxes submit their own values: anything
    else was posted around the page."""
    assert check_field({"name": "f", **field}, answer) == rule
