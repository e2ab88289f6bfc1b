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

from flows.sim.people.crowd_model import normalise

SUMMARY = re.compile(r"summar|tl;?dr|in (one|a) (short )?sentence|in your own words|main point|gist|shorten", re.I)
WORD = re.compile(r"\b(?:word|term|phrase|expression)\s*[:\-]?\s*[\"'“‘«]?(?P<w>[A-Za-z][\w'-]*(?: [A-Za-z][\w'-]*)?)"
                  r"[\"'”’»]?", re.I)
REMARK = re.compile(r"comment|remark|\bnotes?\b|anything else|observations?|feedback", re.I)
NOT_THE_WORD = frozenset(("is", "in", "the", "a", "an", "of", "and", "or", "to", "this", "that", "used", "below",
                          "above", "here", "means", "mean", "for", "it"))
STOP = frozenset(("the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "for", "with", "that", "this", "is",
                  "are", "was", "were", "be", "been", "it", "its", "as", "by", "from", "we", "our", "their", "which"))
WORD_COMMENTS = ("\"{w}\" in \"{s}\" is used in its everyday sense.", "\"{s}\": {w} fits here, I would keep it.",
                 "{W} reads naturally in \"{s}\".", "In \"{s}\", {w} is a little informal but clear.",
                 "\"{s}\" uses {w} the way most readers expect.", "{W} could be simpler in \"{s}\", but it is right.")
BARE_COMMENTS = ("Here \"{w}\" is used in its everyday sense.", "The meaning of {w} is clear from the sentence.",
                 "{W} reads naturally in this context.")
# A remark names a run of the item's own words (its own, so two items rarely get the same remark;
# the caption task's shared_template flags one text on two items), never the whole text.
REMARKS = ("The bit about \"{t}\" decided it for me.", "Clear enough, \"{t}\" made the answer obvious.",
           "I had to read \"{t}\" twice.", "\"{t}\" was the key part.", "Mostly about \"{t}\", easy to judge.",
           "A bit long, but \"{t}\" settled it.")
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


def _overlap(text: str, others: list[str]) -> int:
    mine = {w.lower() for w in _content_words(text)}
    return len(mine & {w.lower() for o in others if o != text for w in _content_words(o)})


def summary(texts: list[str], rng: random.Random, limit: int | None = None) -> str:
    """A summary of the item's main text (the one sharing most words with the item's other texts, a
    query's passage; else the longest): its first sentence's main clause cut to between a third and
    three fifths of its words, with an opening of the worker's own; shorter than the text, never equal."""
    long = [t for t in texts if len(t.split()) >= 8] or texts
    source = max(long, key=lambda t: (_overlap(t, texts), len(t))) if long else ""
    first = re.split(r"(?<=[.!?])\s+", source.strip())[0]
    clause = re.split(r",|;| which | because | while | although ", first)[0].strip().rstrip(".!?")
    words = clause.split()
    keep = max(3, min(len(words), round(len(source.split()) * rng.uniform(0.35, 0.6)), 14))
    if keep < len(words):  # cut where a clause starts, not in the middle of a phrase
        keep = next((j for j in range(keep, 2, -1) if words[j].lower().strip(",") in BREAK_WORDS), keep)
        while keep > 3 and words[keep - 1].lower().strip(",") in BREAK_WORDS:
            keep -= 1
    body = " ".join(words[:keep])
    opener = rng.choice(OPENERS)
    plain = bool(words) and words[0].lower() in STOP  # "The ...", "A ...": not a name
    text = f"{opener}{body[:1].lower() + body[1:] if opener and plain else body}".strip()
    text = text[:1].upper() + text[1:] + "."
    if limit is not None and len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0].rstrip(",;") + "."
    if normalise(text) == normalise(source) or len(text) >= len(source):
        kept = words[: max(1, len(words) // 2)]
        text = "About " + " ".join(kept).lower() + "." if kept else "Short text."
    return text


def word_comment(word: str, texts: list[str], rng: random.Random) -> str:
    """A comment on ``word`` that uses the word, and quotes the words around it in the item's text."""
    around = ""
    for text in texts:
        words = text.rstrip(".!?").split()
        at = next((k for k, w in enumerate(words) if w.strip(".,;:!?\"'").lower() == word.lower()), None)
        if at is not None:
            around = " ".join(words[max(0, at - 1):at + 3]).strip(".,;:")
            break
    forms = WORD_COMMENTS if around else BARE_COMMENTS
    return rng.choice(forms).format(w=word, W=word[:1].upper() + word[1:], s=around)


def remark(texts: list[str], rng: random.Random) -> str:
    """A remark on the item quoting two or three of its own words in a row: never the item's text back."""
    runs = [w for t in texts for w in [t.rstrip(".!?").split()] if len(w) >= 4]
    if not runs:
        return rng.choice(("No problems with this one.", "Nothing to add.", "Fine as it is.", "Easy to answer."))
    words = rng.choice(runs)
    starts = [k for k in range(len(words) - 2) if words[k].lower() not in STOP] or [0]
    at = rng.choice(starts)
    span = " ".join(words[at:at + rng.choice((2, 3))]).strip(".,;:").lower()
    return rng.choice(REMARKS).format(t=span)
