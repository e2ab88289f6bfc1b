"""The seed's text limits as a page states them to its workers: the fewest words it asks for, and the openings
it forbids, read from a free-text field's question and the page's instructions (the seed's caption page said
"at least eight words" and "do not start with 'There is'"; a requester's page says it in its own words).

``min_words`` is the number a page asks for at least ("at least 8 words", "no fewer than 50 words", "50 words
or more"); a length asked as a target ("about 25 words", "a 100-word summary") counts for half of it: an
answer under half the length asked is far from it, while an honest answer a little short of a target is not.
``banned_prefixes`` are the quoted openings a sentence forbids ("Do not start with "There is" or "This is"").
The seed's quality words ("quality", "blur") judge a page that tells its workers not to describe image quality
(:func:`forbids_quality_talk`): elsewhere a reason that names blur may be the honest answer.
"""

from __future__ import annotations

import re

NUMBER_WORDS = {w: n for n, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))} | {
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100}
_NUMBER = r"(\d{1,4}|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
AT_LEAST = re.compile(r"\b(?:at least|no fewer than|no less than|a minimum of|minimum of|min\.?)\s+" + _NUMBER
                      + r"\s+words\b|\b" + _NUMBER + r"\s+(?:words\s+or\s+more|or\s+more\s+words)\b", re.IGNORECASE)
TARGET = re.compile(r"\b(?:about|around|roughly|approximately|some|in)\s+" + _NUMBER + r"\s+words\b|\b" + _NUMBER
                    + r"[- ]word\b", re.IGNORECASE)
FORBIDS_OPENING = re.compile(r"\b(?:do not|don[’']t|never|avoid)\s+(?:start|begin|starting|beginning|open|opening)\b"
                             r"([^!?\n]*?)(?:[.!?](?:\s|$)|$)", re.IGNORECASE | re.MULTILINE)
NAMED_COUNT = re.compile(r"(?<![\w-])" + _NUMBER + r"\s*-?\s*words?\b", re.IGNORECASE)  # "8 words", "eight-word"
QUOTED = re.compile(r"[\"“‘']([^\"“”‘’']{2,40})[\"”’']")


FORBIDS_QUALITY = re.compile(r"\b(?:do not|don[’']t|never|avoid)\s+(?:describe|describing|mention|mentioning|talk "
                             r"about|comment on|write about)\b[^.!?\n]*\b(?:quality|blur|blurry|blurred)\b",
                             re.IGNORECASE)


def forbids_quality_talk(text: str) -> bool:
    """Whether the text tells workers not to describe image quality (the seed's "DO NOT describe the image
    quality issues")."""
    return bool(FORBIDS_QUALITY.search(text or ""))


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text.lower()]


def stated_min_words(text: str) -> int:
    """The fewest words the text asks for (0: none stated); a target length counts for half of it."""
    least = [_number(a or b) for a, b in AT_LEAST.findall(text or "")]
    targets = [_number(a or b) // 2 for a, b in TARGET.findall(text or "")]
    found = [n for n in least + targets if 0 < n <= 10000]
    return max(found) if found else 0


def named_word_counts(text: str) -> set[int]:
    """Every number the text names as a count of words, in digits or in words ("8 words", "eight words",
    "a 100-word summary"): what a page can be said to have stated to its workers."""
    return {_number(n) for n in NAMED_COUNT.findall(text or "")}


def stated_banned_openings(text: str) -> tuple[str, ...]:
    """The quoted openings the text forbids, in order, each once."""
    found: list[str] = []
    for sentence in FORBIDS_OPENING.findall(text or ""):
        found += [q.strip() for q in QUOTED.findall(sentence) if q.strip()]
    return tuple(dict.fromkeys(found))
