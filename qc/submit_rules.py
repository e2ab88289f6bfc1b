"""The submit-rule spec: declared once in a task config, enforced by the page and by QC.

The browser-side twin of these checks is ``hit_templates/validation.js``; the two must
agree on every string (tests/test_rule_parity.py runs both over one table).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

CANNED_TEXT = "Quality issues are too severe to recognize visual content."

VIZWIZ_BANNED_PREFIXES: tuple[str, ...] = (
    "There is", "There are", "This is", "These are", "The image",
    "The picture", "This image", "This picture", "It is", "It's",
)

_WHITESPACE = re.compile(r"\s+")
# A whitespace-separated token holding a letter or digit: one match per such token. A match
# starts at the token's first [A-Za-z0-9] and \S* runs to its end; a token without one cannot
# match at all. (The same count as \S*[A-Za-z0-9]\S*, without its backtracking.)
_WORD = re.compile(r"[A-Za-z0-9]\S*")
# A sentence end followed by more text: "Contains only one period followed by a space".
_SECOND_SENTENCE = re.compile(r"[.!?]\s+\S")
_CURLY_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})


@dataclass(frozen=True)
class SubmitRules:
    """What a caption must satisfy before the page lets a worker go on."""

    min_words: int = 8
    one_sentence: bool = True
    banned_prefixes: tuple[str, ...] = VIZWIZ_BANNED_PREFIXES
    max_chars: int | None = None
    required: bool = True
    canned_text: str = CANNED_TEXT

    def to_page_spec(self) -> dict[str, object]:
        """The JSON the page's validation script reads (one spec, two enforcers)."""
        return {
            "min_words": self.min_words,
            "one_sentence": self.one_sentence,
            "banned_prefixes": list(self.banned_prefixes),
            "max_chars": self.max_chars,
            "required": self.required,
            "canned_text": self.canned_text,
        }


def count_words(text: str) -> int:
    """Whitespace-separated tokens that contain at least one letter or digit."""
    return len(_WORD.findall(text))


def has_second_sentence(text: str) -> bool:
    return bool(_SECOND_SENTENCE.search(text.strip()))


def banned_prefix_of(text: str, prefixes: tuple[str, ...]) -> str | None:
    """The banned prefix the text opens with (any case, curly or straight apostrophe)."""
    normalised = _normalised(tuple(prefixes))
    # Only the opening can match: translating and lower-casing a whole long caption cost more than
    # the test. One character past the longest prefix keeps the "not followed by a letter" check.
    norm = text.lstrip()[: _longest(normalised) + 1].rstrip().translate(_CURLY_APOSTROPHES).lower()
    if not norm.startswith(normalised):  # one C-level test for the common case: no prefix at all
        return None
    for prefix, p in zip(prefixes, normalised, strict=True):
        if norm.startswith(p) and (len(norm) == len(p) or not norm[len(p)].isalpha()):
            return prefix
    return None


def may_open_with_prefix(prefixes: tuple[str, ...]) -> Callable[[str], bool]:
    """A quick test that is true for every text :func:`banned_prefix_of` would flag, and false for
    most others: one regex call instead of a few string methods per caption. Non-ASCII texts always
    pass (their case folding is left to the exact test)."""
    pattern = _prefix_pattern(tuple(prefixes))
    return lambda text: not text.isascii() or pattern.match(text) is not None


@lru_cache(maxsize=16)
def _prefix_pattern(prefixes: tuple[str, ...]) -> re.Pattern[str]:
    # \s is str.isspace (so \s* is lstrip); on ASCII text IGNORECASE is lower()
    options = "|".join(re.escape(p).replace("'", "['\u2019\u2018]") for p in _normalised(prefixes))
    return re.compile(rf"\s*(?:{options})", re.IGNORECASE) if options else re.compile(r"(?!)")


@lru_cache(maxsize=16)
def _longest(prefixes: tuple[str, ...]) -> int:
    return max((len(p) for p in prefixes), default=0)


@lru_cache(maxsize=16)
def _normalised(prefixes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p.translate(_CURLY_APOSTROPHES).lower() for p in prefixes)


def _canned_form(s: str) -> str:
    return _WHITESPACE.sub(" ", s.strip()).rstrip(".").strip().lower()


_canned_form_of_config = lru_cache(maxsize=16)(_canned_form)  # one canned text per task, 200,000 captions


def is_canned(text: object, canned_text: str = CANNED_TEXT) -> bool:
    """Canned text is recognised after trimming spaces and a final period, in any case."""
    if not isinstance(text, str) or not canned_text.strip():
        return False  # a task without a canned answer has no canned captions
    return _canned_form(text) == _canned_form_of_config(canned_text)


def violations(text: object, rules: SubmitRules) -> list[tuple[str, object, object]]:
    """Every rule the caption breaks, as (rule, value, threshold); empty when it passes."""
    caption = text if isinstance(text, str) else ""
    found: list[tuple[str, object, object]] = []
    if rules.required and not caption.strip():
        found.append(("required", 0, 1))
    words = count_words(caption)
    if words < rules.min_words:
        found.append(("min_words", words, rules.min_words))
    if rules.one_sentence and has_second_sentence(caption):
        found.append(("one_sentence", "2+ sentences", "1 sentence"))
    prefix = banned_prefix_of(caption, rules.banned_prefixes)
    if prefix is not None:
        found.append(("banned_prefix", prefix, "not allowed"))
    if rules.max_chars is not None and len(caption.strip()) > rules.max_chars:
        found.append(("max_chars", len(caption.strip()), rules.max_chars))
    return found


def passes(text: object, rules: SubmitRules) -> bool:
    return not violations(text, rules)
