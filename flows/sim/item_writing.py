"""Free text of the kind a page asks for (issue 58, point 2): a summary shortens and rephrases the
item's text, never copies it whole; a comment on a word uses the word; an optional comment box
gets a remark about the item, never the item's own text back.

What a box asks is read from its question (label, legend, the text before it: flows/core/pages/
asks_worker.py) and its name: "summar"/"tl;dr"/"in a sentence" a summary, "the word X"/"the term X"
a comment on X, "comment"/"note"/"remark" on an optional box a remark. The phrasings are small lists
of our own (a modelling choice, not a measured population of comments).
"""

from __future__ import annotations

import random
import re

from flows.sim.crowd_model import normalise

SUMMARY = re.compile(r"summar|tl;?dr|in (one|a) (short )?sentence|in your own words|main point|gist|shorten", re.I)
WORD = re.compile(r"\b(?:word|term|phrase|expression)\s*[:\-]?\s*[\"'“‘«]?(?P<w>[A-Za-z][\w'-]*(?: [A-Za-z][\w'-]*)?)"
                  r"[\"'”’»]?", re.I)
REMARK = re.compile(r"comment|remark|\bnotes?\b|anything else|observations?|feedback", re.I)
NOT_THE_WORD = frozenset(("is", "in", "the", "a", "an", "of", "and", "or", "to", "this", "that", "used", "below",
                          "above", "here", "means", "mean", "for", "it"))
STOP = frozenset(("the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "for", "with", "that", "this", "is",
                  "are", "was", "were", "be", "been", "it", "its", "as", "by", "from", "we", "our", "their", "which"))
WORD_COMMENTS = ("Here \"{w}\" is used in its everyday sense.", "\"{w}\" fits the sentence; I would keep it.",
                 "The word {w} reads naturally in this context.", "{W} is a little informal here, but clear.",
                 "I think {w} means what most readers expect in this sentence.",
                 "\"{w}\" could be replaced by a simpler word, but it is correct.",
                 "The meaning of {w} is clear from the rest of the sentence.")
REMARKS = ("The part about {t} was easy to judge.", "Clear enough; {t} made the answer obvious.",
           "A bit long, but the bit about {t} decided it for me.", "Nothing unusual, apart from {t}.",
           "I had to read the part about {t} twice.", "Straightforward item.", "No problems with this one.",
           "Easy to answer.", "Slightly ambiguous, I went with my first reading.")
OPENERS = ("In short, ", "Basically, ", "", "", "The text says ", "Summary: ")
# a summary's cut falls before one of these (a clause's start), not in the middle of a phrase
BREAK_WORDS = frozenset(("after", "before", "when", "as", "because", "while", "which", "that", "with", "for", "in",
                         "on", "at", "by", "from", "and", "but", "so", "if", "than", "then", "to", "of", "the", "a",
                         "an", "are", "is", "was", "were", "its", "their"))


def asked(question: str, name: str) -> str:
    """What a text box asks for: "summary", "word" (a comment on a word), "remark", or ""."""
    said = f"{question} {name.replace('_', ' ')}"
    if SUMMARY.search(said):
        return "summary"
    if the_word(question):
        return "word"
    if REMARK.search(said):
        return "remark"
    return ""


def the_word(question: str) -> str:
    """The word a question asks about ("Comment on the word 'bank'" -> bank), or ""."""
    for match in WORD.finditer(question):
        words = [w for w in match["w"].split() if w.lower() not in NOT_THE_WORD]
        if words:
            return words[0]
    return ""


def _content_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z][a-z'-]{3,}", text) if w.lower() not in STOP]


def summary(texts: list[str], rng: random.Random, limit: int | None = None) -> str:
    """A summary of the item's longest text: its first sentence's main clause cut to about half its
    words or fewer, with an opening of the worker's own; shorter than the text and never equal to it."""
    source = max(texts, key=len) if texts else ""
    first = re.split(r"(?<=[.!?])\s+", source.strip())[0]
    clause = re.split(r",|;| which | because | while | although ", first)[0].strip().rstrip(".!?")
    words = clause.split()
    keep = max(3, min(len(words), len(source.split()) // 2, 14))
    if keep < len(words):  # cut where a clause starts, not in the middle of a phrase
        keep = next((j for j in range(keep, 2, -1) if words[j].lower().strip(",") in BREAK_WORDS), keep)
        while keep > 3 and words[keep - 1].lower().strip(",") in BREAK_WORDS:
            keep -= 1
    body = " ".join(words[:keep])
    opener = rng.choice(OPENERS)
    acronym = len(words[0]) > 1 and words[0].isupper() if words else False
    text = f"{opener}{body[:1].lower() + body[1:] if opener and not acronym else body}".strip()
    text = text[:1].upper() + text[1:] + "."
    if limit is not None and len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0].rstrip(",;") + "."
    if normalise(text) == normalise(source) or len(text) >= len(source):
        kept = words[: max(1, len(words) // 2)]
        text = "About " + " ".join(kept).lower() + "." if kept else "Short text."
    return text


def word_comment(word: str, rng: random.Random) -> str:
    """A comment on ``word`` that uses the word."""
    return rng.choice(WORD_COMMENTS).format(w=word, W=word[:1].upper() + word[1:])


def remark(texts: list[str], rng: random.Random) -> str:
    """A remark on the item, naming one of its content words at most: never the item's text back."""
    words = _content_words(" ".join(texts))
    line = rng.choice(REMARKS)
    if "{t}" in line and not words:
        line = rng.choice([r for r in REMARKS if "{t}" not in r])
    return line.format(t=rng.choice(words).lower() if words else "")
