"""What a page's refusal message asks of a box's text, as a person reads it before typing again."""

from __future__ import annotations

import random
import re
from typing import NamedTuple

from flows.sim.people.stated_limits import NUMBERS, Limits, stated, stated_format, within

QUOTE = "\"'“”‘’«»"
# "must use / include / contain the word X", "use “X” in your sentence", "does not mention 'X'"
TERM = re.compile(r"\b(?P<v>use|uses|using|used|include|includes|including|included|contain|contains|containing|"
                  r"mention|mentions|mentioning|have|has|hold|holds|missing|lacks?)\b"
                  r"[^.!?\"“‘«]{0,30}?(?:\b(?:word|term|phrase|expression|keyword)s?\b\s*:?\s*)?"
                  rf"(?:(?<![\w])[{QUOTE}](?P<q>[^{QUOTE}]{{1,60}}?)[{QUOTE}](?![\w])|"
                  r"(?<=word )(?P<w>[A-Za-z][\w'-]+))", re.I)
# "do not use 'very'", "must not contain 'x'": a ban, not a demand ("you did not use 'x'" is one)
BANNED = re.compile(r"(?:(?:^|[.!?;:,]\s*|\bplease\s+)(?:do not|don't|never|avoid)|"
                    r"\b(?:must|should|may|can|need)\s*not|\b(?:mustn't|shouldn't|can't|cannot)|\bno)\s+$", re.I)
NOT_A_TERM = frozenset(("it", "this", "that", "the", "a", "an", "your", "one", "them", "words", "characters"))
# a short clause a person adds to say a little more, until the count is met (never the item's own words)
MORE = ("as far as I can tell", "and that is how I would put it", "which seems clear enough to me",
        "at least in my experience", "and most people would agree", "if I understand it right")
# how a person works a word they were told to use into what they wrote, keeping it one sentence
WITH_TERM = ("{b}, and {t} is the word for that.", "{b}, which is what {t} means to me.", "{b}; in a word, {t}.",
             "{b}, or in one word, {t}.")
WITH_PHRASE = ("{b}, to use the phrase {t}.", "{b}, or as they say, {t}.", "{b}; {t}, as the saying goes.")
ALONE = ("I would use {t} here.", "My sentence uses {t}.")

NUMBER = r"(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)"
# "exactly three sounds, separated by commas", "3 comma-separated tags", "a comma-separated list of five"
LISTED = re.compile(rf"\b{NUMBER}\b[^.!?;:]{{0,40}}?\b(?:separated|divided|split)\s+(?:by|with)\s+(?:an?\s+)?"
                    rf"(comma|semicolon)s?\b|\b{NUMBER}\s+(comma|semicolon)[- ]separated\b|"
                    rf"\b(comma|semicolon)[- ]separated\s+(?:list\s+of\s+)?{NUMBER}\b", re.I)


class Asked(NamedTuple):
    terms: tuple[str, ...] = ()
    limits: Limits = Limits()
    form: str = ""  # a pattern the whole text must match ("\d{5}"), "" for none

    def __bool__(self) -> bool:
        return bool(self.terms or self.limits != Limits() or self.form)


def asked_in(message: str) -> Asked:
    """What ``message`` asks of the text: the words or phrases it quotes to be used, its count limits, its form."""
    terms = []
    for m in TERM.finditer(message):
        term = (m["q"] or m["w"] or "").strip(" .,;:")
        banned = BANNED.search(message[:m.start()])
        if term and term.lower() not in NOT_A_TERM and not banned and len(term.split()) <= 6:
            terms.append(term)
    form = stated_format(message)
    return Asked(tuple(dict.fromkeys(terms)), stated(message), form)


def stem(term: str) -> str:
    """The part of a word a person keeps when changing its ending (reluctant -> relucta, walk -> wal)."""
    return term[:max(3, len(term) - 2)] if len(term) > 5 else term[:max(3, len(term) - 1)]


def holds(text: str, term: str) -> bool:
    """Whether ``text`` uses ``term``: a phrase as written, a single word in any ending ("walked" for "walk")."""
    low = " ".join(text.lower().split())
    if len(term.split()) > 1 or not re.fullmatch(r"[\w'-]+", term):
        return " ".join(term.lower().split()) in low
    return bool(re.search(rf"(?<![\w]){re.escape(stem(term.lower()))}", low))


def lacking(text: str, asked: Asked) -> list[str]:
    """What ``text`` lacks of what was asked, each as a person would say it ('' parts none)."""
    out = [f'the word "{t}"' if len(t.split()) == 1 else f'the phrase "{t}"' for t in asked.terms
           if not holds(text, t)]
    words, chars, lim = len(text.split()), len(text.strip()), asked.limits
    if words < lim.least_words or (lim.most_words is not None and words > lim.most_words):
        out.append(f"the number of words asked ({words} typed)")
    if chars < lim.least_chars or (lim.most_chars is not None and chars > lim.most_chars):
        out.append(f"the number of characters asked ({chars} typed)")
    if asked.form and not re.fullmatch(asked.form, text.strip()):
        out.append("the form asked")
    return out


def meeting(text: str, asked: Asked, rng: random.Random) -> str:
    """``text`` changed as a person changes it to meet what was asked: each missing word worked in, the count met
    (cut to whole words, or a clause more), a figure kept where only digits are asked."""
    text = " ".join(text.split())
    if asked.form and not re.fullmatch(asked.form, text) and (digits := "".join(re.findall(r"\d", text))) and \
            re.fullmatch(asked.form, digits):
        return digits  # a form is all the box asks: no words added to a code
    text = counted(text, asked.limits, rng)
    for term in (t for t in asked.terms if not holds(text, t)):
        text = _with(text, term, asked.limits, rng)  # (room made for it within the count)
    return counted(text, asked.limits, rng)


def _with(text: str, term: str, lim: Limits, rng: random.Random) -> str:
    """``text`` with ``term`` worked in, its own part cut first where the whole would be over the count."""
    if not text.strip(" .!?"):
        return rng.choice(ALONE).format(t=term)
    frame = rng.choice(WITH_TERM if len(term.split()) == 1 else WITH_PHRASE)
    added = len(frame.format(b="", t=term).split())
    most_words = None if lim.most_words is None else max(1, lim.most_words - added)
    most_chars = None if lim.most_chars is None else max(1, lim.most_chars - len(frame.format(b="", t=term)))
    body = within(text, most_words, most_chars).rstrip(" .!?")
    return frame.format(b=body, t=term)


def counted(text: str, lim: Limits, rng: random.Random) -> str:
    """``text`` within the count: cut where over (the words asked for kept), a clause more while under."""
    if (lim.most_words is not None and len(text.split()) > lim.most_words) or \
            (lim.most_chars is not None and len(text) > lim.most_chars):
        text = within(text, lim.most_words, lim.most_chars)
    pads = rng.sample(MORE, len(MORE))
    while pads and (len(text.split()) < lim.least_words or len(text) < lim.least_chars):
        longer = f"{text.rstrip(' .!?')}, {pads.pop()}."
        if (lim.most_words is not None and len(longer.split()) > lim.most_words) or \
                (lim.most_chars is not None and len(longer) > lim.most_chars):
            break
        text = longer
    return text


def listed(message: str) -> tuple[int, str] | None:
    """The number of parts and their separator a message asks a box's text to list ("three ..., separated by
    commas": (3, ",")), None where it asks no list."""
    m = LISTED.search(message)
    if not m:
        return None
    count, sep = next((n, s) for n, s in ((m[1], m[2]), (m[3], m[4]), (m[6], m[5])) if n)
    n = int(NUMBERS.get(count.lower(), count))  # "three" or "3"
    return (n, "," if sep.lower() == "comma" else ";") if 1 < n <= 10 else None


def as_list(text: str, n: int, sep: str) -> str:
    """``text``'s words as a person lists them when asked for ``n`` parts: in turn, up to three words a part."""
    said = re.findall(r"[\w'-]+", text) or ["something"]
    said = (said * n)[:min(max(n, len(said)), 3 * n)]
    few, more = divmod(len(said), n)  # as even as the words go: four words in three parts are 2, 1, 1, never 2, 2, 0
    ends = [k * few + min(k, more) for k in range(n + 1)]
    return f"{sep} ".join(" ".join(said[ends[k]:ends[k + 1]]) for k in range(n))
