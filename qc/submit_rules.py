"""The submit-rule spec, declared once in a task config and enforced by the page and by QC: one implementation per
rule in :data:`CHECKS`; ``hit_templates/validation.js`` is its browser twin (tests/test_submit_parity.py). Written
out where the languages differ: **space** (:data:`SPACE`), **characters** (code points of the trimmed text, CRLF
once), **words** (tokens holding an ASCII letter or digit), **a second sentence** (``.!?``, space, text), **a banned
prefix** (opening the trimmed, folded text, no letter after)."""

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

# The same characters, in the same order, as SPACE in hit_templates/validation.js.
SPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u180e"
         "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u200b\u200c\u200d"
         "\u2028\u2029\u202f\u205f\u2060\u3000\ufeff")
_SPACE_SET = frozenset(SPACE)
_WHITESPACE = re.compile(r"\s+")
# a token holding a letter or digit: one match per token, from its first [A-Za-z0-9] to its end
_WORD = re.compile(f"[A-Za-z0-9][^{SPACE}]*")
# A sentence end followed by more text: "Contains only one period followed by a space".
_SECOND_SENTENCE = re.compile(f"[.!?][{SPACE}]+[^{SPACE}]")
_CURLY_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})


@dataclass(frozen=True)
class SubmitRules:
    """What a caption must satisfy before the page lets a worker go on."""

    min_words: int = 8
    one_sentence: bool = True
    banned_prefixes: tuple[str, ...] = VIZWIZ_BANNED_PREFIXES
    max_chars: int | None = None  # None or 0: no limit
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


def trimmed(text: str) -> str:
    """The text without :data:`SPACE` at either end."""
    return text.strip(SPACE)


def is_blank(text: str) -> bool:
    """Empty, or nothing but :data:`SPACE` (a BOM or a zero-width space is blank too)."""
    return not text or (text[0] in _SPACE_SET and not trimmed(text))


def count_words(text: str) -> int:
    """Space-separated tokens that contain at least one ASCII letter or digit."""
    return len(_WORD.findall(text))


def char_count(text: str) -> int:
    """Code points of the trimmed text, a CRLF line break counted once."""
    t = trimmed(text)
    return len(t) - t.count("\r\n")


def has_second_sentence(text: str) -> bool:
    return _SECOND_SENTENCE.search(text) is not None


def banned_prefix_of(text: str, prefixes: tuple[str, ...]) -> str | None:
    """The banned prefix the text opens with (any case, curly or straight apostrophe)."""
    return _prefix_finder(tuple(prefixes))(text)


def may_open_with_prefix(prefixes: tuple[str, ...]) -> Callable[[str], bool]:
    """One regex: true for every text :func:`banned_prefix_of` would flag and few others (non-ASCII always)."""
    pattern = _prefix_pattern(tuple(prefixes))
    return lambda text: not text.isascii() or pattern.match(text) is not None


@lru_cache(maxsize=16)
def _prefix_finder(prefixes: tuple[str, ...]) -> Callable[[str], str | None]:
    may_open, pairs = may_open_with_prefix(prefixes), tuple(zip(prefixes, _normalised(prefixes), strict=True))

    def find(text: str) -> str | None:
        if not may_open(text):
            return None
        # the whole text is lowered, as the page does: a Greek final sigma depends on what follows
        norm = trimmed(text).translate(_CURLY_APOSTROPHES).lower()
        for prefix, p in pairs:
            if norm.startswith(p) and (len(norm) == len(p) or not norm[len(p)].isalpha()):
                return prefix
        return None

    return find


@lru_cache(maxsize=16)
def _prefix_pattern(prefixes: tuple[str, ...]) -> re.Pattern[str]:
    # on ASCII text IGNORECASE is lower(), and the leading [SPACE]* is the trim
    options = "|".join(re.escape(p).replace("'", "['\u2019\u2018]") for p in _normalised(prefixes))
    return re.compile(rf"[{SPACE}]*(?:{options})", re.IGNORECASE) if options else re.compile(r"(?!)")


@lru_cache(maxsize=16)
def _normalised(prefixes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p.translate(_CURLY_APOSTROPHES).lower() for p in prefixes)


Hit = tuple[object, object]  # (value, threshold) of a broken rule
Check = Callable[[str], Hit | None]  # one caption's verdict under one spec (None: kept)


@dataclass(frozen=True)
class SubmitCheck:
    """One submit rule: whether a spec turns it on, and its check bound to that spec (one call per caption)."""

    name: str
    applies: Callable[[SubmitRules], bool]
    bind: Callable[[SubmitRules], Check]


def _required(rules: SubmitRules) -> Check:
    return lambda text: (0, 1) if is_blank(text) else None


def _min_words(rules: SubmitRules) -> Check:
    findall, least = _WORD.findall, rules.min_words
    return lambda text: (n, least) if (n := len(findall(text))) < least else None


def _one_sentence(rules: SubmitRules) -> Check:
    search, hit = _SECOND_SENTENCE.search, ("2+ sentences", "1 sentence")
    return lambda text: hit if search(text) is not None else None


def _banned_prefix(rules: SubmitRules) -> Check:
    find = _prefix_finder(tuple(rules.banned_prefixes))
    return lambda text: None if (prefix := find(text)) is None else (prefix, "not allowed")


def _max_chars(rules: SubmitRules) -> Check:
    limit = rules.max_chars or 0
    # trimming and a CRLF only shorten: a caption within the limit as it stands stops at len()
    return lambda text: None if len(text) <= limit or (n := char_count(text)) <= limit else (n, limit)


# In the order the page reports them (validation.js runs the same five in the same order).
CHECKS: dict[str, SubmitCheck] = {c.name: c for c in (
    SubmitCheck("required", lambda r: r.required, _required),
    SubmitCheck("min_words", lambda r: r.min_words > 0, _min_words),
    SubmitCheck("one_sentence", lambda r: r.one_sentence, _one_sentence),
    SubmitCheck("banned_prefix", lambda r: bool(r.banned_prefixes), _banned_prefix),
    SubmitCheck("max_chars", lambda r: bool(r.max_chars), _max_chars),
)}


@lru_cache(maxsize=16)
def checks_for(rules: SubmitRules) -> tuple[tuple[str, Check], ...]:
    """The checks a spec turns on, bound to it, in the page's order."""
    return tuple((name, c.bind(rules)) for name, c in CHECKS.items() if c.applies(rules))


def _canned_form(s: str) -> str:
    """The form a caption must take to count as ``s`` (trimmed, spaces folded, lower case)."""
    return _WHITESPACE.sub(" ", s.strip()).rstrip(".").strip().lower()


canned_form = lru_cache(maxsize=16)(_canned_form)  # one canned text per task, 200,000 captions


def is_canned(text: object, canned_text: str = CANNED_TEXT) -> bool:
    """Canned text is recognised after trimming spaces and a final period, in any case."""
    if not isinstance(text, str) or not canned_text.strip():
        return False  # a task without a canned answer has no canned captions
    return _canned_form(text) == canned_form(canned_text)


def violations(text: object, rules: SubmitRules) -> list[tuple[str, object, object]]:
    """Every rule the caption breaks, as (rule, value, threshold); empty when it passes."""
    caption = text if isinstance(text, str) else ""
    return [(name, *hit) for name, check in checks_for(rules) if (hit := check(caption)) is not None]
