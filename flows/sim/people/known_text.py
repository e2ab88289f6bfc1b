"""A text box's known answer (the requester's items file gives it: flows/custom/truth_source.py), written as a person
who knows it writes it: one of its ``|``-joined alternatives, alone where the box asks a word or a short phrase, in
a sentence of the person's own where it asks one; a word cut to its stem in the file ("persever") said whole."""

from __future__ import annotations

import random
import re
from functools import lru_cache

from flows.sim.people.entity_spans import word_counts
from flows.sim.people.plain_text import sentence_range

SHORT = 8  # a box whose stated most is this many words or fewer takes the answer alone
STEM = 4  # a listed word this long or longer that is no word is a stem: said as the commonest word it starts
# a sentence around the answer, by what the question asks of it
FRAMES = ((re.compile(r"\b(?:instead|in place of|swap|substitute|replace|use)\b", re.I),
           ("I'd use the {a} instead.", "They could use the {a} for it.", "Use the {a} instead, it would do the job.",
            "The {a} would work instead.")),
          (re.compile(r"\b(?:moral|lesson|proverb)\b", re.I),
           ("It's about {a}, and you should remember that.", "Never forget the part {a} plays.",
            "The lesson is about {a}: think before you act.", "Remember {a}, it always matters in the end.")),
          (re.compile(r""),  # any question, the empty one too
           ("I'd say {a}.", "I think it comes down to {a}.", "Mostly {a}, I think.", "It's about {a}.")))

ASIDES = (", as far as I can tell", ", going by what it says", ", if I have read it right",
          " and I'm fairly sure of that", ", that is how I see it")


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
    return framed(question, pick, least, rng)


def framed(question: str, answer: str, least: int, rng: random.Random) -> str:
    """``answer`` in a sentence of one's own of the frames for what the question asks, at least ``least`` words."""
    frames = next(f for cue, f in FRAMES if cue.search(question))
    return at_least(rng.choice(frames).format(a=answer), least, rng)


def at_least(text: str, least: int, rng: random.Random) -> str:
    """A sentence of one's own lengthened to the box's least words with words of one's own, never the item's."""
    for aside in rng.sample(ASIDES, len(ASIDES)):
        if len(text.split()) >= least:
            break
        text = f"{text.rstrip('.')}{aside}."
    return text
