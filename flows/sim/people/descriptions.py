"""A description of the thing a box names ("Describe the shelf"), in the item's own words."""

from __future__ import annotations

import random
import re

from flows.sim.people.item_writing import STOP, spans

THING = re.compile(r"\bdescribe (?:the|this|each|that|its) (?P<x>[a-z]+(?: [a-z]+)?)", re.I)
MEDIA = frozenset(("photo", "image", "picture", "video", "clip", "scene", "text", "item", "it", "one", "what"))
PLACE = re.compile(r"\b(?:in|at|on|from|by|near|outside|inside) the (?:[\w'-]+ ){0,3}?[\w'-]+?(?=\s+of\b|[,.;:!?]|$)")
NAME = re.compile(r"\b(?:The )?[A-Z][\w'’&-]+(?: [A-Z][\w'’&-]+)+|\bThe [A-Z][\w'’&-]+")
FRAMES = ("The {x} {w}", "{X} {w}", "It is the {x} {w}", "A {x} {w}")


def description(question: str, texts: list[str], chosen: str, rng: random.Random) -> str:
    """The thing ``question`` asks to describe, with the item's words and the state ``chosen`` gives it; or ""."""
    m = THING.search(question)
    said = [w for w in (m["x"].split() if m else []) if not w.endswith("ly") and w.lower() not in STOP]
    if not said or said[0].lower() in MEDIA:
        return ""
    x = " ".join(said[:1]).lower()
    where = next((m[0] for t in texts if (m := PLACE.search(t))), "")  # "in the cereal aisle"
    names = [m[0] for t in texts for m in NAME.finditer(t)]  # else what it is for: "The Magpie Café"
    found = spans(texts, rng, 1)
    where = where or (f"for {rng.choice(names)}" if names else f"for {found[0]}" if found else "")
    if not where:  # nothing of the item's own to say it with (its text unseen): a caption is written instead
        return ""
    text = rng.choice(FRAMES).format(x=x, X=x[:1].upper() + x[1:], w=where).strip()
    state = chosen.strip().rstrip(".").lower()
    if re.fullmatch(r"[a-z][a-z ,'-]{2,30}", state) and len(state.split()) <= 4:
        text += rng.choice((f", {state}", f" ({state})", f"; {state}"))
    return f"{text}."
