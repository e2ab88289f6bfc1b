"""The figure an item's own text states for the quantity a number box asks, as a person reads it off."""

from __future__ import annotations

import re

from flows.sim.people.stated_limits import NUMBERS

CLOCK = r"(?P<{0}h>\d{{1,2}})(?:[:.](?P<{0}m>\d{{2}}))?\s*(?P<{0}p>[ap]\.?m\.?)?"
SPAN = re.compile(rf"\b{CLOCK.format('a')}\s*(?:to|until|till|and|-|–)\s*{CLOCK.format('b')}(?![\w:])", re.I)
DURATION = re.compile(r"\bhours?\b|\bhow long\b|\bminutes?\b|\bduration\b", re.I)
MONEY_ASKED = re.compile(r"\b(?:price|cost|costs|total|paid|pay|spent|spend|how much|amount|fee|bill|charged?)\b|"
                         r"[£$€]", re.I)
MONEY = re.compile(r"[£$€]\s?(\d+(?:,\d{3})*(?:\.\d{1,2})?)|(\d+(?:\.\d{1,2})?)\s?(?:pounds|dollars|euros)\b", re.I)
AGE = re.compile(r"\baged? (\d{1,3})\b|\b(\d{1,3})[ -]years?[ -]old\b", re.I)
FIGURE = re.compile(r"(?<![\d.,:£$€])(\d+(?:\.\d+)?)(?![\d:]|\.\d)\s+((?:[a-z][\w'-]*\s+){0,2}?[a-z][\w'-]*)", re.I)
NOT_NAMES = frozenset(("how", "many", "much", "the", "this", "that", "what", "number", "total", "enter", "type",
                       "write", "give", "in", "of", "a", "an", "did", "does", "do", "is", "are", "was", "were",
                       "item", "text", "review", "person", "they", "their", "there", "according", "digits", "only"))


def stated_figure(question: str, texts: list[str]) -> float | None:
    """The number ``texts`` give for what ``question`` asks (hours between two times, an amount of money, an age, a
    count of a thing the question names); None where they give none."""
    text = re.sub(r"\b[a-z]+\b", lambda m: NUMBERS.get(m[0].lower(), m[0]), " ".join(texts), flags=re.I)
    if DURATION.search(question) and (span := _span(text)) is not None:
        return span * (60 if re.search(r"\bminutes?\b", question, re.I) and not re.search(r"\bhours?\b", question,
                                                                                          re.I) else 1)
    if MONEY_ASKED.search(question) and (money := MONEY.search(text)):
        return float((money[1] or money[2]).replace(",", ""))
    if re.search(r"\bage\b|\bhow old\b", question, re.I) and (age := AGE.search(text)):
        return float(age[1] or age[2])
    named = {_stem(w) for w in re.findall(r"[a-z][\w'-]*", question.lower()) if w not in NOT_NAMES and len(w) > 2}
    for m in FIGURE.finditer(text):  # "slept 7 hours", "3 cups of coffee": a number of a thing the question names
        if any(_stem(w) in named for w in m[2].lower().split()):
            return float(m[1])
    return None


def _span(text: str) -> float | None:
    """Hours between the first two clock times a text gives as a span ("from 11pm to 6:30am": 7.5)."""
    for m in SPAN.finditer(text):
        if not (m["ap"] or m["bp"] or m["am"] or m["bm"]):  # "3 to 5" is no span of time
            continue
        marked = m["ap"] or m["bp"]  # a time without its am/pm: the reading that makes the shorter span
        starts, ends = (_hours(m[f"{k}h"], m[f"{k}m"], m[f"{k}p"], bool(marked)) for k in "ab")
        spans = [(e - b) % 24 for b in starts for e in ends if (e - b) % 24]
        if spans:
            return round(min(spans), 2)
    return None


def _hours(h: str, minutes: str | None, half: str | None, either: bool) -> list[float]:
    """The clock time as hours since midnight: both readings of an unmarked time where the other time is marked."""
    base = int(h) + int(minutes or 0) / 60
    if half:
        return [base % 12 + (12 if half.lower().startswith("p") else 0)]
    return [base % 12, base % 12 + 12] if either else [base] if base < 24 else []


def _stem(word: str) -> str:
    return re.sub(r"(?:es|s|ed|ing)$", "", word)[:5]
