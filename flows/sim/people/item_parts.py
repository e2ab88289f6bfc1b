"""The part a structured item lacks, named as a person names it ("no house number"): a postal address is read
by its parts (a number, a street, a postcode, a town, a flat where the address hints at a building of several),
as anyone who has written one knows them. Items that are not of a known structure get "" (other text then).
"""

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
PARTS = (("street name", lambda parts, _p: any(STREET.search(p) for p in parts)),
         ("house number", lambda parts, _p: any(NUMBER.search(re.sub(CODED, " ", p)) or NUMBER.fullmatch(p.strip())
                                                for p in parts if STREET.search(p) or NUMBER.fullmatch(p.strip()))),
         ("postcode", lambda _parts, p: bool(p)),
         ("town or city", lambda parts, _p: any(re.search(r"\b[A-ZÀ-Ý][a-zà-ÿ]{2,}", re.sub(r"\([^)]*\)", "", p))
                                                and not STREET.search(p) for p in parts[1:])),
         ("flat or floor number", lambda parts, _p: bool(FLAT.search(",".join(parts)))
          or not BUILDING.search(",".join(parts))))
SAYINGS = ("No {p}", "{P} missing", "The {p} is missing", "Missing {p}", "No {p} given", "{P}")


def missing_part(text: str, rng: random.Random) -> str:
    """The first part an address lacks, named in a few words; "" when ``text`` is no address (over 15 words, or
    fewer than two of its parts) or has them all."""
    has = [(name, check(text.split(","), POSTCODE.findall(text))) for name, check in PARTS]
    if len(text.split()) > 15 or sum(h for _n, h in has[:4]) + bool(FLAT.search(text)) < 2:
        return ""
    lacks = next((name for name, h in has if not h), "")
    return rng.choice(SAYINGS).format(p=lacks, P=lacks[:1].upper() + lacks[1:]) if lacks else ""
