"""A headline that says where or when, where the box asks it to, from the item's own place names and times."""

from __future__ import annotations

import re

# a box that asks a title to say where or when ("Say what weather and where (or when)")
WHERE_ASK = re.compile(r"\b(?:where|when|which (?:area|place|region|day))\b", re.I)
DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
WHEN = re.compile(rf"\b(?:(?:on|from|until|by|for) {DAYS}(?: (?:morning|afternoon|evening|night))?|overnight|tonight|"
                  r"tomorrow|today|this (?:morning|afternoon|evening|weekend|week)|at the weekend)\b", re.I)
PLACE = re.compile(r"\b(?:in|across|for|over|near|around|along|on|at) (?:the )?(?P<p>[A-Z][\w'-]+(?: (?:[A-Z][\w'-]+|"
                   r"and [A-Z][\w'-]+))?)")
OPENERS = frozenset(("Issued", "Yellow", "Amber", "Red", "Warning", "The", "A", "An", "This", "Please", "Keep"))


def _places(texts: list[str]) -> list[str]:
    """The item's place names, as a preposition introduces them ("for Coastal Cornwall", "across the Pennines")."""
    found = [m["p"] for t in texts for m in PLACE.finditer(t) if m["p"].split()[0] not in OPENERS
             and not re.fullmatch(DAYS, m["p"].split()[0], re.I)]
    return list(dict.fromkeys(found))


def placed(title: str, texts: list[str], question: str, most: int | None) -> str:
    """``title`` with the item's first place (else its first time) added when the box asks where or when and the
    title names neither; as it is when it does, or when no room is left within ``most`` words."""
    if not WHERE_ASK.search(question) or WHEN.search(title):
        return title
    places = _places(texts)
    if any(p.split()[0].lower() in title.lower() for p in places):
        return title
    when = next((m[0] for t in texts if (m := WHEN.search(t))), "")
    extra = f"in {places[0]}" if places else when.lower()
    if not extra or (most and len(title.split()) + len(extra.split()) > most):
        return title
    return f"{title.rstrip(',;:. ')} {extra}"
