"""Two kinds of text a box asks about the item shown: the answer to the item's own question ("How many legs
does a spider have?": a number, not the question back) and a detail its description leaves out ("What is
missing from this alt text?": a named detail, not the description restated).

The answer's kind comes from the question's opening words; the values are small lists of our own (a
modelling choice: the simulator knows no facts, so an answer is of the asked kind, not necessarily right).
A missing detail names a property of one of the description's own things that the description does not
give (its colour, what it is doing, where it is), or the setting around them.
"""

from __future__ import annotations

import random
import re

KINDS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"^how many|^how much", re.I), ("2", "3", "4", "6", "8", "10", "12", "about 20")),
    (re.compile(r"colou?r", re.I), ("green", "blue", "red", "yellow", "purple", "orange", "brown")),
    (re.compile(r"planet", re.I), ("Mercury", "Venus", "Mars", "Jupiter", "Saturn")),
    (re.compile(r"capital|city|town", re.I), ("Paris", "Madrid", "Rome", "Berlin", "Lisbon", "Vienna")),
    (re.compile(r"^(what|which) (year|century)|^when\b", re.I), ("1969", "1989", "in the 1800s", "2001", "1914")),
    (re.compile(r"^who\b", re.I), ("Marie Curie", "Isaac Newton", "Ada Lovelace", "Charles Darwin")),
    (re.compile(r"^where\b", re.I), ("In Europe", "In Africa", "Near the coast", "In the mountains")),
    (re.compile(r"^(is|are|was|were|do|does|did|can|could|will|would|should|has|have)\b", re.I), ("Yes", "No")),
)
DETAILS = ("It does not give the colour of the {n}.", "The size of the {n}.", "Where in the picture the {n} stands.",
           "How far away the {n} looks.", "What is right next to the {n}.", "The colour and the size of the {n}.")
SETTING = ("The weather and the time of day.", "What is in the background.", "Whether it is indoors or outside.",
           "Any text or signs in the picture.", "The light: bright sun or shade.")
NOT_THINGS = frozenset(("a", "an", "the", "on", "in", "at", "of", "and", "with", "by", "two", "three", "some",
                        "playing", "parked", "sitting", "standing", "is", "are", "current", "alt", "text", "image",
                        "photo", "picture", "shows", "showing", "this", "that", "from", "near", "under", "over",
                        "red", "blue", "green", "yellow", "black", "white", "grey", "gray", "brown", "orange", "pink",
                        "purple", "old", "new", "big", "small", "large", "little", "young", "happy", "empty"))


def item_question(texts: list[str]) -> str:
    """The item's own question (its last text ending in "?"), or ""."""
    return next((t for t in reversed(texts) if t.rstrip().endswith("?")), "")


def question_answer(question: str, rng: random.Random) -> str:
    """A short answer of the kind ``question`` asks; "" when its kind is not known (the box gets other text)."""
    asks = question.strip()
    for pattern, values in KINDS:
        if pattern.search(asks):
            return rng.choice(values)
    return ""


def missing_detail(texts: list[str], rng: random.Random) -> str:
    """A detail the item's description does not give, about one of the things it names."""
    words = [w.strip(".,;:!?\"'()").lower() for t in texts for w in t.split(":")[-1].split()]
    things = [w for w in words if len(w) >= 3 and w not in NOT_THINGS and w.isalpha()]
    if not things or rng.random() < 0.3:
        return rng.choice(SETTING)
    return rng.choice(DETAILS).format(n=rng.choice(things))
