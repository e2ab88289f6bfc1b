"""An answer framed by the kind of question asked, as a person who read the item writes it: a cause ("probably
because X"), a risk ("the X could go wrong"), what happens next ("<who> then ..."). The kind is read off the question's
words; the answer names the item's own people and things but says the rest in the worker's words, never a long
run of the item's text."""

from __future__ import annotations

import random
import re

from flows.sim.people.summaries import main_text, sentences, third_person

# (a cause the item shows: "why did you ..." asks the worker's reason instead)
CAUSE = re.compile(r"\b(?:cause[sd]?|caused by|reasons? (?:for|behind|why)|what led to|what (?:made|makes) "
                   r"(?:\w+ ){1,3}(?:do|act|behave|happen|start|stop)\b|explain why|why (?:is|does|did|has|might|"
                   r"would)\b(?! you\b))", re.I)
RISK = re.compile(r"\bgo(?:es)? wrong\b|\brisks?\b|\bdanger|\bhazard|\bworst (?:thing|case)|\bcould (?:fail|"
                  r"happen)\b|\bwhat (?:problems?|mistakes?) (?:could|might)\b", re.I)
NEXT = re.compile(r"\bhappens? next\b|\bwhat (?:will|would|might|could) happen\b|\bwhat happens after\b|"
                  r"\bcontinue the story\b|\bnext (?:event|scene|part|thing that happens)\b|\bpredict\b", re.I)
# a detail that tells when or after what something began: where a cause is looked for first
WHEN = re.compile(r"\b(?:since|after|ago|started|start(?:s|ing)?|began|begun|recently|suddenly|came after|"
                  r"around when|fortnight|last (?:week|month|year)|this (?:week|month))\b", re.I)
# a plan's weak point: what it leaves out or is unsure of
HEDGE = re.compile(r"\b(?:not sure|never|won't|no need|just|only|without|instead|don't|because it's|so it's not|"
                   r"lean|borrow)\b", re.I)
NEXTS = ("{Who} then looks closer at the {t} and finds something that should not be there.",
         "{Who} decides to find out the truth about the {t}, and it leads to someone from {their} past.",
         "Next, {who} follows a hunch about the {t} and learns that someone has been watching all along.",
         "{Who} then tells a friend about the {t}, but nobody believes {them} until it happens again.",
         "I think {who} goes back to the {t} that night and realises it was left there on purpose.",
         "{Who} tries to forget about the {t}, but the next morning it is back, and this time there is a note.")
CAUSE_LEADS = ("Probably because {d}.", "Most likely because {d}.", "I'd guess it is because {d}.",
               "My guess is it comes down to this: {d}.")
RISK_LEADS = ("{R}, since {d}.", "{R}, as {d}.", "I'd worry that {r}, since {d}.", "Biggest risk: {r}, as {d}.")
SMALL = frozenset(("the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "for", "with", "by", "from", "but",
                   "so", "when", "which", "that", "is", "are", "was", "were", "has", "have", "had", "be", "been",
                   "his", "her", "its", "their", "my", "our", "i", "we", "they", "he", "she", "it", "as", "if",
                   "anyone", "all", "both", "every", "each", "some", "any", "this", "these", "very", "just", "still",
                   "even", "not", "no"))
NOT_NAMES = SMALL | {"since", "for", "every", "when", "then", "now", "after", "before", "there", "here", "what",
                     "who", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
                     "february", "march", "april", "may", "june", "july", "august", "september", "october",
                     "november", "december", "nobody", "everyone", "someone", "inside", "today", "only", "each",
                     "one", "two", "three", "four", "five", "retired", "apprentice", "exactly", "by", "at", "on", "in"}
AFTER_PLACE = re.compile(r"\b(?:at|in|of|to|from|near|the|into|onto)\s+$", re.I)  # "end of Carlow Lane": a place
NOT_THING = frozenset(("who", "which", "would", "could", "should", "will", "went", "was", "were", "had", "has",
                       "there", "said", "swore", "did", "does", "is", "are", "can", "might", "must", "been"))
LOOSE = SMALL - {"this", "these", "it"} | {"last", "next", "whenever", "about", "up", "down"}
LEADING = re.compile(r"^(?:so|and|but|then|because|since|after|when|which|around when|(?:for|over) the (?:last|past) "
                     r"\w+ \w+|this \w+)\s+", re.I)
BOUNDARY = frozenset(("when", "whenever", "since", "at", "from", "with", "and", "under", "after", "before", "in",
                      "on", "for", "because", "while", "so", "but", "every", "to", "into", "onto", "until"))
SUBORDINATE = frozenset(("when", "whenever", "since", "after", "before", "because", "while", "until", "as"))
PLAIN_OPENERS = frozenset(("she", "he", "it", "they", "the", "this", "that", "there", "his", "her", "their", "its", "a",
                           "an", "we", "no", "our", "my", "one", "two", "three"))
COPY_RUN = 7  # the most of the item's words in a row an answer keeps (a person quotes a few words, not a line)


def frame_of(question: str) -> str:
    """The kind of answer a question asks for by the wording of its sentence that asks ("cause", "risk", "next"), else
    "" (a hint around it that names a risk is no question of one)."""
    ask = next((s for s in re.split(r"(?<=[.?!])\s+", question) if s.endswith("?")), question)
    for kind, pattern in (("next", NEXT), ("risk", RISK), ("cause", CAUSE)):
        if pattern.search(ask):
            return kind
    return ""


def framed_answer(question: str, texts: list[str], rng: random.Random, most: int | None = None) -> str:
    """The answer to a cause, risk or what-next question, from the item's details in the worker's words; "" for
    any other question or an item with no text."""
    kind, main = frame_of(question), main_text(texts)
    if not kind or len(main.split()) < 6:
        return ""
    told = {"cause": _cause, "risk": _risk, "next": _next}[kind](texts, rng)
    for extra in (r", and [^,]+\.$", r",? (?:since|as|because) [^,]*\.$"):  # a detail left out, the answer kept
        if most and len(told.split()) > most:
            told = re.sub(extra, ".", told)
    return _uncopied(told, main)


def _cause(texts: list[str], rng: random.Random) -> str:
    main = main_text(texts)
    clauses = _clauses(main)
    shown = next((c for c in clauses if WHEN.search(c)), clauses[0])  # the detail the cause is read from
    return rng.choice(CAUSE_LEADS).format(d=_detail(shown, main))


def _risk(texts: list[str], rng: random.Random) -> str:
    main = main_text(texts)
    clauses = _clauses(main)
    weak = next((c for c in reversed(clauses) if HEDGE.search(c)), "")
    doing = weak or next((c for c in clauses if re.search(r"\bI(?:'ll| will|'m going)\b", c)), clauses[0])
    risk = f"the {_thing(doing) or _thing(clauses[-1]) or 'work'} could go wrong"
    return rng.choice(RISK_LEADS).format(r=risk, R=risk[:1].upper() + risk[1:], d=_detail(doing, main))


def _next(texts: list[str], rng: random.Random) -> str:
    main = main_text(texts)
    who = _named(texts) or "the main character"
    thing = _thing(sentences(main)[-1]) or _thing(main) or "strange event"
    return rng.choice(NEXTS).format(who=who, Who=who[:1].upper() + who[1:], t=thing, their="their", them="them")


def _clauses(text: str) -> list[str]:
    found = [c.strip(" \"'") for c in re.split(r"[.;:!?]\s+|,\s+(?!which|who)|\s+(?:but|so|and then)\s+|\s?[()]\s?",
                                              text.strip())]
    return [c.rstrip(".!?") for c in found if len(c.split()) >= 3] or [text.rstrip(".!?")]


def _detail(clause: str, source: str, cue: str = "", most: int = 9) -> str:
    """A detail of the item told of its writer in a few words: its linking and time words left off; one that would
    repeat a long run of the item's words told from the phrase holding ``cue`` on ("the change came [after] the
    fireworks last week"), else cut where a phrase starts ("Rocky has been growling [when anyone touches ...]")."""
    said = _bare(third_person(clause)).split()
    if len(said) > most or _copied(" ".join(said), source):
        at = re.search(cue, " ".join(said), re.I) if cue else None
        starts = [k for k, w in enumerate(said) if k and w.lower() in SUBORDINATE and
                  (at is None or len(" ".join(said[:k])) < at.start())]
        if at and starts and len(said) - starts[-1] >= 3:
            said = _bare(" ".join(said[starts[-1]:])).split()
    if len(said) > most or _copied(" ".join(said), source):
        ends = [k for k in range(3, min(len(said), COPY_RUN + 1)) if said[k].lower() in BOUNDARY]
        said = said[:max(ends, default=COPY_RUN)]
    if said and said[0].lower().removesuffix("'s") in PLAIN_OPENERS:  # "She's", "It", "The": not a name
        said[0] = said[0].lower()
    return _phrase(" ".join(said), most)


def _bare(told: str) -> str:
    while (bare := LEADING.sub("", told)) != told:
        told = bare
    return told


def _copied(text: str, source: str) -> bool:
    """Whether ``text`` repeats more than :data:`COPY_RUN` of ``source``'s words in a row."""
    mine, theirs = (re.findall(r"[a-z0-9']+", t.lower()) for t in (text, source))
    runs = {tuple(theirs[k:k + COPY_RUN + 1]) for k in range(len(theirs) - COPY_RUN)}
    return any(tuple(mine[k:k + COPY_RUN + 1]) in runs for k in range(len(mine) - COPY_RUN))


def _phrase(clause: str, most: int = 9) -> str:
    """The head of a clause: up to ``most`` words, ending on a word that says something."""
    kept = clause.split()[:most]
    while len(kept) > 2 and kept[-1].lower().strip(",") in LOOSE:
        kept.pop()
    return " ".join(kept).rstrip(",")


def _named(texts: list[str]) -> str:
    """Who the item is about: the first run of capitalised words that is a name (not a place, not a plain word)."""
    main = main_text(texts)
    labels = " ".join(t for t in texts if t is not main)
    found = []
    for at, sentence in enumerate(sentences(main)):
        for m in re.finditer(r"\b[A-Z][a-z]+(?:'s)?(?: [A-Z][a-z]+(?:'s)?)*", sentence):
            said = [w.removesuffix("'s") for w in m[0].split()]
            run = [w for w in said if w.lower() not in NOT_NAMES]
            if run and not _not_a_name(run, m, sentence, main, labels):
                found.append((at, m.start(), " ".join(run)))
    return min(found)[2] if found else ""


def _not_a_name(run: list[str], m: re.Match[str], sentence: str, main: str, labels: str) -> bool:
    """A place ("the end of Carlow Lane"), or a sentence's first word that is a plain word ("Gutters at the back are
    full ..."): a word used again lower case, or a plural, unless a label names it."""
    if AFTER_PLACE.search(sentence[:m.start()]) and not m[0].endswith("'s"):  # ("from Mia's stall": Mia)
        return True
    first = m.start() == 0 and m[0].split()[0].removesuffix("'s") == run[0]
    return first and len(run) == 1 and run[0] not in labels and \
        bool(run[0].endswith("s") or re.search(rf"\b{run[0].lower()}\b", main[m.end():]))


def _thing(sentence: str) -> str:
    """The thing a sentence names most fully: words after a "the"/"a"/"his" ..., up to a small word or a verb."""
    found = []
    for m in re.finditer(r"\b(?:the|a|an|his|her|their|its|my|our)\s+((?:[a-z][\w'-]*\s*){1,4})", sentence, re.I):
        kept: list[str] = []
        for w in m[1].split():
            if w.lower() in SMALL - {"of"} | NOT_THING or w[:1].isupper() or (kept and re.search(r"(?:ed|ly|ing)$", w)):
                break
            kept.append(w)  # ("the best friend's wedding": the thing is the word after the one with 's)
        while kept and kept[-1].lower() in SMALL:
            kept.pop()
        if kept and len(kept[-1]) >= 3 and kept[-1].lower() != "own" and not kept[-1].endswith("'s"):
            found.append(" ".join(kept[:3]))
    return max(found, key=lambda t: len(t.split()), default="")


def _uncopied(text: str, source: str) -> str:
    """``text`` cut where it would repeat more than :data:`COPY_RUN` of the source's words in a row."""
    theirs = f" {' '.join(re.findall(r'[a-z0-9]+', source.lower()))} "
    mine = text.split()
    bare = [" ".join(re.findall(r"[a-z0-9]+", w.lower())) for w in mine]
    for k in range(len(mine) - COPY_RUN):
        if f" {' '.join(b for b in bare[k:k + COPY_RUN + 1] if b)} " in theirs:
            kept = _phrase(" ".join(mine[:k + COPY_RUN]), k + COPY_RUN)
            return kept.rstrip(",;:") + "."
    return text
