"""An honest simulated worker's free text for a box, within every limit the page states as QC reads them."""

from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import NamedTuple

from flows.sim.people.item_words import OPENERS, QUESTION_OPENERS, QUESTIONS, STATEMENTS, TAILS, content_words
from flows.sim.people.stated_limits import NUMBERS, stated, within
from qc.asked_limits import (
    TARGET,
    about_answer,
    asks_for_copy,
    copied_words,
    stated_banned_openings,
    stated_max_words,
    stated_min_words,
    word_runs,
)
from qc.submit_rules import count_words

CHARS_A_WORD = 6  # an English word and its space, roughly
# a page's words on how many sentences (a private reading: qc/asked_limits.py reads only "one sentence", ONE_SENTENCE)
_N = r"(\d|one|two|three|four|five|six)"
SENTENCE_COUNTS = (
    (re.compile(rf"\b{_N}\s*(?:-|–|to|or)\s*{_N}\s+(?:short\s+)?sentences\b|\ba sentence or (two)\b", re.I), "range"),
    (re.compile(rf"\b(?:at most|no more than|up to|not more than)\s+{_N}\s+sentences?\b", re.I), "most"),
    (re.compile(rf"\b(?:at least|a minimum of|no fewer than)\s+{_N}\s+sentences\b", re.I), "least"),
    (re.compile(rf"\b{_N}\s+(?:short\s+|full\s+|complete\s+)?sentences\b", re.I), "exact"),
    (re.compile(r"\b(?:one|a single|single|a|1)\s+(?:short\s+|full\s+|complete\s+)?sentence\b|\bone-sentence\b|"
                r"\b(?:one|a single)\s+question\b", re.I), "one"))
FEW_WORDS = re.compile(r"\b(?:in|with|using) (?:just |only )?a few words\b", re.I)
A_FEW = 4
ASKS_QUESTION = re.compile(
    r"\b(?:ask|write|give|suggest|pose|type|list)\b[^.?!]{0,30}\bquestions?\b|\bwould you ask\b|"
    r"\bquestions? (?:(?:would|might|could|do|does|will|should) (?:you|they|a|an|the|someone)|you(?:'d| would) ask|"
    r"for (?:the|a|an) )|\bend(?:s|ing)?\b[^.?!]{0,25}?\bwith (?:a )?(?:\?|question mark)", re.I)
# "list three things ..., one per line": that many short parts, a line each or after commas
LIST_ASK = re.compile(rf"\b(?:list|name|give|suggest|write down)\s+(?:the\s+)?{_N}\b(?!\s+(?:words|sentences)\b)",
                      re.I)
PER_LINE = re.compile(r"\b(?:one|each) (?:per|on (?:a|its own)) line\b|\bon separate lines\b|\bone a line\b", re.I)


class Box(NamedTuple):
    """What a box's page states of its answer, read as QC reads it."""

    least: int = 0  # words
    most: int | None = None  # words
    low: int = 0  # characters
    high: int | None = None  # characters
    sentences: tuple[int, int] | None = None
    target: int = 0  # words asked as a length ("about 25 words", "a 100-word summary"): 0 where none
    question: bool = False
    copy: bool = False
    banned: tuple[str, ...] = ()
    parts: int = 0  # a list of this many things asked
    per_line: bool = False


def sentence_range(text: str) -> tuple[int, int] | None:
    """(fewest, most) sentences the text asks its answer in: "one sentence", "2-3 sentences"; None: not said."""
    said = about_answer(text)
    for pattern, kind in SENTENCE_COUNTS:
        if m := pattern.search(said):
            n = [int(NUMBERS.get(g.lower(), g)) for g in m.groups() if g] or [1, 2]  # ("a sentence or two")
            if kind == "range":
                return (min(n), max(n)) if len(n) > 1 else (1, 2)
            return {"most": (1, n[0]), "least": (n[0], n[0] + 1), "exact": (n[0], n[0])}.get(kind, (1, 1))
    return None


def box_limits(asked: str, rule: dict[str, object], script_least: int = 0) -> Box:
    """The limits ``asked`` (the box's question, after the page's words where QC reads them) and the field's own
    attributes state; the stricter of each pair, as an honest person meets both."""
    return _box_limits(asked, rule.get("minlength"), rule.get("maxlength"), script_least)


@lru_cache(maxsize=32)  # every worker of a HIT asks the same (half of a form's filling); 32 pages, as page_contexts
def _box_limits(asked: str, minlength: object, maxlength: object, script_least: int) -> Box:
    said, most = stated(asked), stated_max_words(asked) or (A_FEW if FEW_WORDS.search(asked) else None)
    highs = [int(str(n)) for n in (maxlength, said.most_chars) if n is not None]
    low = max(int(str(minlength or 0)), said.least_chars)
    least = max(stated_min_words(asked), said.least_words, script_least)  # (minlength: a floor, not an aim)
    most = min((n for n in (most, said.most_words) if n), default=None)
    target = max((int(a or b) for a, b in TARGET.findall(about_answer(asked)) if (a or b).isdigit()), default=0)
    listed = int(NUMBERS.get(m[1].lower(), m[1])) if (m := LIST_ASK.search(about_answer(asked))) else 0
    return Box(least, most, low, min(highs, default=None), sentence_range(asked), target,
               bool(ASKS_QUESTION.search(asked)), asks_for_copy(asked), stated_banned_openings(asked),
               listed if listed > 1 else 0, bool(PER_LINE.search(asked)))


def target_words(box: Box, rng: random.Random, long_box: bool) -> int:
    """How many words this person writes: a few over a minimum, spread within a range, about a length asked; with
    no length stated, what such a box gets."""
    least, most = max(box.least, 1), box.most
    if box.sentences:
        least = max(least, min(4 * box.sentences[0], most or 10**6))
    if most is not None and most <= least:
        n = most
    elif most is not None:
        n = round(rng.triangular(least, most, least + 0.6 * (most - least)))
    elif box.target:  # about the length asked
        n = max(least, rng.randint(box.target * 4 // 5, box.target * 6 // 5))
    elif box.sentences:
        n = rng.randint(max(least, 7 * box.sentences[0]), max(least, 12 * box.sentences[1]))
    elif box.least:
        n = least + rng.randint(1, 3 + least // 8)
    else:
        n = rng.randint(8, 26) if long_box else rng.randint(2, 7)
    n = max(n, -(-box.low // CHARS_A_WORD))
    return max(1, min(n, box.high // CHARS_A_WORD if box.high else n))


def _filled(frame: str, pool: list[str], rng: random.Random, used: list[str]) -> list[str]:
    slots = re.findall(r"{(\w)}", frame)
    named = dict(zip(slots, _picked(pool, len(slots), rng, used), strict=True))
    return frame.format(**named).split()


def _picked(pool: list[str], k: int, rng: random.Random, used: list[str]) -> list[str]:
    """``k`` words of ``pool`` not in ``used`` while it has others (then added to it), its first words likelier."""
    weights = [1 / (1 + 0.3 * i) for i in range(len(pool))]
    out: list[str] = []
    while len(out) < k:
        word = rng.choices(pool, weights)[0]
        if word not in used or not set(pool) - set(used):
            out.append(word)
            used.append(word)
    return out


def sentence(pool: list[str], n: int, rng: random.Random, question: bool, said: set[str]) -> list[str]:
    """One sentence of exactly ``n`` words: an opener, a frame naming the item's words, tails to its length; none
    of the frames in ``said`` (the text's other sentences') while others fit."""
    openers, frames = (QUESTION_OPENERS, QUESTIONS) if question else (OPENERS, STATEMENTS)
    opener = _fresh(openers, said, rng).split()
    fitting = [f for f in frames if len(f.split()) + len(opener) <= n]
    if not fitting:
        opener, fitting = [], [f for f in frames if len(f.split()) <= n] or ["{a}"]
    used: list[str] = []
    words = opener + _filled(_fresh(fitting, said, rng), pool, rng, used)
    while len(words) < n:
        words += _filled(_fresh(TAILS[min(n - len(words), len(TAILS) - 1)], said, rng), pool, rng, used)
    words[0] = words[0][:1].upper() + words[0][1:]
    return words


def _fresh(options: tuple[str, ...] | list[str], said: set[str], rng: random.Random) -> str:
    pick = rng.choice([o for o in options if not o or o not in said] or list(options))  # ("": no opener)
    said.add(pick)
    return pick


def phrase(pool: list[str], n: int, rng: random.Random) -> str:
    """``n`` of the item's words, as a title or a short answer puts them ("Battery charger and strap"); the pool
    holds at least ``n - 1`` distinct words (then one "and" joins the last two)."""
    words = _picked(pool, min(n, len(pool)), rng, [])
    if len(words) < n or (n >= 3 and rng.random() < 0.5):
        words = [*words[:n - 2], "and", words[n - 2]]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def _sentence_count(box: Box, n: int, rng: random.Random) -> int:
    if box.sentences:
        low, high = box.sentences
        return max(1, min(rng.randint(low, high), n // 3 or 1)) if n >= 3 * low else max(1, min(low, n))
    return 1 if n <= 12 else max(1, round(n / rng.uniform(9, 18)))


def plain(texts: list[str], box: Box, rng: random.Random, long_box: bool = True) -> str:
    """Free text about the item's ``texts`` within ``box``'s limits (never raises; "" with no words to use)."""
    pool = content_words(texts) or ["it"]
    if box.copy and texts:  # the box asks for the item's words back: a sentence of its main text, within the limits
        return within(rng.choice([s for s in re.split(r"(?<=[.!?])\s+", max(texts, key=len)) if s.strip()]),
                      box.most, box.high)
    if box.parts and not box.question:
        return _listed(pool, box, rng)
    n = target_words(box, rng, long_box)
    for _ in range(12):
        text = _drafted(pool, box, n, rng, long_box)
        if box.high is not None and len(text) > box.high and n > 1:
            n = max(1, n - 1 - (len(text) - box.high) // CHARS_A_WORD)
        elif len(text) < box.low:
            n += 1 + (box.low - len(text)) // CHARS_A_WORD
        elif not text.lower().startswith(tuple(b.lower() for b in box.banned)) and not copied(text, texts) and \
                _names(text, pool, n):
            return text
    return text


def _listed(pool: list[str], box: Box, rng: random.Random) -> str:
    """The things a list asks for, a few of the item's words each, a line each where the page says so."""
    k = max(1, min(3, (box.most or 3 * box.parts) // box.parts))
    words = _picked(pool, box.parts * k, rng, [])
    parts = [" ".join(words[i * k:(i + 1) * k][:rng.randint(1, k)]) for i in range(box.parts)]
    return ("\n" if box.per_line else ", ").join(p[:1].upper() + p[1:] for p in parts)


def _drafted(pool: list[str], box: Box, n: int, rng: random.Random, long_box: bool) -> str:
    short = min(n, len(pool) + (n >= 3))  # no word twice
    few = (box.most or 99) <= 8  # a title, a few words asked; else a short box's phrase where the item has the words
    if ((n <= 6 and not long_box and len(pool) >= 4) or few) and short >= box.least and not box.question and \
            box.sentences is None:
        return phrase(pool, short, rng)
    count = _sentence_count(box, n, rng)
    sizes = [min(4, n // count)] * count  # no sentence of a word or two while there are words to spare
    for _ in range(n - sum(sizes)):
        sizes[rng.randrange(count)] += 1
    asked, said = [box.question and k == count - 1 for k in range(count)], set[str]()  # the last: the question
    return " ".join(" ".join(sentence(pool, size, rng, q, said)) + "?."[not q] for size, q in zip(sizes, asked,
                                                                                                    strict=True))


def _names(text: str, pool: list[str], n: int) -> bool:
    """Whether ``text`` names two of the item's words (one in a text of two words or one, or a pool of one)."""
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return len(said & {w.lower() for w in pool}) >= min(2 if n >= 3 else 1, len(pool))


def copied(text: str, texts: list[str]) -> bool:
    """Whether half of ``text``'s words (four or more) sit in runs of the item's words (qc/source_copy.py's runs), or
    all of its two or three."""
    mine = re.findall(r"[\w']+", text.lower())
    shown = [re.findall(r"[\w']+", t.lower()) for t in texts]
    if 2 <= len(mine) < 4:  # a few words: copied where they stand in the item as they are ("water wet")
        return any(tuple(mine) in {tuple(w[k:k + len(mine)]) for k in range(len(w))} for w in shown)
    return len(mine) >= 4 and copied_words(mine, word_runs(shown))[0] >= len(mine) / 2


def meets(text: str, box: Box) -> bool:
    """Whether ``text`` is within every limit of ``box`` (words counted as QC counts them)."""
    words = count_words(text)
    said = len(re.findall(r"[.!?](?:\s+\S|\s*$)", text.strip())) or 1
    return box.least <= words <= (box.most or 10**6) and box.low <= len(text) <= (box.high or 10**6) and \
        (not box.sentences or box.sentences[0] <= said <= box.sentences[1]) and \
        (not box.question or text.rstrip().endswith("?"))


def lengthened(text: str, least: int, texts: list[str], rng: random.Random) -> str:
    """``text`` with a sentence about the item added to reach ``least`` words (a count the page's script makes)."""
    if (have := len(text.split())) >= least:
        return text
    return f"{text.rstrip()} {' '.join(sentence(content_words(texts) or ['it'], least - have, rng, False, set()))}."
