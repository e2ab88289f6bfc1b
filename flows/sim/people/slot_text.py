"""Free text that completes the item's own sentence."""

from __future__ import annotations

import random
import re

from flows.core.pages.mturk_forms import FormField

BLANK = re.compile(r"_{3,}")
NEXT_WORD = re.compile(r"next[\s_-]*word|next\s+word|word\s+in\s+the\s+blank|continue", re.I)
BEGIN = re.compile(r"begin|start|before|prefix|first", re.I)
END = re.compile(r"\bend|after|suffix|last|finish|ending", re.I)

NOUNS = ("house", "garden", "table", "car", "park", "bag", "door", "window", "shop", "street")
BY_CLASS = (  # the last word's kind -> a word of the kind that follows it
    (frozenset(("very", "so", "too", "really", "quite", "is", "was", "are", "were", "felt", "looked", "seemed")),
     ("happy", "tired", "good", "busy", "cold", "late")),
    (frozenset(("i", "we", "she", "he", "they", "you", "it")), ("went", "said", "was", "had", "saw", "could")),
    (frozenset(("will", "can", "could", "would", "should", "must", "to", "not")), ("go", "be", "see", "help", "come")),
)
WORD = re.compile(r"[a-z']+")

VERBS = frozenset(("went", "gave", "took", "made", "saw", "ran", "came", "is", "was", "are", "were", "had", "got",
                   "said", "found", "left", "walked", "played", "bought", "met"))
DETERMINERS = frozenset(("the", "a", "an", "this", "that", "her", "his", "my", "our", "their", "some"))
# Many combinations, so honest people's openings and endings rarely coincide word for word.
SUBJECTS = ("We", "She", "I", "My uncle", "The children", "Our guide", "Tom", "My friends", "The twins", "Dad")
TIMES = ("Yesterday", "Last week", "On Saturday", "This morning", "After work", "Every Sunday", "Last summer",
         "Early today", "Two days ago", "On my birthday")
OPENERS = {"verb": ("my sister", "we", "my dad", "I", "our neighbours", "the whole class", "my friend Sam", "Grandma",
                    "the twins", "my boss"),
           "thing": ("walked past", "pointed at", "still remember", "talked about", "photographed", "asked about",
                     "found", "loved", "drew", "noticed"),
           "clause": ("stayed inside", "met a friend", "fell asleep", "ate lunch", "went home", "read a book",
                      "called home", "got lost", "sat down", "made tea")}
ADVERBS = {"verb": ("", " finally", " happily", " quickly", " once again"),
           "thing": ("", " often", " never", " suddenly"), "clause": ("", " early", " again", " together")}
PLACES = ("", "near the park", "in town", "by the river", "at home", "with my family", "with a friend", "in the rain")
WHEN = ("", "last weekend", "in the morning", "on Sunday", "after school", "before lunch", "yesterday", "at night")
TAILS = ("", " and it was lovely", " and we laughed a lot", " as usual", " for the first time", " again")


def slot(f: FormField, texts: list[str], siblings: list[str]) -> tuple[str, str, str] | None:
    """(kind, before, after) when this box completes the item's sentence; ``siblings``: the item's text boxes."""
    hint = " ".join((f.name, f.attrs.get("label", ""), f.attrs.get("placeholder", "")))
    for text in texts:
        parts = [p.strip() for p in BLANK.split(text)]
        if parts[0].endswith(":"):  # "Text to surround: ___ ..." in one chunk: the label is no part of it
            parts[0] = ""
        if len(parts) == 3 and not parts[0] and not parts[2] and parts[1]:
            side = "begin" if BEGIN.search(hint) else "end" if END.search(hint) else \
                ("begin" if siblings.index(f.name) == 0 else "end") if f.name in siblings else "begin"
            return side, "", parts[1]
        if len(parts) == 2 and parts[0]:  # (after a label, "Next: ____" has nothing before the blank)
            return "word", parts[0], parts[1]
    if NEXT_WORD.search(hint) and texts:
        return "word", texts[-1].strip().rstrip("."), ""
    return None


def _candidates(before: str) -> tuple[str, ...]:
    """Words of the kind that usually follows the last word (a describing word after "very", a verb after "she"),
    else everyday things."""
    words = WORD.findall(before.lower())
    last = words[-1] if words else ""
    return next((follow for kinds, follow in BY_CLASS if last in kinds), NOUNS)


def missing_word(before: str, rng: random.Random, careful: bool) -> str:
    """The word a person expects after ``before``: the most usual one half the time when careful."""
    options = _candidates(before)
    return options[0] if careful and rng.random() < 0.5 else rng.choice(options)


def surrounding(side: str, middle: str, rng: random.Random) -> str:
    """A beginning or an end a sentence around ``middle`` could have."""
    if side == "end":
        place, when = rng.choice(PLACES), rng.choice(WHEN[1:])
        return f"{' '.join(p for p in (place, when) if p)}{rng.choice(TAILS)}."
    first = (WORD.findall(middle.lower()) or [""])[0]
    kind = "verb" if first in VERBS or first.endswith("ed") else "thing" if first in DETERMINERS else "clause"
    lead = rng.choice(TIMES) if kind == "verb" else rng.choice(SUBJECTS)
    verb, adverb = rng.choice(OPENERS[kind]), rng.choice(ADVERBS[kind])
    return f"{lead}{adverb} {verb}" if kind == "thing" else f"{lead} {verb}{adverb}"  # "She often found ..."


def slot_text(found: tuple[str, str, str], rng: random.Random, careful: bool) -> str:
    kind, before, after = found
    if kind == "word":
        return missing_word(before, rng, careful)
    return surrounding(kind, after, rng)
