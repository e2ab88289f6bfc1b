"""The limits a box's own words state, which an honest person meets."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from qc.asked_limits import NUMBER_WORDS, stated_max_words

# words a cut text does not end on ("... can be.", "... with the.")
DANGLING = frozenset((
    "the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "for", "with", "that", "this", "is", "are", "was",
    "were", "be", "been", "it", "its", "as", "by", "from", "we", "our", "their", "which", "after", "before", "when",
    "because", "while", "but", "so", "if", "near", "during", "since", "following", "along", "has", "have", "had",
    "will", "would", "can", "could", "should", "may", "might", "across", "through", "into", "about", "two", "three",
    "four", "five", "six", "old", "new", "former", "fresh", "big", "large", "small", "little", "early", "most", "more",
    "very", "first", "last", "than", "not", "over", "those", "these", "every", "each", "your", "his", "her", "my",
    "some", "any", "third", "second", "few"))
UNIT = r"\s*(?P<u>words?|characters?|chars?|letters?)\b"
LEAST = re.compile(r"(?:at least|a minimum of|minimum(?: of)?:?|min\.?|no fewer than|not less than)\s*(?P<n>\d{1,4})"
                   + UNIT + r"|(?P<m>\d{1,4})\s*(?P<p>\+)?\s*(?P<v>words?|characters?)\b"
                   r"(?(p)|\s+(?:or more|or longer|minimum|at least))", re.I)
MOST = re.compile(r"(?:at most|no more than|not more than|up to|maximum(?: of)?:?|max\.?|under|(?<!no )(?<!not )"
                  r"(?:fewer|less) than|"
                  r"within)\s*(?P<n>\d{1,4})" + UNIT + r"|(?P<m>\d{1,4})\s*(?P<v>words?|characters?|chars?)\s+"
                  r"(?:or less|or fewer|max(?:imum)?|at most)", re.I)
SPAN = re.compile(r"(?:between\s+(?P<a>\d{1,4})\s+and|(?P<c>\d{1,4})\s*(?:-|–|to|or\b))\s*(?P<b>\d{1,4})" + UNIT,
                  re.I)  # "2-3 words", "one or two words" (number words read as digits)


# the form a box's words ask its answer in ("(5 digits)"), as the pattern of what a person types
FORMATS = ((re.compile(r"\b(?<!least )(?<!most )(?<!to )(?P<n>\d{1,2})[- ]digits?\b(?!\s+or\b)", re.I), r"\d{{{n}}}"),
           (re.compile(r"\b(?P<n>\d{1,2})[- ](?:characters?|letters?)\s+(?:code|id)\b", re.I), "[A-Z0-9]{{{n}}}"),
           (re.compile(r"\b(?:digits|figures) only\b|\bonly digits\b|\((?:in )?digits\)|\b(?:type|enter|write|give) "
                       r"(?:in )?the number\b", re.I), r"\d+"),  # a count, a reading
           (re.compile(r"\b(?:type|enter|write|give) (?:in )?a number\b|\bnumbers? only\b|\(a number\)", re.I),
            r"\d+(\.\d+)?"))


def stated_format(question: str) -> str:
    """The pattern ``question`` asks its answer in ("(5 digits)" -> ``\\d{5}``), "" where it asks for none."""
    question = re.sub(r"\b[a-z]+\b", lambda m: NUMBERS.get(m[0].lower(), m[0]), question, flags=re.I)
    return next((shape.format(**m.groupdict()) for pattern, shape in FORMATS if (m := pattern.search(question))), "")


class Limits(NamedTuple):
    least_words: int = 0
    most_words: int | None = None
    least_chars: int = 0
    most_chars: int | None = None


NUMBERS = {w: str(n) for w, n in NUMBER_WORDS.items()} | {"sixty": "60"}  # "ten" read as "10"


@lru_cache(maxsize=1024)  # a page's few questions, read again for every worker and box
def stated(question: str) -> Limits:
    """The word and character limits ``question`` states (0 / None where it states none; "ten" read as 10)."""
    read = stated_max_words(question)  # as the run's QC reads them ("in one single word")
    question = re.sub(r"\b[a-z]+\b", lambda m: NUMBERS.get(m[0].lower(), m[0]), question, flags=re.I)
    found: dict[str, int] = {}
    for key, pattern in (("least", LEAST), ("most", MOST)):
        for m in pattern.finditer(question):
            unit = "words" if (m["u"] or m["v"]).lower().startswith("word") else "chars"
            strict = key == "most" and re.match(r"under|fewer|less|below", m[0], re.I)  # "under 15": 14 at most
            found[f"{key}_{unit}"] = int(m["n"] or m["m"]) - bool(strict)
    for m in SPAN.finditer(question):
        unit = "words" if m["u"].lower().startswith("word") else "chars"
        found.setdefault(f"least_{unit}", int(m["a"] or m["c"]))
        found.setdefault(f"most_{unit}", int(m["b"]))
    if read and read < found.get("most_words", read + 1):  # the stricter reading: an honest person meets both
        found["most_words"] = read
    return Limits(found.get("least_words", 0), found.get("most_words"), found.get("least_chars", 0),
                  found.get("most_chars"))


def within(text: str, most_words: int | None, most_chars: int | None) -> str:
    """``text`` cut to the limits: whole sentences while they fit, else whole words and a stop."""
    def fits(t: str) -> bool:
        return (most_words is None or len(t.split()) <= most_words) and (most_chars is None or len(t) <= most_chars)
    if fits(text):
        return text
    if most_words == 1:  # one word asked: the text's longest word of content, not its first
        content = [w.strip(".,;:!?\"'()") for w in text.split()]
        content = [w for w in content if w and w.lower() not in DANGLING] or content
        return max(content, key=len)[: most_chars or None] if content else text[: most_chars or len(text)]
    parts = re.split(r"(?<=[.!?])\s+", text)
    for k in range(len(parts) - 1, 0, -1):
        if fits(" ".join(parts[:k])):
            return " ".join(parts[:k])
    words = text.split()
    while words and not fits(" ".join(words).rstrip(",;:.") + "."):
        words.pop()
    while len(words) > 3 and words[-1].lower().strip(",;:") in DANGLING:  # not "... can be."
        words.pop()
    kept = re.sub(r"[;,:]\s+(?:\S+\s+){0,2}\S+$", "", " ".join(words))  # no stub of a clause ("...; cars.")
    return kept.rstrip(",;:.") + "." if words else text[: most_chars or len(text)]
