"""The figure an item's own text states for the quantity a number box asks, as a person reads it off."""

from __future__ import annotations

import itertools
import re

from flows.sim.people.stated_limits import NUMBERS

AMPM = r"(?:a\.?m\.?|p\.?m\.?)"
CLOCK = re.compile(rf"\b(\d{{1,2}})(?:[:.](\d{{2}}))?\s*({AMPM})(?![\w])|\b(\d{{1,2}})[:.](\d{{2}})\b(?!\s*[/-])|"
                   r"\b(noon|midday|midnight)\b", re.I)
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
    found = list(CLOCK.finditer(text))
    for a, b in itertools.pairwise(found):
        start, end = clock_minutes(a), clock_minutes(b)
        if re.fullmatch(r"\s*(?:to|until|till|and|-|–)\s*", text[a.end():b.start()], re.I) and start is not None \
                and end is not None and (end - start) % 1440:
            return round((end - start) % 1440 / 60, 2)
    return None


def clock_minutes(m: re.Match[str]) -> int | None:
    """A CLOCK match as minutes past midnight (a time without am or pm as on a 24-hour clock); None if no time."""
    if m[6]:
        return 0 if m[6].lower() == "midnight" else 720
    hour, minute = int(m[1] or m[4]), int(m[2] or m[5] or 0)
    if hour > 24 or minute > 59:
        return None
    if m[3]:
        return (hour % 12 + (12 if m[3].lower().startswith("p") else 0)) * 60 + minute
    return (hour % 24) * 60 + minute


def _stem(word: str) -> str:
    return re.sub(r"(?:es|s|ed|ing)$", "", word)[:5]
