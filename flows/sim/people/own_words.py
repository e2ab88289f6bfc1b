"""Any text kept from copying long runs of its source, as a person rewrites it in their own words."""

from __future__ import annotations

import re

from flows.sim.people.stated_limits import NUMBERS as NUMBER_WORDS
from flows.sim.people.summaries import sentences

OWN_WORDS = re.compile(r"own words|\b(?:don't|do not|not|without|no|never)\s+cop(?:y|ying)\b|paraphras|rephras", re.I)
CONTRACTED = {"it's": "it is", "it is": "it's", "don't": "do not", "do not": "don't", "doesn't": "does not",
              "does not": "doesn't", "isn't": "is not", "is not": "isn't", "can't": "cannot", "cannot": "can't",
              "they've": "they have", "they have": "they've", "they're": "they are", "they are": "they're",
              "didn't": "did not", "did not": "didn't", "wasn't": "was not", "was not": "wasn't",
              "won't": "will not", "will not": "won't", "haven't": "have not", "have not": "haven't",
              "hasn't": "has not", "has not": "hasn't", "aren't": "are not", "are not": "aren't"}
NUMBERS = {w: n for w, n in NUMBER_WORDS.items() if 0 < int(n) <= 10}  # (one to ten, spelt the other way)
SWAPS = {**NUMBERS, **{v: k for k, v in NUMBERS.items()}, "says": "shows", "got": "received", "bought": "purchased",
         "get": "receive", "add": "include", "find": "locate", "told": "informed", "think": "believe",
         "wrong": "incorrect", "broken": "damaged", "charged": "billed", "buy": "purchase", "change": "update"}
PHRASES = frozenset(("for", "with", "in", "on", "at", "to", "from", "of", "and", "but", "by", "after", "before"))
FILLER = frozenset(("just", "really", "actually", "still", "very", "so", "even", "already", "now", "also"))


COPY_RUN = 5  # this many of the item's words in a row is a pasted run, not a person's answer


def uncopied(text: str, source: str, run: int = COPY_RUN) -> str:
    """``text`` with every run of ``run`` or more of ``source``'s words in a row broken, as a person rewrites it:
    a contraction or a number spelt the other way, a word put another way, a filler word dropped, else the run cut
    short."""
    theirs = " ".join(re.findall(r"[\w']+", source.lower()))
    for _ in range(12):
        mine = text.split()
        bare = [w.strip(".,;:!?\"'()").lower() for w in mine]
        at = next((k for k in range(len(mine) - run + 1) if f" {' '.join(bare[k:k + run])} " in f" {theirs} "), None)
        if at is None:
            return text
        span = range(at, at + run)
        pair = next((k for k in span if f"{bare[k]} {bare[k + 1] if k + 1 < len(bare) else ''}" in CONTRACTED), None)
        one = next((k for k in span if bare[k] in CONTRACTED or bare[k] in SWAPS), None)
        drop = next((k for k in span if k and bare[k] in FILLER), None)
        if one is not None:
            mine[one] = mine[one].replace(bare[one], CONTRACTED.get(bare[one]) or SWAPS[bare[one]], 1)
        elif pair is not None:
            mine[pair:pair + 2] = [CONTRACTED[f"{bare[pair]} {bare[pair + 1]}"] + mine[pair + 1][len(bare[pair + 1]):]]
        elif drop is not None:
            del mine[drop]
        elif "their" not in bare and (the := next((k for k in span if k and bare[k] == "the" and k + 1 < len(bare)
                           and bare[k + 1] not in ("same", "other", "first", "last", "next", "only")), None)):
            mine[the] = "their"  # (told of the customer, the things they name are theirs)
        else:  # the run's last phrase left out ("charged twice [for the same order]"), up to its clause's end
            cut = max((k for k in span if k > at + 1 and bare[k] in PHRASES), default=None)
            end = next((k for k in range(cut or 0, len(mine)) if re.search(r"[,;.!?]$", mine[k])), len(mine) - 1)
            mark = mine[end][len(mine[end].rstrip(",;.!?")):] or "."
            if cut is None or end + 1 - cut > len(mine) / 3:  # (a person keeps what the text says, run and all)
                return text
            mine = [*mine[:cut - 1], mine[cut - 1].rstrip(",;:") + mark, *mine[end + 1:]]
        text = " ".join(mine)
    return text


ECHO_SHARE = 0.6  # at this share of its words from one line of the page's prose, an answer reads as the page's own
ECHO_WORD = re.compile(r"[a-z][a-z'-]{3,}")


def echoes_page(text: str, page: str, item_texts: list[str]) -> bool:
    """Most of an answer's words come from one sentence of the page that is no item's text: a person who read the
    item writes about it, never a paraphrase of the instructions."""
    said = set(ECHO_WORD.findall(text.lower()))
    if len(said) < 3:
        return False
    for shown in item_texts:  # the page's own prose is what remains without the item's texts
        page = page.replace(shown, ". ")
    prose = sentences(page)
    return any(len(said & set(ECHO_WORD.findall(s.lower()))) >= ECHO_SHARE * len(said) for s in prose)
