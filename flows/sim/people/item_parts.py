"""The part a structured item lacks, named as a person names it."""

from __future__ import annotations

import random
import re

CODED = r"\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b|\b[A-Z]\d[A-Z] ?\d[A-Z]\d\b|\b\d{4} ?[A-Z]{2}\b"  # "HU1 3TE", "1016 GV"
POSTCODE = re.compile(rf"{CODED}|\b\d{{4,5}}\b")
STREET = re.compile(r"stra(?:ss|ß)e|gracht|gasse|weg\b|\bc/|\b(?:street|st|road|rd|lane|ln|avenue|ave|drive|dr|close|"
                    r"way|place|pl|rue|via|calle|court|ct|crescent|terrace|square|row|boulevard|blvd|quay|parade|hill)\b",
                    re.I)
FLAT = re.compile(r"\b(?:flat|apartment|apt|unit|suite|piso) ?\d|#\d|\b\d+(?:st|nd|rd|th)? (?:floor|stock)", re.I)
BUILDING = re.compile(r"upstairs|downstairs|\bfloor\b|porter|concierge|\bblock\b|tower|hinterhaus|\bunit\b\??", re.I)
NUMBER = re.compile(r"(?<![\w-])\d{1,4}[a-z]?(?![\w-])")
# each part: its name, and whether the address (its parts between commas; its postcodes) has it
PARTS = (("the street name", lambda parts, _p: any(STREET.search(p) for p in parts)),
         ("the house number", lambda parts, _p: any(NUMBER.search(re.sub(CODED, " ", p)) or NUMBER.fullmatch(p.strip())
                                                for p in parts if STREET.search(p) or NUMBER.fullmatch(p.strip()))),
         ("the postcode", lambda _parts, p: bool(p)),
         ("the town", lambda parts, _p: any(re.search(r"\b[A-ZÀ-Ý][a-zà-ÿ]{2,}", re.sub(r"\([^)]*\)", "", p))
                                                and not STREET.search(p) for p in parts[1:])),
         ("the flat number", lambda parts, _p: bool(FLAT.search(",".join(parts)))
          or not BUILDING.search(",".join(parts))))
DAYS = r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|" \
       r"August|September|October|November|December"
COUNT = r"\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple"
# parts a page may name: how a person names it, the page's words for it, and whether an item's text gives it
MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
TYPED = (("the day", r"\bday\b|\bdate\b", r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|tomorrow|tonight|"
          rf"weekend|\b\d{{1,2}}(?:st|nd|rd|th)\b|\b\d{{1,2}}/\d{{1,2}}\b|\b{MONTH} \d|\b\d{{1,2}} {MONTH}\b"),
         ("the time", r"\btimes?\b", r"\d(?:[.:]\d\d)?\s*[ap]\.?m\b|\b\d{1,2}[.:]\d\d\b|noon|midday|o'clock"),
         ("how many people", r"how many|number of (?:people|guests)|party size|\bguests\b",
          rf"\b(?:{COUNT})\b(?: \w+)? (?:people|of us|guests|persons|adults)|\b(?:for|of)\s+(?:{COUNT})\b"),
         ("a name", r"\bname\b", r"\bname\b|\b(?:under|by|I'?m|this is) (?-i:[A-Z])"),
         ("an email address", r"e-?mail", r"@\w"), ("a phone number", r"phone|mobile", r"\d[\d ]{7,}"),
         ("the price", r"\bprice|\bcost|\bfee\b", r"[£$€]\s?\d|\d\s?(?:pounds|euros|dollars)|\bfree\b"),
         ("the venue", r"\bvenue|\blocation|\bplace\b",  # "at the Boathouse", "Old Library Bar"
          rf"(?-i:\b(?:at|in) (?:the )?[A-Z]|\b(?!(?:{DAYS})\b)[A-Z][a-z]+ (?!(?:{DAYS})\b)[A-Z][a-z]+)"))
# the sentence of a page that says what an item should give ("A listing needs a date, a time ...")
# (a verb of having or giving: "which team should handle it" says what the worker does, not what an item holds)
NEEDS = re.compile(r"[^.!?]*\b(?:needs?|(?:must|should|ha(?:s|ve) to) (?:have|give|include|state|show|contain|list|"
                   r"say|mention)|gives?|includes?|requires?|contains?)\b[^.!?]*", re.I)
ADDRESSES = re.compile(r"address|post ?code|zip|deliver|parcel|postal|courier|shipping|letter", re.I)
SAYINGS = ("{P} missing", "{P} is missing", "Missing: {p}", "It leaves out {p}", "{P}")


def missing_part(text: str, rng: random.Random, page: str = "") -> str:
    """The first part ``text`` lacks of those its ``page`` (or an address) needs, in a few words; else ""."""
    named = max(([(m.start(), said, has) for said, names, has in TYPED if (m := re.search(names, n[0], re.I))]
                 for n in NEEDS.finditer(page)), key=len, default=[])  # one sentence names them, not the page's
    if len(named) >= 2:  # every word ("You must accept the HIT in time"; "typed by a customer")
        named.sort()
        lacks = next((said for _k, said, has in named if not re.search(has, text, re.I)), "")
        return rng.choice(SAYINGS).format(p=lacks, P=lacks[:1].upper() + lacks[1:]) if lacks else ""
    if page and not ADDRESSES.search(page):  # a page about something else: its short texts are no addresses
        return ""
    has = [(name, check(text.split(","), POSTCODE.findall(text))) for name, check in PARTS]
    if len(text.split()) > 15 or sum(h for _n, h in has[:4]) + bool(FLAT.search(text)) < 2:
        return ""
    lacks = next((name for name, h in has if not h), "")
    return rng.choice(SAYINGS).format(p=lacks, P=lacks[:1].upper() + lacks[1:]) if lacks else ""
