"""A comparison of the two things an item shows, as a person writes it: both named, and what differs between them."""

from __future__ import annotations

import random
import re
from difflib import SequenceMatcher

# what a box asks to compare ("Compare the two ads", "How do the two reviews differ", "contrast ...")
COMPARE_ASK = re.compile(r"\b(?:compare|contrast|differences? between|how (?:do|does) (?:\w+ ){1,3}differ)\b", re.I)
PAIR_NOUN = re.compile(r"\b(?:two|both)\s+([a-z]{3,})\b", re.I)
STOP = frozenset(("the", "and", "with", "your", "you", "our", "for", "are", "will", "must", "have", "that", "this",
                  "from", "into", "who", "all", "any", "per", "plus", "not", "can", "but", "its", "they", "their",
                  "we", "a", "an", "of", "to", "in", "on", "at", "or", "be", "is", "it", "as", "by", "what", "when",
                  "which", "there", "were", "been", "also", "just", "very", "more", "than", "then", "some"))
LINKS = (", while {b} ", "; {b} instead ", ", whereas {b} ", ". By contrast, {b} ")
ASKS = ("mentions", "talks about", "focuses on", "brings up")
SILENT = ("says nothing about {c}", "does not mention {c} at all", "gives no word on {c}")


def asks_comparison(question: str) -> bool:
    return bool(COMPARE_ASK.search(question))


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][A-Za-z'-]*", text)


def _cues(question: str) -> tuple[str, ...]:
    """The points the box names in brackets ("experience, qualifications, hours ...") as stems."""
    named = re.search(r"\(([^)]*)\)", question)
    return tuple(w.lower()[:5] for w in _words(named.group(1)) if len(w) >= 4) if named else ()


def _points(text: str, other: str, cues: tuple[str, ...], n: int = 3) -> list[str]:
    """Up to ``n`` things a text says, in its order: the points the box names, each with the word that qualifies it
    ("clean licence"), then its own content words the other text does not use (none where the box names points and
    the text says nothing of them); a few words apart, so no run of the text is copied."""
    said, theirs = _words(text), {w.lower()[:5] for w in _words(other)}
    found: list[str] = []
    for i, w in enumerate(said):
        low = w.lower()
        if cues and low.startswith(cues) and low not in STOP:
            before = said[i - 1].lower() if i and said[i - 1].lower() not in STOP and len(said[i - 1]) > 2 else ""
            found.append(f"{before} {low}".strip())
    own = [w.lower() for w in said if len(w) >= 4 and w.lower() not in STOP and w.lower()[:5] not in theirs]
    points: list[str] = []
    for point in [*found, *(own if found or not cues else [])]:
        if not any(p.split()[-1][:4] == point.split()[-1][:4] for p in points):
            points.append(point)
    return points[:n]


def _listed(points: list[str]) -> str:
    return points[0] if len(points) == 1 else ", ".join(points[:-1]) + " and " + points[-1]


def comparison(question: str, texts: list[str], rng: random.Random, most: int | None = None) -> str:
    """The two longest texts compared on the points the box names (else on what each says that the other does not):
    what each says, or that one says nothing of them."""
    pair = sorted(sorted(texts, key=lambda t: -len(t.split()))[:2], key=texts.index)
    if len(pair) < 2:
        return ""
    noun = (m.group(1).lower().rstrip("s") if (m := PAIR_NOUN.search(question)) else "") or "one"
    first, second = f"the first {noun}", f"the second {noun}"
    cues = _cues(question)
    a, b = _points(pair[0], pair[1], cues), _points(pair[1], pair[0], cues)
    if not a and not b:
        return ""
    topic = _listed(a or b)
    said_a = f"{rng.choice(ASKS)} {_listed(a)}" if a else rng.choice(SILENT).format(c=topic)
    said_b = f"{rng.choice(ASKS)} {_listed(b)}" if b else rng.choice(SILENT).format(c=topic)
    return _at_most(first[:1].upper() + first[1:] + f" {said_a}" + rng.choice(LINKS).format(b=second) + f"{said_b}.",
                    most)


def _at_most(text: str, most: int | None) -> str:
    """``text`` cut at ``most`` words, ending as a sentence."""
    words = text.split()
    return " ".join(words[:most]).rstrip(",;.") + "." if most and len(words) > most else text


# a box asking what one version changed of another ("what is different in the new version", "what changed")
DIFFER_ASK = re.compile(r"\b(?:what(?:'s| is| was)? (?:\w+ )?(?:different|changed?|new)|what differs|"
                        r"what (?:has|have|did) (?:\w+ ){0,2}chang\w*|how (?:has|have|did) (?:\w+ ){0,2}chang\w*)\b",
                        re.I)
SWAPS = ("{a} becomes {b}", "{a} changes to {b}", "it now says {b} instead of {a}", "{a} is now {b}")


def asks_difference(question: str) -> bool:
    return bool(DIFFER_ASK.search(question))


def _quoted(words: list[str], i: int, j: int) -> str:
    """Words ``i:j`` with the word before them, so a lone number reads as what it counts ("to 6pm")."""
    return " ".join(words[max(0, i - 1):j]).strip(" ,;.")


def difference(texts: list[str], rng: random.Random, most: int | None = None) -> str:
    """What the second of the two most alike texts (two versions) says in place of the first's: its own words."""
    pairs = [(a, b) for i, a in enumerate(texts) for b in texts[i + 1:] if len(a.split()) >= 3 <= len(b.split())]
    if not pairs:
        return ""
    old, new = (t.split() for t in max(pairs, key=lambda p: SequenceMatcher(None, p[0].split(), p[1].split(),
                                                                           autojunk=False).ratio()))
    told = []
    for op, i, j, k, m in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "replace":
            told.append(rng.choice(SWAPS).format(a=f'"{_quoted(old, i, j)}"', b=f'"{_quoted(new, k, m)}"'))
        elif op == "insert":
            told.append(f'the new version adds "{" ".join(new[k:m]).strip(" ,;.")}"')
        elif op == "delete":
            told.append(f'the new version drops "{" ".join(old[i:j]).strip(" ,;.")}"')
    if not told:
        return "Only the wording changed, the meaning is the same."
    text = " and ".join(told[:2])
    return _at_most(text[:1].upper() + text[1:] + ".", most)
