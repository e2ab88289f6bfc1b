"""Answers in the shape a box's own words ask, read off their verb and noun, not off a domain: hashtags, emoji, a
list of N things, a name for the item. Each is built from the item's own salient words and meets the count the words
state; a box asking none of these shapes gets "" (the other writers answer it)."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from flows.sim.people.stated_limits import LEAST, MOST, NUMBERS, SPAN

COUNT = r"(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)"
RANGE = re.compile(r"\b(?P<a>\d{1,2}|one|two|three|four|five|six)\s*(?:-|–|to)\s*(?P<b>\d{1,2}|two|three|four|five|"
                   r"six|seven|eight|nine|ten)\s+(?P<u>[a-z]+)", re.I)
HASHTAGS = re.compile(rf"\b(?:{COUNT}\s+)?hashtags?\b", re.I)
EMOJI = re.compile(r"\bemoji", re.I)
NAME = re.compile(r"\b(?:make up|invent|come up with|think of|suggest|give|create|choose|pick|write)\b[^.?]{0,25}"
                  r"\b(?:name|title|nickname)\b", re.I)
# "three sounds", not a limit ("2 to 6 words", "5 minutes")
LIST = re.compile(rf"(?<!to )(?<!-)\b{COUNT}\s+(?!(?:words|characters|chars|letters|sentences|lines|digits|minutes|"
                  r"seconds|hours|days|times|stars|points)\b)(?P<thing>[a-z]+s)\b", re.I)
BY_SPACES = re.compile(r"\b(?:space|spaces) between\b|\bseparated by (?:a )?spaces?\b", re.I)


def around_boxes(positions: dict[str, int], texts: Sequence[tuple[int, str, object]],
                 boxes: list[str]) -> dict[str, str]:
    """Box -> the page's words between the control before it and the one after it (its question and the hint under
    it, as a person reads them together)."""
    marks = sorted(positions.values())
    out = {}
    for name in boxes:
        if (pos := positions.get(name)) is None:
            continue
        low = max((p for p in marks if p < pos), default=-1)
        high = min((p for p in marks if p > pos), default=10**9)
        out[name] = " ".join(t for p, t, _ in texts if low < p < high)
    return out


def box_ask(question: str, around: str) -> str:
    """All a box's words: its question, and the sentences around it that ask or say how to answer (a hint under it;
    never an item's text shown there)."""
    said = [t for t in re.split(r"(?<=[.?!])\s+", around) if (ASKING.match(t) or t.endswith("?")) and t not in question]
    return " ".join([question, *said]).strip()


# a sentence that asks for an answer or says how to give it ("Q2. Suggest three hashtags", "Each hashtag starts ...")
ASKING = re.compile(r"^\W*(?:q?\d{1,2}[.):]\s*|[a-h]\)\s*)?(?:now\s+)?(?:please\s+)?(?:write|suggest|name|list|give|"
                    r"make|retell|tell|describe|re-?write|rephrase|put|type|enter|use|add|choose|pick|think of|imagine|"
                    r"create|invent|come up|say|each|keep|spell|separate)\b", re.I)


UNSURE = "Not sure: the item does not tell me enough to answer this."  # said where the box's own words would be


def echoes_ask(text: str, question: str, shown: Sequence[str] = ()) -> bool:
    """An answer made of the box's own words, which no person gives: its limit ("2 to 4 words", "at most 15 words",
    "separated by commas") or most of its question's words over again (the item's ``shown`` words are the answer's
    to use: a box with no question of its own is read under the item)."""
    if any(p.search(text) for p in (SPAN, LEAST, MOST)) or re.search(r"\bseparated by\b", text, re.I):
        return True
    said = re.findall(r"[a-z]{3,}", text.lower())
    asked = set(re.findall(r"[a-z]{3,}", question.lower())) - set(re.findall(r"[a-z]{3,}", " ".join(shown).lower()))
    return len(said) >= 3 and sum(w in asked for w in said) >= 0.8 * len(said)


def shaped_answer(ask: str, texts: list[str], rng: random.Random) -> str:
    """The answer in the shape the box's words name (``ask``: its question and the hint around it, box_ask), from
    the item's ``texts``; "" for none."""
    main = max(texts, key=len, default="")
    if HASHTAGS.search(ask):
        return hashtags(main, _count(ask, HASHTAGS, 3), rng)
    if EMOJI.search(ask):
        return emoji(main, _span(ask, "emoji", (3, 5)), rng)
    if NAME.search(ask):
        return made_name(texts, _span(ask, "words", (2, 3)))
    if (listed := LIST.search(_lead(ask))) and 2 <= int(NUMBERS.get(listed["n"].lower(), listed["n"])) <= 10:
        return listing(int(NUMBERS.get(listed["n"].lower(), listed["n"])), " ".join(texts),
                       " " if BY_SPACES.search(ask) else ", ")
    return ""


def _lead(ask: str) -> str:
    """The asking words before any example ("e.g. owls, waves"): what a list's count is read off."""
    return re.split(r"\b(?:e\.g\.|for example|such as|like)\b", ask, maxsplit=1, flags=re.I)[0]


def _count(ask: str, pattern: re.Pattern[str], default: int) -> int:
    found = pattern.search(_lead(ask)) or pattern.search(ask)
    n = found["n"] if found and found.groupdict().get("n") else ""
    return int(NUMBERS.get(n.lower(), n)) if n else default


def _span(ask: str, unit: str, default: tuple[int, int]) -> int:
    """How many ``unit`` a person gives where the box states a span ("3 to 6 emoji": 4), else a default's draw."""
    for m in RANGE.finditer(ask):
        if m["u"].lower().startswith(unit[:4]):
            a, b = (int(NUMBERS.get(v.lower(), v)) for v in (m["a"], m["b"]))
            return max(a, min(b, (a + b + 1) // 2))
    return default[0] + (default[1] > default[0])


def hashtags(text: str, n: int, rng: random.Random) -> str:
    """``n`` different hashtags from the item's salient words (a name's words run together)."""
    words = salient(text)
    names = [m.replace(" ", "") for m in re.findall(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+", text)]
    tags = list(dict.fromkeys(t.lower() for t in [*names[:1], *sorted(words, key=len, reverse=True)]))
    picked = tags[:n] + [t for t in ("local", "community", "weekend") if t not in tags][: max(0, n - len(tags))]
    rng.shuffle(picked)
    return " ".join(f"#{t}" for t in picked)


def emoji(text: str, n: int, rng: random.Random) -> str:
    """``n`` emoji: the item's own, in its order, then general faces where it shows too few."""
    found = list(dict.fromkeys(re.findall(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]", text)))
    moods = ["😂", "😢", "❤️", "🎬", "⭐"]
    return " ".join((found + [m for m in moods if m not in found])[:n])


def listing(n: int, text: str, sep: str) -> str:
    """``n`` short things of the kind asked: the item's own things."""
    found = [w.lower() for w in salient(text)] or ["nothing else"]
    return sep.join(list(dict.fromkeys(found))[:n])


def made_name(texts: list[str], n: int) -> str:
    """A name of ``n`` words for the item: its own salient words, capitalised as a name."""
    found = salient(" ".join(texts))
    return " ".join(w[:1].upper() + w[1:] for w in found[: max(1, n)]) if found else ""


STOP = frozenset(("a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "with", "by", "from", "but",
                  "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "those", "their",
                  "there", "here", "his", "her", "he", "she", "they", "them", "we", "our", "you", "your", "i",
                  "my", "me", "not", "no", "so", "as", "into", "over", "after", "before", "just", "very", "also",
                  "has", "have", "had", "will", "would", "can", "could", "should", "may", "might", "than", "then",
                  "when", "while", "who", "which", "what", "where", "one", "two", "three", "four", "five", "six",
                  "seven", "eight", "nine", "ten", "all", "some", "any", "each", "every", "more", "most", "about",
                  "up", "down", "out", "off"))


def salient(text: str) -> list[str]:
    """The item's content words in order, each once (no small words, no numbers)."""
    seen: dict[str, None] = {}
    for w in re.findall(r"[A-Za-z][A-Za-z'-]{2,}", text):
        if w.lower() not in STOP and not w.lower().endswith("'s"):
            seen.setdefault(w, None)
    return list(seen)
