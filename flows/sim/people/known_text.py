"""A text box's known answer (flows/custom/truth_source.py), written as a person who knows it writes it."""

from __future__ import annotations

import random
import re
from functools import lru_cache

from flows.sim.people.entity_spans import word_counts
from flows.sim.people.item_words import OPENERS, STATEMENTS
from flows.sim.people.plain_text import sentence_range
from flows.sim.people.refusal_asks import counted
from flows.sim.people.stated_limits import Limits

SHORT = 8  # a box whose stated most is this many words or fewer takes the answer alone
STEM = 4  # a listed word this long or longer that is no word is a stem: said as the commonest word it starts
# the plain writer's frames that hold one word of the item and no article before it (the answer may be a phrase)
FRAMES = tuple(f for f in STATEMENTS if "{b}" not in f and "the {a}" not in f and f != "{a}")


@lru_cache(maxsize=512)
def whole(token: str) -> str:
    """A listed word as a person writes it: itself (a word pyspellchecker's list knows), or the commonest word of
    that list it is the stem of (up to four letters more)."""
    counts = word_counts()
    if len(token) < STEM or not token.isalpha() or token in counts:
        return token
    return max((w for w in counts if w.startswith(token) and len(w) <= len(token) + 4), key=counts.__getitem__,
               default=token)


def alternatives(known: str, texts: list[str]) -> list[str]:
    """The known answer's alternatives, stems said whole; those the item's own words hold first (its own things)."""
    listed = [" ".join(whole(w) if w.islower() else w for w in a.split()) for a in known.split("|") if a.strip()]
    shown = " ".join(texts).lower()
    return sorted(dict.fromkeys(listed), key=lambda a: not re.search(rf"\b{re.escape(a.lower())}\b", shown))


def holds(text: str, known: str) -> bool:
    """The text holds one of the known answer's alternatives (a word of it, or one it is the start of)."""
    said = re.findall(r"[\w'-]+", text.lower())
    return any(re.search(rf"\b{re.escape(a.lower())}", text.lower()) if " " in a.strip() else
               any(w.startswith(a.strip().lower()) for w in said) for a in known.split("|") if len(a.strip()) >= 3)


def known_text(known: str, question: str, texts: list[str], rng: random.Random, least: int,
               most: int | None) -> str:
    """The known answer as the box asks it: alone in a box of a few words, else in a sentence of one's own."""
    options = alternatives(known, texts)
    if not options:
        return ""
    pick = options[0] if rng.random() < 0.5 else rng.choice(options)
    sentence = sentence_range(question) == (1, 1) or least > len(pick.split()) + 1 or \
        (most is not None and most > SHORT and least > 1)
    if not sentence or (most is not None and most <= SHORT):
        fits = [o for o in options if most is None or len(o.split()) <= most] or options
        pick = pick if pick in fits else fits[0]
        return pick[:1].upper() + pick[1:] if pick.islower() and rng.random() < 0.5 else pick
    return framed(pick, least, rng)


def framed(answer: str, least: int, rng: random.Random) -> str:
    """``answer`` in a sentence of one's own (the plain writer's openers and frames), at least ``least`` words."""
    text = " ".join((rng.choice(OPENERS) + " " + rng.choice(FRAMES).format(a=answer)).split())
    return counted(text[:1].upper() + text[1:] + ".", Limits(least_words=least), rng)  # (asides of one's own)
