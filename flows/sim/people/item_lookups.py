"""Answers a person finds in the item's text: a fact it states, the sentence that bears on a question, the things it
names."""

from __future__ import annotations

import re

from flows.sim.people.item_parts import DATE, MONTH, PLACED, TIME
from flows.sim.people.summaries import main_text, sentences

# a question about one fact, and how that fact reads in a text
FACTS = ((r"\bwhen\b|\bdate\b|\bday\b", rf"{DATE}|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"),
         (r"\btime\b|\bwhat time\b|\bhours\b", TIME), (r"\bhow much\b|\bprice\b|\bcost\b|\bfee\b|\bpay\b",
                                                      r"[£$€]\s?\d[\d,.]*|\d[\d,.]*\s?(?:pounds|euros|dollars)"),
         (r"\bwhere\b|\baddress\b|\blocation\b|\bplace\b|\bvenue\b", PLACED),
         (r"\bhow (?:many|long|far|old|big)\b|\bnumber\b", r"\b\d[\d,.]*\b(?:\s\w+)?"))
ONE_FACT = re.compile(r"^\W*(?:\d+[.)]\s*)?(?:what|when|where|how (?:much|many|long|far|old|big)|which)\b[^?]{0,80}\?",
                      re.I)
# a box that asks to copy or point out the sentence bearing on a question ("Copy the sentence that supports ...")
SUPPORT = re.compile(r"\b(?:copy|quote|paste)\b[^.?]{0,40}\b(?:sentence|line|phrase|words?)\b|\bwhich (?:sentence|line)"
                     r"\b|\bthe (?:sentence|line|phrase) (?:that|which) (?:supports?|shows?|proves?|says?|tells?|"
                     r"explains?|backs?)", re.I)
# a box that asks for the things an item names ("List the places mentioned", "Name two products in the text")
LISTED = re.compile(r"\bwhich (?:words|terms)\b|\b(?:list|name|write down|note)\b(?: (?:all|every|each|any|the|two|"
                    r"three|four|five|up to \w+))*(?: \w+){0,2}? (?:places?|people|persons?|names?|products?|items?|"
                    r"things?|facts?|dates?|numbers?|organi[sz]ations?|companies|brands?|ingredients?|features?|words?|"
                    r"terms?|animals?|species|towns?|cities|countries|streets?)\b", re.I)
# a box that asks what one would look up to know whether the item's claim is true
CHECK_ASK = re.compile(r"\b(?:look up|check|verify|fact-?check)\b[^.?]{0,40}\b(?:true|right|correct|accurate)\b|"
                       r"\bfact (?:you|to|that you) would (?:look up|check|verify)\b", re.I)
NAMES = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'&-]*(?: (?:of |the |and |de |St )?[A-Z][\w'&-]*)*")
STOP = frozenset(("the", "this", "that", "with", "from", "what", "which", "when", "where", "does", "did", "text",
                  "item", "article", "passage", "answer", "sentence", "copy", "quote", "below", "above", "reason",
                  "will", "would", "could", "should", "have", "been", "there", "they", "about", "into", "shows"))


def stated_fact(question: str, texts: list[str]) -> str:
    """The one fact ``question`` asks, as the item states it ("What is the date of the meeting?" -> "20 May"; a place
    with the words after it: "at the town hall in Ashford"), else ""."""
    if not ONE_FACT.search(question) or not texts:
        return ""
    asked = next((has for names, has in FACTS if re.search(names, question, re.I)), "")
    about = _words(question)
    said = [c.strip() for s in sentences(main_text(texts)) for c in re.split(r";\s*|,\s(?=\w+ \w+ \w+)", s)]
    found = [c for c in said if asked and re.search(asked, c, re.I)]
    if not found:
        return ""
    told = max(found, key=lambda c: len(about & _words(c))).rstrip(".")
    fact = re.search(asked, told, re.I)
    if asked == PLACED and fact:  # (a place reads on past its first word: "at the Riverside Library")
        return " ".join(told[fact.start():].split()[:6]).rstrip(",;")
    return fact[0] if fact else ""


def bearing(question: str, texts: list[str]) -> str:
    """The item's sentence that shares most words with what ``question`` asks about, as written; the item's other
    texts (the claim beside a passage) are what "your answer" is about."""
    main = main_text(texts)

    def said(text: str) -> set[str]:  # its words and its numbers
        return _words(text) | set(re.findall(r"\d[\d,.]*\d|\d", text))
    about = said(" ".join([SUPPORT.sub(" ", question), *(t for t in texts if t != main)]))
    topic = said(" ".join(main.split()[:4]))  # what the whole text is about picks none of its sentences
    return max(sentences(main), key=lambda s: (len((about - topic) & said(s)), len(about & said(s))), default="")


def named_things(question: str, texts: list[str], most: int) -> str:
    """The things the item names (its capitalised names, else its longer words), comma-separated, at most ``most``."""
    item = main_text(texts)
    found = [n for n in dict.fromkeys(m[0] for m in NAMES.finditer(item)) if n.lower() not in STOP
             and not re.fullmatch(rf"(?i:{MONTH}|(?:mon|tues|wednes|thurs|fri|satur|sun)day)", n)]
    if re.search(r"\b(?:words|terms)\b", question, re.I):  # the words a reader may stumble on: the longest
        found = sorted(dict.fromkeys(re.findall(r"[A-Za-z-]{9,}", item)), key=len, reverse=True)[:4] or found
    elif re.search(r"\b(?:dates?|numbers?|facts?|times?)\b", question, re.I):
        found = [m[0] for m in re.finditer(rf"{DATE}|{TIME}|[£$€]?\d[\d,.:]*\d|\d", item, re.I)] or found
    found = found or [w for w in dict.fromkeys(re.findall(r"\b[a-z]{6,}\b", item.lower())) if w not in STOP]
    return ", ".join(found[:max(1, most)])


def claim_point(item: str) -> str:
    """What a claim says, in its words, without its reasons, its condition or its hedges, to go mid-sentence."""
    point = re.split(r"[.!?;:](?:\s|$)| because |, (?:as|which|since) ", item.strip())[0].strip(" ,")
    first, _, then = point.partition(", ")
    point = then if then and re.match(r"(?i:if|when|unless|once|although|while)\b", first) else point
    point = re.sub(r"\b(?:just|simply|obviously|clearly|really)\s+", "", point)
    point = point if len(point.split()) <= 16 else point.split(", ")[0]  # a long claim: its first clause
    return " ".join((point if point[1:2].isupper() else point[:1].lower() + point[1:]).split()[:16])


def _words(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in STOP}


def looked_up(kind: str, question: str, texts: list[str], most: int | None) -> str:
    """The answer of a LOOKUPS ``kind`` found in the item's texts, "" where it has none."""
    if kind == "lookup":
        return stated_fact(question, texts)
    if kind == "bearing":
        return bearing(question, texts)
    if kind == "check":  # the claim's point, as the thing to look up
        return f"Whether {point}." if (point := claim_point(main_text(texts))) else ""
    return named_things(question, texts, (most or 24) // 2) if texts else ""


def lookup_kind(question: str) -> str:
    """Which LOOKUPS kind a box asks for, or ""."""
    asks = (("check", CHECK_ASK), ("bearing", SUPPORT), ("listed", LISTED))
    if found := next((kind for kind, ask in asks if ask.search(question)), ""):
        return found
    return "lookup" if ONE_FACT.search(question) and any(re.search(n, question, re.I) for n, _h in FACTS) else ""


LOOKUPS = ("lookup", "bearing", "listed", "check")
