"""The part an item lacks of those its page says it gives, named as a person names it."""

from __future__ import annotations

import random
import re

COUNT = r"\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple"
MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
DATE = rf"\b\d{{1,2}}(?:st|nd|rd|th)?(?: of)? {MONTH}\b(?: \d{{4}})?|\b{MONTH} \d|" \
       r"\b\d{1,2}[/-]\d{1,2}(?:[/-]\d{2,4})?\b|\b\d{4}-\d\d-\d\d\b|\b\d{1,2}(?:st|nd|rd|th)\b"
TIME = r"\d(?:[.:]\d\d)?\s*[ap]\.?m\b|\b\d{1,2}[.:]\d\d\b|noon|midday|o'clock"
PLACED = r"(?-i:\b(?:at|in|near) (?:the )?[A-Z]|\b(?!(?:From|By|At|In|On|The|An?)\b)[A-Z][a-z]+,? [A-Z][a-z]+\b|" \
         r"\b[A-Z]{2} ?\d{3})|\b(?:street|road|lane|close|grove|avenue|drive|park|wood|common|meadows?|farm|site|" \
         r"village|reserve)\b|(?-i:[A-Z][a-z]+) (?:school|pond|church|field|lake|river|beach|allotments?|green)\b"
# a number that counts, once dates, times, grid references and house numbers are set aside
COUNTED = re.compile(rf"\b(?:{COUNT}|\d+|dozens?|pairs?)\b|\bx ?\d|\b(?:a|an) (?-i:[a-z])", re.I)
NOT_COUNTS = re.compile(rf"{DATE}|{TIME}|\b[A-Z]{{2}} ?\d+(?: \d+)?|\b\d+[a-z]? (?-i:[A-Z])|"
                        r"\b(?:plot|no\.?|number|lock|stand|route|bus|room|flat|unit|platform|gate|line) \d+|"
                        r"\b(?!x\d)(?=[\w-]*[a-z])(?=[\w-]*\d)[\w-]+", re.I)  # (the last a code: "GBW-5262", "A1")
SIGNED = r"(?-i:\b[A-Z]\. ?[A-Z][a-z]+|\b[A-Z] ?& ?[A-Z]\b|(?:^|[.!-]\s*)[A-Z][a-z]+(?: [A-Z]\.?)?\.?\s*$|" \
         r"\b[A-Z]{2,3}\.?\s*$|\b(?:[A-Z]\.){2,3}|\b(?i:by|from|I'?m|this is) [A-Z])|observer|recorded by|\bname\b"
# parts a page may name: the page's words for it, and whether an item's text gives it (None: not a kind we read)
TYPED = ((r"\bday\b|\bdate\b|\bwhen\b", r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|tomorrow|tonight|weekend|"
          + DATE), (r"\btimes?\b", rf"{TIME}|\b\d+\s*(?:s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?)\b"),
         (r"how many|\bnumbers? of\b|\bcount\b", ""),
         (r"\bnames?\b|initials|observer|recorder|\bwho\b|signed|author", SIGNED),
         (r"e-?mail", r"@\w"), (r"phone|mobile", r"\d[\d ]{7,}"),
         (r"\bprice|\bcost|\bfee\b", r"[£$€]\s?\d|\d\s?(?:pounds|euros|dollars)|\bfree\b"),
         (r"\bvenue|\blocation|\bplace\b|\bwhere\b|\bsite\b|\baddress", PLACED))
# the sentence of a page that says what an item should give ("A listing needs a date, a time ...")
# (a verb of having or giving: "which team should handle it" says what the worker does, not what an item holds)
NEEDS = re.compile(r"[^.!?]*\b(?:(needs?|(?:must|should|ha(?:s|ve) to) (?:have|give|include|state|show|contain|list|"
                   r"say|mention)|gives?|includes?|requires?|contains?|the following)\b|"
                   r"(?:has|have|with) all\b[^:.!?]*:)[^.!?]*", re.I)
NONE_SAID = re.compile(r"\bif (?:nothing|none|no \w+) (?:is |are )?(?:missing|lacking|left out)\b[^.]*?\bwrite\s+"
                       r"[\"“'‘]?(?P<w>[^\"”’.]+)", re.I)  # what to write when nothing is missing
SAYINGS = ("{P} missing", "{P} is missing", "Missing: {p}", "It leaves out {p}", "Ask for {p}")  # (three words or more)
ASKED = ("It does not say {p}", "Missing: {p}", "It leaves out {p}", "Ask for {p}")


def _has(kind: int, part: str, text: str) -> bool | None:
    """Whether ``text`` gives a part of TYPED's ``kind`` (-1: none of them, read by the part's own words), or None."""
    if kind < 0:
        own = [w for w in re.findall(r"[a-z]{4,}", part.lower()) if w not in ("that", "this", "with", "their")]
        return True if any(re.search(rf"\b{w[:4]}", text, re.I) for w in own) else None
    if not TYPED[kind][1]:  # a count: a number left once dates, times and addresses are set aside
        return bool(COUNTED.search(NOT_COUNTS.sub(" ", text)))
    return bool(re.search(TYPED[kind][1], text, re.I))


def needed(text: str, page: str) -> tuple[list[str], list[str]] | None:
    """The parts ``page`` says an item gives (one sentence lists two or more of TYPED's) that ``text`` lacks, in the
    page's words, and those it cannot check ("the species"); None where the page lists none."""
    lists = (n[0].partition(":")[2] or n[0][n.end(1) - n.start():] for n in NEEDS.finditer(page))  # after the verb
    listed = max((re.split(r",|;|\s+and\s+", re.sub(r"\([^)]*\)", "", said)) for said in lists),
                 key=lambda ps: sum(any(re.search(t[0], p, re.I) for t in TYPED) for p in ps), default=[])
    parts = [(p.strip(" .").removeprefix("and "), next((k for k, t in enumerate(TYPED) if re.search(t[0], p, re.I)),
                                                       -1)) for p in listed]
    if sum(k >= 0 for _p, k in parts) < 2:  # every word ("You must accept the HIT in time"; "typed by a customer")
        return None
    has = [(_named(p), _has(k, p, text)) for p, k in parts if p]
    return [p for p, h in has if h is False], [p for p, h in has if h is None]


def _named(part: str) -> str:
    """A part as a checker names it, not the page's whole phrase: "the observer's name or initials" -> "the
    observer's name", "how many were seen" -> "how many"."""
    part = re.sub(r"\s+or\s+.*$", "", part)
    return " ".join(part.split()[:2]) if re.match(r"(?:how|what|which|who|where|when|whether)\b", part) else part


def missing_part(text: str, rng: random.Random, page: str = "", question: str = "") -> str:
    """The parts ``text`` lacks of those its ``page`` says an item gives, in a few words (none: what ``question``
    says to write then, else one it cannot check); "" where the page lists none."""
    if (found := needed(text, page)) is None:
        return ""
    lacks, unsure = found
    if not lacks and (none := NONE_SAID.search(question)):
        return none["w"].strip()
    said = " and ".join((lacks or unsure[:1])[:3])
    if not said:
        return ""
    frames = ASKED if " and " in said or re.match(r"(?:how|what|which|who|where|when|whether)\b", said) else SAYINGS
    return rng.choice(frames).format(p=said, P=said[:1].upper() + said[1:])


def missing_in(texts: list[str], rng: random.Random, page: str = "", question: str = "") -> str:
    """The parts an item lacks: its main text against the parts its page lists (with the item's reference, "Log
    GBW-52", where it has one: whose part it is)."""
    main = max(texts, key=len) if texts else ""
    if needed(main, page) is None:
        return ""
    ref = next((" ".join(t.split()[:2]) for t in texts if t != main and re.search(r"\d", t)), "")
    said = missing_part(main, rng, page, question)
    return f"{said} ({ref})" if said and ref and not NONE_SAID.search(question) else said
