"""Table-driven tests of the submit-rule spec (the Python enforcer)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qc.submit_rules import (
    CANNED_TEXT,
    SubmitRules,
    banned_prefix_of,
    count_words,
    is_canned,
    may_open_with_prefix,
    violations,
)

RULES = SubmitRules()
CASES = [
    # text, expected broken rules
    ("A red mug of coffee sits on a wooden desk.", set()),
    ("A red mug sits on a desk", {"min_words"}),  # seven words
    ("A red mug sits on a wooden desk", set()),  # eight words
    ("", {"required", "min_words"}),
    ("   ", {"required", "min_words"}),
    ("... !!! ??? --- ,,, ;;; ::: ***", {"min_words", "one_sentence"}),
    ("A dog sits on the grass. A cat watches it from the fence nearby.", {"one_sentence"}),
    ("A dog sits on the grass near a fence in the yard.", set()),
    ("This is a red mug of coffee on a wooden desk.", {"banned_prefix"}),
    ("this is a red mug of coffee on a wooden desk.", {"banned_prefix"}),
    ("THERE ARE two red mugs of coffee on a wooden desk.", {"banned_prefix"}),
    ("It’s a red mug of coffee sitting on a wooden desk.", {"banned_prefix"}),
    ("It's a red mug of coffee sitting on a wooden desk.", {"banned_prefix"}),
    ("   The image shows a red mug of coffee on a desk.", {"banned_prefix"}),
    ("Itself a red mug, sitting on the wooden desk all day.", set()),
    ("Theimage of a red mug sitting on the wooden desk now.", set()),
    (CANNED_TEXT, set()),
    (CANNED_TEXT.rstrip("."), set()),
]


@pytest.mark.parametrize(("text", "broken"), CASES)
def test_violations_table(text: str, broken: set[str]) -> None:
    assert {v[0] for v in violations(text, RULES)} == broken


def test_max_chars_only_when_configured() -> None:
    long = "A very long description of a dog that runs across a big green field with a red ball."
    assert not violations(long, RULES)
    assert [v[0] for v in violations(long, SubmitRules(max_chars=40))] == ["max_chars"]


@pytest.mark.parametrize(("text", "n"), [("a b c", 3), ("  a   b  ", 2), ("- a -", 1), ("", 0), ("3 dogs", 2)])
def test_count_words(text: str, n: int) -> None:
    assert count_words(text) == n


@pytest.mark.parametrize("text", [CANNED_TEXT, CANNED_TEXT.upper(), "  " + CANNED_TEXT.rstrip(".") + "  ",
                                  "quality issues are too severe to recognize visual content"])
def test_canned_recognised(text: str) -> None:
    assert is_canned(text)


@pytest.mark.parametrize("text", ["Quality issues are severe.", None, 3, CANNED_TEXT + " Also a dog."])
def test_not_canned(text: object) -> None:
    assert not is_canned(text)


# banned_prefix_of reads only the opening (the longest prefix and one character more)
@pytest.mark.parametrize(("text", "prefix"), [
    ("This picture", "This picture"),                        # the prefix alone
    ("This picture   ", "This picture"),                     # trailing spaces right after it
    ("This picture\tof a mug on a desk", "This picture"),
    ("This pictures of a mug on a desk", None),              # a letter right after it
    ("This picture" + "s" * 10_000, None),
    ("\n\t  It’s " + "a very long caption " * 2_000, "It's"),
    ("IT’S", "It's"),
    ("A mug. This is not at the start", None),
    ("", None),
])
def test_banned_prefix_reads_the_opening(text: str, prefix: str | None) -> None:
    assert banned_prefix_of(text, RULES.banned_prefixes) == prefix


PREFIX_SETS = [RULES.banned_prefixes, ("It’s", "I", "Es ist", "Ça", "Это"), ()]


@pytest.mark.parametrize("prefixes", PREFIX_SETS)
@given(opening=st.sampled_from(["", "it's", "IT’S", "  There is", "\tthe Image", "İt is", "ça", "ЭТО", "es IST"]),
       text=st.text(alphabet=st.sampled_from(list("tThHeErRiIsSaA’‘' \t\n.,İıÇçЭэтоxyz1é\u00a0")), max_size=20))
@settings(max_examples=100, deadline=None)  # per prefix set
def test_the_quick_prefix_test_never_misses_what_the_exact_one_flags(prefixes: tuple[str, ...], opening: str,
                                                                     text: str) -> None:
    text = opening + text
    if banned_prefix_of(text, prefixes) is not None:
        assert may_open_with_prefix(prefixes)(text)


@pytest.mark.parametrize(("text", "quick"), [
    ("A red mug on a desk", False),      # most captions stop at one regex call
    ("  this is a mug", True),
    ("It’s a mug", True),                # non-ASCII text always goes on to the exact test
    ("Thesis paper on a desk", False),
])
def test_the_quick_prefix_test_filters_most_captions(text: str, quick: bool) -> None:
    assert may_open_with_prefix(RULES.banned_prefixes)(text) == quick
