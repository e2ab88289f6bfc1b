"""A letter's decision and next step told plainly, as a person explains it to a friend who got the letter."""

from __future__ import annotations

import random
import re

from flows.sim.people.summaries import main_text, sentences

# a box that asks a text put plainly, not a slip in it corrected ("Rewrite ... in plain English", "explain it to a
# friend", "in everyday words")
PLAIN_ASK = re.compile(r"\bplain (?:english|language|words|terms)\b|\beveryday (?:words|language)\b|"
                       r"\bexplain it to a (?:friend|child|neighbour)\b|\bsimple (?:words|language)\b|\bfor a (?:child|"
                       r"\d+-year-old|friend|neighbour)\b|\bsimpler\b", re.I)
DECISION_ASK = re.compile(r"\b(?:decision|decided|decides|outcome|verdict|what happens next|next steps?)\b", re.I)
# what a letter decided: against, in part, for the reader, or not yet (more is asked of them first)
AGAINST = re.compile(r"\b(?:declin\w*|unable to|cannot|can't|not able to|will not|won't|refus\w*|reject\w*|"
                     r"(?:does not|doesn't|do not) cover|not covered|excluded)\b", re.I)
IN_PART = re.compile(r"\b(?:part(?:ly|ial\w*)?|\d+\s?%|deduct\w*|co-payment|only)\b", re.I)
FOR = re.compile(r"\b(?:approv\w*|accept\w*|(?:is|are|be) covered|will pay|have paid|has paid|reimburs\w*|"
                 r"settle\w*|pay (?:the|your|you|for))\b", re.I)
MONEY = re.compile(r"(?:[£$€]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:GBP|EUR|USD|pounds|euros|dollars))")
CLAIMED = re.compile(r"\b(?P<n>claim|application|request|appeal|complaint) (?:for|of|on|about) (?:the |your |a |an )?"
                     r"(?P<t>[A-Za-z'-]+(?: [A-Za-z'-]+)?)", re.I)
APPLIED = re.compile(r"\b(?:claim|application|request|appeal|complaint)\b", re.I)
ENDS = re.compile(r"\s(?:to|that|which|of|in|on|at|when|while|you|we|from|after|for|by)$", re.I)
ASKED = re.compile(r"\b(?:please\b|you (?:need|must|will need|should) (?:to )?)\s*(?P<v>[a-z]+)\s+"
                   r"(?P<o>(?:[\w'-]+ ){0,2}[\w'-]+)", re.I)
DATE = re.compile(r"\bby (?P<d>\d{1,2} [A-Z][a-z]+(?: \d{4})?|[A-Z][a-z]+ \d{1,2}(?:, \d{4})?)")
THEM = {"us": "them", "our": "their", "we": "they"}
SMALL = frozenset(("the", "a", "an", "and", "or", "to", "of", "for", "by", "in", "on", "with", "your", "this", "that"))
VERDICTS = {"against": ("Bad news: they've refused {t}.", "They said no to {t}, so it won't go ahead."),
            "part": ("They'll only accept part of {t}{m}.", "Only part of {t} was approved{m}."),
            "for": ("Good news: they've approved {t}{m}.", "They've accepted {t}{m}."),
            "later": ("No decision on {t} yet: they need more from you first.",
                      "They haven't decided about {t} yet and want more from you.")}


def asks_plainly(question: str) -> bool:
    """A box that asks what a text decided, told in plain words (not a sentence of it rewritten)."""
    return bool(PLAIN_ASK.search(question) and DECISION_ASK.search(question))


def _verdict(text: str) -> str:
    if AGAINST.search(text) and not FOR.search(text):
        return "against"
    if FOR.search(text):
        return "part" if IN_PART.search(text) or AGAINST.search(text) else "for"
    return "later"


def _step(text: str) -> str:
    """What the reader is to do next, put plainly, with the date it is due by; "" where the text asks nothing."""
    asked = ASKED.search(text)
    if not asked:
        return "You don't need to do anything else." if re.search(r"no (?:further )?action", text, re.I) else ""
    said = re.split(r"\s(?:by|before|within|so|to|and)\b", asked["o"])[0].split()
    words = [THEM.get(w.lower(), w) for w in said][:3]
    words = words[:-1] if len(words) > 1 and words[-1].lower() in SMALL else words
    due = f", and the deadline is {d['d']}" if (d := DATE.search(text[asked.start():])) else ""
    return f"You have to {asked['v'].lower()} {' '.join(words) or 'what they ask'}{due}.".replace("  ", " ")


def plain_retelling(texts: list[str], rng: random.Random, least: int, most: int | None) -> str:
    """The letter's decision, then its next step, in a person's plain words within ``most`` words; "" where the
    text decides nothing and asks nothing."""
    text = main_text(texts)
    if not (FOR.search(text) or AGAINST.search(text) or ASKED.search(text)):
        return ""
    named = ENDS.sub("", c["t"].lower()) if (c := CLAIMED.search(text)) else ""
    noun = (c or APPLIED.search(text) or ["request"])[0].split()[0].lower()
    thing = f"the {named} {noun}" if named and named.split()[-1] not in SMALL else f"the {noun}"
    money = MONEY.search(text) if re.search(r"\bpa(?:y|id)\b", text) else None
    paid = f" and they'll pay {money[0]}" if money else ""
    told = rng.choice(VERDICTS[_verdict(text)]).format(t=thing, m=paid)
    step = _step(" ".join(sentences(text)))
    told = f"{told} {step}".strip()
    if len(told.split()) < least or not (named or step):  # told of this letter: the thing of the reader's it names
        yours = [m[1] for m in re.finditer(r"\byour ([a-z][a-z'-]{3,}(?: [a-z][a-z'-]{3,})?)", text)
                 if m[1].split()[0] not in ("claim", "policy", "account", "excess", "cover", "plan")]
        told += f" It is about your {yours[0]}." if yours else " That is the main thing the letter says."
    words = told.split()
    return " ".join(words[:most]).rstrip(",;:") + "." if most and len(words) > most else told
