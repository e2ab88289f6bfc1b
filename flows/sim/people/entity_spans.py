"""Entities a simulated worker marks in an item's text, as crowd-entity-annotation answers them."""

from __future__ import annotations

import json
import random
import re
import zlib
from functools import lru_cache
from typing import Any

from spellchecker import SpellChecker

NAME = re.compile(r"[A-Z][\w'&.-]*(?:\s+(?:of\s+|de\s+|van\s+)?[A-Z][\w'&.-]*)*")
LEADING = {"The", "A", "An", "This", "That", "These", "Those", "In", "On", "At", "After", "Before", "When",
           "Yesterday", "Today", "Last", "Next", "It", "He", "She", "They", "We", "I", "My", "Our", "His", "Her"}
ORG_WORDS = {"bank", "university", "college", "school", "inc", "inc.", "corp", "corp.", "ltd", "ltd.", "company",
             "group", "robotics", "systems", "labs", "technologies", "motors", "airlines", "press", "institute",
             "nations", "cross", "council", "committee", "foundation", "agency", "association", "club", "museum",
             "hospital", "ministry", "party", "union", "times", "news", "bureau", "society", "partners"}
PLACE_WORDS = {"river", "street", "road", "city", "county", "lake", "mountain", "mountains", "island", "bay", "park",
               "valley", "sea", "ocean", "square"}
DATES = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february",
         "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
PLACE_BEFORE = {"in", "from", "to", "near", "through", "across", "into", "towards", "toward", "outside", "around"}
ORG_BEFORE = {"for", "joined", "join", "joins", "by", "with"}
MEANS = {"person": ("person", "per", "people", "name", "human", "individual"),
         "location": ("location", "loc", "place", "city", "country", "gpe", "geo"),
         "organization": ("organization", "organisation", "org", "company", "institution", "business"),
         "date": ("date", "dat", "time", "day")}

COMMON = 5000  # "weather" 45956, "festival" 10598 in that list; "google" 2012, "amazon" 539
Span = tuple[int, int, str]  # (start, end, kind)


def names(text: str) -> list[Span]:
    """Every capitalised name in the text with the kind its words suggest (offsets in characters)."""
    found: list[Span] = []
    for m in NAME.finditer(text):
        start, words = m.start(), m.group().split()
        while words and words[0] in LEADING:  # "The Red Cross" -> "Red Cross"; "The" alone is no name
            start = text.index(words[0], start) + len(words[0])
            start += len(text[start:]) - len(text[start:].lstrip())
            words = words[1:]
        opens = not text[:start].strip() or text[:start].rstrip()[-1] in ".!?"
        if len(words) == 1 and opens and word_counts().get(words[0].lower(), 0) >= COMMON:
            continue  # "Weather was mild": a sentence's first word, an everyday one, is no name
        if words:
            end = m.end() - (1 if m.group().endswith(".") else 0)
            found.append((start, end, _kind(text, start, words, found)))
    return found


@lru_cache(maxsize=1)
def word_counts() -> dict[str, int]:
    """pyspellchecker's English word counts (an everyday word: :data:`COMMON` or more)."""
    return dict(SpellChecker().word_frequency.dictionary)


def _kind(text: str, start: int, words: list[str], before: list[Span]) -> str:
    lower = [w.lower().strip(".") for w in words]
    previous = text[:start].split()
    prev = previous[-1].lower().strip(",;") if previous else ""
    if any(w in DATES for w in lower):
        return "date"
    if lower[-1] in ORG_WORDS or (len(lower) > 1 and prev == "the" and not previous[-1][0].isupper()):
        return "organization"
    if lower[-1] in PLACE_WORDS or prev in PLACE_BEFORE:
        return "location"
    if prev in ORG_BEFORE or prev == "at":
        return "organization"
    if prev in ("and", "or") and before and text[before[-1][1]:start].strip().lower() == prev:
        return before[-1][2]  # "Vienna and Budapest": the same kind as its partner
    if len(words) in (2, 3):
        return "person"
    if len(previous) == 0 or (previous and previous[-1] in LEADING):  # a sentence's subject, one word: a firm
        return "organization"
    return "location"


def label_for(kind: str, labels: list[str]) -> str:
    """The element's own label meaning this kind ("" when none does)."""
    for label in labels:
        if label.lower().strip() in MEANS.get(kind, ()):
            return label
    return ""


def entities(text: str, labels: list[str], profile: str, careful: bool, rng: random.Random) -> str:
    """The JSON answer of a crowd-entity-annotation on ``text`` for one worker."""
    labels = labels or ["entity"]
    spans = names(text)
    if profile == "contrarian":
        first = re.search(r"\S+", text)
        marked = [(first.start(), first.end(), labels[0])] if first else []
    elif not careful:
        pick = rng.choice(spans) if spans else None
        marked = [(pick[0], pick[1], rng.choice(labels))] if pick else []
    else:
        known = any(label_for(k, labels) for k in MEANS)  # else labels of the page's own: one per name, shared
        marked = [(a, b, label) for a, b, kind in spans if rng.random() > 0.08  # now and then a name is missed
                  and (label := label_for(kind, labels) if known else
                       labels[zlib.crc32(text[a:b].encode()) % len(labels)])]
        if marked and rng.random() < 0.1:  # a span ends a word early ("Acme" of "Acme Robotics")
            k = rng.randrange(len(marked))
            a, b, label = marked[k]
            cut = text.rfind(" ", a, b)
            marked[k] = (a, cut if cut > a else b, label)
    return json.dumps({"entities": [{"label": label, "startOffset": a, "endOffset": b} for a, b, label in marked]})


SELECT = """(p, span) => {  /* the characters [a, b) of the shown text selected, across its marks */
    const chars = [...p.textContent], a = chars.slice(0, span[0]).join("").length;
    const b = a + chars.slice(span[0], span[1]).join("").length, r = document.createRange();
    const walk = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
    let seen = 0, n;
    while ((n = walk.nextNode())) {
        const len = n.textContent.length;
        if (seen <= a && a < seen + len) { r.setStart(n, a - seen); }
        if (seen < b && b <= seen + len) { r.setEnd(n, b - seen); }
        seen += len;
    }
    getSelection().removeAllRanges(); getSelection().addRange(r); }"""


def mark_in_browser(page: Any, host: str, value: str) -> None:
    """A browser-driven worker's entity answer, marked span by span through hitflow's crowd_elements.js."""
    try:
        spans = json.loads(value).get("entities", [])
    except (ValueError, AttributeError):
        return  # not an answer of this element (a person's intent names no span): nothing marked
    for e in spans:
        page.select_option(f"{host} select", e["label"])
        page.eval_on_selector(f"{host} .crowd-entity-text", SELECT, [e["startOffset"], e["endOffset"]])
        page.locator(f"{host} button", has_text="Label the selection").click()
