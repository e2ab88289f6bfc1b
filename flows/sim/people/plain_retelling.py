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


# a message's codes and jargon, which a plain rewrite leaves out: a protocol's name and number, "code ..." and
# "Ref: ..." tails, bracketed numbers, letters with digits, hex and dotted numbers, acronyms, slashed type names
CODE = re.compile(r"\b[A-Z]{2,}\s+\d{2,}\b|\(?\b(?i:(?:error )?(?:code|ref|errno))\b:?\s*\S+\)?|\([^)]*\d[^)]*\)|"
                  r"\b0x[0-9a-fA-F]+\b|\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]+(?:\.[\w-]+)*|\B-\d+\b|"
                  r"\b\d+(?:\.\d+){2,}\b|\b(?!(?:PDF|USB|PIN|ATM|SMS|GPS|DVD|UK|US|EU|TV|PC|ID|OK)\b)"
                  r"(?=[A-Za-z]{3,}\b)[A-Za-z]*[A-Z][a-z]*[A-Z][A-Za-z]*\b|\b\w+/[\w.-]+\b")
# everyday words for the computing terms a message may use
JARGON = ((r"unhandled exception", "the program crashed"), (r"\W*access violation[^.]*", ""),
          (r"internal server error", "a fault on their side"), (r"authentication failure", "signing in did not work"),
          (r"\bauthentication\b", "sign-in"), (r"\bdecrypted\b", "opened"), (r"\bencrypted\b", "locked"),
          (r"\boperation not permitted\b", "you are not allowed to do this"),
          (r"\b(?:your |the )?administrator\b", "whoever runs your account"), (r"\bMIME type\b", "file type"),
          (r"\bserver\b", "service"), (r"\bexceeds\b", "is over"))
HEADLINE = re.compile(r"^(?P<n>[A-Z][a-z]+(?: [a-z]+)?)\s+(?P<v>error|failed|rejected|declined|expired|reached|"
                      r"offline|unavailable|disabled)\b", re.I)
SAID = {"error": "something went wrong with the {n}", "failed": "the {n} did not work",
        "expired": "the {n} has expired", "reached": "the {n} has been reached", "disabled": "the {n} is turned off",
        "rejected": "the {n} was rejected", "declined": "the {n} was declined"}
DO = re.compile(r"^(?:please\s+)?(?:check|close|try|contact|make sure|sign|save|enter|remove|open|wait|connect|"
                r"add|choose|restart|return|go|tap|click|verify|update|use|call|ask|select|install|turn|switch|log)\b",
                re.I)
TROUBLE = re.compile(r"error|fail|wrong|invalid|can't|cannot|couldn't|\bnot\b|\bno longer\b|unable|denied|"
                     r"declined|rejected|expired|offline|unavailable|limit|locked|warning|disabled|crash|exception|"
                     r"outside|too \w+", re.I)
GENERIC = frozenset(("something", "went", "wrong", "an", "error", "occurred", "has", "oops", "sorry", "unknown",
                     "there", "was", "a", "problem", "it", "happened"))
WHERE = re.compile(r"^(?:shown|seen|appears?|displayed|screen|where|location|page|app|context|source)\b[^:]{0,20}:\s",
                   re.I)
NEXT = ("Try again later, and ask for help if it keeps happening.", "Wait a bit and try again, or ask for help.",
        "Give it another go later; if it keeps happening, ask for help.")


def _plain(sentence: str) -> str:
    for term, plain in JARGON:
        sentence = re.sub(term, plain, sentence, flags=re.I)
    cut = re.sub(r"(['\"])\s*\1|\s+(?=[.,;:])", "", CODE.sub(" ", sentence))
    cut = re.sub(r"\s+(?:at|in|for|on|to|from|by|with|of)$", "", re.sub(r"\s{2,}", " ", cut).strip(" :;,.-"))
    if len(cut.split()) < min(3, len(sentence.split())) and not HEADLINE.match(cut):  # little but codes left
        return ""
    if m := HEADLINE.match(cut):  # "Export error", "Upload rejected: ..." as a person says it
        thing, verb = m["n"].lower(), m["v"].lower()
        cut = SAID.get(verb, "the {n} is {v}").format(n=thing, v=verb) + cut[m.end():].split(":")[0]
    return cut[:1].upper() + cut[1:]


def plain_message(texts: list[str], rng: random.Random, most: int | None) -> str:
    """A short message put in everyday words: what happened without its codes and jargon, then what to do (the
    message's own step, else a person's usual one); where it shows, where it names nothing else."""
    where = [t.split(":", 1)[1].split(",")[0].strip() for t in texts if WHERE.match(t)]
    message = next((t for t in texts if not WHERE.match(t)), "")
    if not message or len(message.split()) > 40:  # a passage, not a message: told in short instead
        return ""
    parts = [p for s in sentences(message) if (p := _plain(s))]
    step = next((p for p in parts[1:] or parts if DO.match(p)), "")
    happened = next((p for p in parts if p != step), "")
    place = (where[0] if where[0][1:2].isupper() else where[0][:1].lower() + where[0][1:]) if where else ""
    if place and not set(re.findall(r"[a-z]+", happened.lower())) - GENERIC:  # names nothing: where it happened
        happened = f"Something went wrong in the {place}"
    happened = happened.replace("The program", f"The {place}" if place else "The program")
    if not happened:
        return ""
    if not step and TROUBLE.search(message):
        step = rng.choice(NEXT)
    step = re.sub(r"^please\s+", "", step, flags=re.I)
    told = " ".join(f"{p.rstrip('.!')}." for p in (happened, step[:1].upper() + step[1:]) if p)
    words = told.split()
    return " ".join(words[:most]).rstrip(",;:.") + "." if most and len(words) > most else told
