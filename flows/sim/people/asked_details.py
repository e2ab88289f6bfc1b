"""The answer to the item's own question, and a detail its description leaves out."""

from __future__ import annotations

import difflib
import itertools
import random
import re

from flows.sim.people.asked_about import answer_about
from flows.sim.people.corrections import corrected
from flows.sim.people.item_parts import missing_in
from flows.sim.people.summaries import BREAKS, LOOSE_ENDS, main_text, reword, third_person
from flows.sim.people.summaries import STOP as SUMMARY_STOP

KINDS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"^how many|^how much", re.I), ("2", "3", "4", "6", "8", "10", "12", "about 20")),
    (re.compile(r"colou?r", re.I), ("green", "blue", "red", "yellow", "purple", "orange", "brown")),
    (re.compile(r"planet", re.I), ("Mercury", "Venus", "Mars", "Jupiter", "Saturn")),
    (re.compile(r"capital|city|town", re.I), ("Paris", "Madrid", "Rome", "Berlin", "Lisbon", "Vienna")),
    (re.compile(r"^(what|which) (year|century)|^when\b", re.I), ("1969", "1989", "in the 1800s", "2001", "1914")),
    (re.compile(r"^who\b", re.I), ("Marie Curie", "Isaac Newton", "Ada Lovelace", "Charles Darwin")),
    (re.compile(r"^where\b", re.I), ("In Europe", "In Africa", "Near the coast", "In the mountains")),
    (re.compile(r"^(is|are|was|were|do|does|did|can|could|will|would|should|has|have)\b", re.I), ("Yes", "No")),
)
# A missing detail said in several ways, so one honest person's notes do not repeat one sentence.
ASPECTS = ("the colour of the {n}", "how big the {n} is", "where the {n} is in the frame", "how far away the {n} is",
           "what is next to the {n}", "what the {n} is made of", "whether the {n} is moving", "the shape of the {n}",
           "what the {n} is doing", "how old the {n} looks", "which way the {n} faces", "what is behind the {n}")
SETTING = ("the weather", "the time of day", "what is in the background", "whether it is indoors or outside",
           "any text or signs in the picture", "the light, bright sun or shade", "how crowded the place is")
SAYINGS = ("It does not say {a}.", "{A}.", "Nothing about {a}.", "It leaves out {a}.", "I would add {a}.",
           "Missing: {a}.", "No mention of {a}.", "It should say {a}.", "{A} would help.", "It never tells {a}.")
NOT_THINGS = frozenset(("a", "an", "the", "on", "in", "at", "of", "and", "with", "by", "two", "three", "some",
                        "playing", "parked", "sitting", "standing", "is", "are", "current", "alt", "text", "image",
                        "photo", "picture", "shows", "showing", "this", "that", "from", "near", "under", "over",
                        "red", "blue", "green", "yellow", "black", "white", "grey", "gray", "brown", "orange", "pink",
                        "purple", "old", "new", "big", "small", "large", "little", "young", "happy", "empty", "beside",
                        "behind", "next", "into", "onto", "above", "below", "between", "inside", "outside", "its",
                        "their", "there", "here", "very", "while", "where", "what", "which", "who", "for"))


def item_question(texts: list[str]) -> str:
    """The item's own question (its last text ending in "?"), or ""."""
    return next((t for t in reversed(texts) if t.rstrip().endswith("?")), "")


def question_answer(question: str, rng: random.Random) -> str:
    """A short answer of the kind ``question`` asks; "" when its kind is not known (the box gets other text)."""
    asks = question.strip()
    for pattern, values in KINDS:
        if pattern.search(asks):
            return rng.choice(values)
    return ""


def missing_detail(texts: list[str], rng: random.Random, page: str = "") -> str:
    """The part a structured item lacks, else a detail its description does not give (of a thing it names)."""
    if part := missing_in(texts, rng, page):
        return part
    words = [w.strip(".,;:!?\"'()").lower() for t in texts for w in t.split(":")[-1].split()]
    things = [w for w in words if len(w) >= 3 and w not in NOT_THINGS and w.isalpha()]
    aspects = [rng.choice(SETTING) if not things or rng.random() < 0.3 else
               rng.choice(ASPECTS).format(n=rng.choice(things)) for _ in range(1 + (rng.random() < 0.3))]
    aspect = " and ".join(dict.fromkeys(aspects))
    return rng.choice(SAYINGS).format(a=aspect, A=aspect[0].upper() + aspect[1:])


# a question of several asked parts ("what is wrong, and what should the shop do?"): one sentence per part
PARTS = re.compile(r"(?:^|[,;?.]\s*(?:and\s+)?|\band\s+)(?P<p>(?:what|where|how|when|which)\b[^,;?.]*)", re.I)
TO_DO = re.compile(r"\b(?:should|could|would|can|must|ought to) (?P<s>(?:the |a |an |its |their )?[\w'-]+|they|"
                   r"he|she|we|you) (?:do|change|improve|fix)|\bhow (?:to|can|could|should|would)\b", re.I)
WRONG = re.compile(r"\b(?:broke|broken|late|rude|missing|cracked|crushed|twice|not|never|no|wrong|damaged|failed|"
                   r"still|instead|lost|cold|dirty|slow|stopped|leak\w*|ignored)\b", re.I)
NOT_NAMES = SUMMARY_STOP | BREAKS | {"not", "no", "now", "still", "just", "keeps", "does", "did", "every", "each",
                                     "there", "here", "someone", "somebody", "nobody", "everyone", "saw", "one", "got",
                                     "had", "several", "many", "few", "both", "only", "i", "how", "what", "why",
                                     "when", "where", "who", "can", "could", "would", "please", "hi", "hello", "dear"}
SMALL = NOT_NAMES | LOOSE_ENDS  # never the end of a quoted phrase
# what a person would have someone do: repair a thing that does not work, else look at it (the fallback)
REMEDIES = ((r"broke|crack|crush|damag|faulty|stopped|won't|doesn't|not work|gone out|dead|cold|missing|wrong|lost|"
             r"leak|drip|stick", "repair or replace {t}"),
            (r"", "send someone to inspect {t} and fix it"))
WHEN = ("first", "straight away", "today", "as soon as possible", "right away")
THEN = ("then check that the problem has gone", "then make sure it is safe again", "then report back once it is done",
        "then check it again tomorrow")
# a report with no trouble in it: nothing to do, said as a person says it
FINE = re.compile(r"\b(?:fine|great|good|lovely|no (?:problems?|issues?)|clear|nothing wrong|all good|spotless|"
                  r"correct(?:ly)?|properly|in order|clean|tidy|safe)\b", re.I)
DOES = re.compile(r"(?<![s'])s$|ed$|^(?:broke|went|came|fell|got)$")  # "the zip broke", "the box arrived": a verb
# the thing at fault: up to two words after the first "the"/"my" ... of the trouble's clause, none a small word
THING = re.compile(r"\b(?:the|my|our|your|his|her|their|its)\s+(?P<t>[A-Za-z][\w'-]*(?: [A-Za-z][\w'-]*){0,2})", re.I)
# a place the item's text names: "at the Riverside Library", "in the leisure centre car park", "at Sandy Bay"
PLACE = re.compile(r"\b(?:at|in|on) (?:the )?(?:(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|January|February|March|"
                   r"April|May|June|July|August|September|October|November|December)[A-Z][\w']+ ?)+|"
                   r"\b(?:at|in) the (?:[\w']+ ){0,4}(?:room|hall|park|centre|center|library|pub|school|church|club|"
                   r"square|market|beach|bay|office|shop|station|garden)s?\b(?: of the (?:[A-Z][\w']+ )*[\w']+)?")
TIMES = ("at weekends", "most evenings", "a few times a week", "every morning")
PROBLEM = re.compile(r"wrong|problem|unhappy|upset|annoy|complain|angry|disappoint|happened|issue|matter", re.I)


def asked_parts(question: str) -> list[str]:
    """The asked parts of a question of two or more ("What went wrong, and how should they fix it?"), or []."""
    parts = [m["p"].strip() for m in PARTS.finditer(question)]
    return parts if len(parts) >= 2 else []


def open_answer(question: str, texts: list[str], rng: random.Random) -> str:
    """A sentence for each asked part of ``question``, from what the item names, else its text reworded."""
    item = main_text(texts)
    clauses = [c.strip() for c in re.split(r"[,;.!?]\s*|\s(?:and|but|so)\s", item) if len(c.split()) >= 3]
    wrong = [c for c in clauses if WRONG.search(c)] or clauses or ["it did not go as hoped"]
    out, when = [], rng.choice(TIMES)
    for k, part in enumerate(asked_parts(question)):
        told = wrong if PROBLEM.search(part) else clauses or wrong
        said = third_person(reword(told[k % len(told)], rng, 1.0))
        if m := TO_DO.search(part):
            who = (m["s"] or "they").lower() if m["s"] and m["s"].lower() not in ("i", "you") else "they"
            out.append(f"{who[:1].upper()}{who[1:]} should {remedy(wrong, thing(wrong))}.")
        elif (place := PLACE.search(item)) and re.match(r"where", part, re.I):  # where the item says it is
            out.append(f"{rng.choice(('It takes place', 'It will be', 'That is'))} {place[0].rstrip('.')}.")
        elif re.match(r"where|when|how (?:often|much|long)", part, re.I):
            out.append("I would use it at home." if part[:5].lower() == "where" else f"Probably {when}.")
        elif PROBLEM.search(part):
            lead = rng.choice(("The problem is that", "Mainly that", "What went wrong is that"))
            out.append(f"{lead} {said[:1].lower()}{said[1:]}.")
        else:  # what the item says of this part
            out.append(answer_about(part, texts, rng, 12))
    return " ".join(out)


def thing(clauses: list[str]) -> str:
    """The thing at fault in a text's clauses: an opening name, else words after "the"/"my"; else "it"."""
    for c in clauses:
        lead = list(itertools.takewhile(lambda w: w.isalpha() and w.lower() not in NOT_NAMES and not
                                        WRONG.search(w) and not w.endswith("ly"), c.split()))[:2]
        if lead and (lead[0][:1].isupper() or not DOES.search(lead[0])):  # (a clause's capital: a name, "Wasps")
            return f"the {' '.join(lead[:1] if lead[0].endswith('s') else lead).lower()}"
        for m in THING.finditer(c):
            said = list(itertools.takewhile(lambda w: w.lower() not in NOT_NAMES, m["t"].split()))
            kept = said[:1] + list(itertools.takewhile(lambda w: not DOES.search(w), said[1:]))
            if kept:
                return f"the {' '.join(kept[:2])}"
    return "it"


def place_of(clause: str, what: str) -> str:
    """Where the clause says its trouble is, unless in ``what``: " on the steps", " near the farm", or ""."""
    m = re.search(r"\b(?:on|in|at|near|by|across|under|above|behind|outside|inside|from) (?:the|my|our) [\w'-]+"
                  r"(?: [a-z][\w'-]+)?", clause)
    kept = m[0].split() if m else []
    while kept and (kept[-1].lower() in SMALL or (DOES.search(kept[-1]) and len(kept) > 3)):
        kept.pop()
    return f" {' '.join(kept)}" if len(kept) >= 3 and kept[-1].lower() not in what.lower() else ""


def remedy(clauses: list[str], what: str) -> str:
    """What to do about the trouble ``clauses`` tell of, as an instruction about ``what``."""
    return next(r for p, r in REMEDIES if re.search(p, " ".join(clauses), re.I)).format(t=what)


def action(texts: list[str], rng: random.Random) -> str:
    """One instruction about the item's trouble in one sentence; nothing where the item tells of no trouble."""
    # the report with the trouble, not its lead-in ("... left this note:")
    told = sorted(texts, key=lambda t: (not troubled(t), t.rstrip().endswith(":"), -len(t)))[:1] or [""]
    clauses = [c.strip() for c in re.split(r"[,;.!?]\s*|\s(?:and|but|so|although)\s", told[0]) if len(c.split()) >= 2]
    trouble = [c for c in clauses if troubled(c)]
    if not clauses:  # no report to act on (its text unseen): no instruction of ours stands in for one
        return ""
    if not trouble and 2 * sum(bool(FINE.search(c)) for c in clauses) > len(clauses):
        fine = rng.choice([c for c in clauses if FINE.search(c)])
        return f"No action needed, {third_person(fine[:1].lower() + fine[1:]).rstrip('.')}."
    first = (trouble or clauses)[:1]  # the verb and its object from one clause
    what = thing(first + clauses)
    todo = remedy(first, what + place_of(" ".join(first), what))
    return f"{todo[:1].upper()}{todo[1:]} {rng.choice(WHEN)}, {rng.choice(THEN)}."


def troubled(text: str) -> bool:
    """Does ``text`` tell of something wrong (a word of trouble, or one a remedy answers)?"""
    return bool(WRONG.search(text)) or fixable(text)


def fixable(text: str) -> bool:
    """Does ``text`` tell of trouble a remedy of ours answers (not only "instead" or "not")?"""
    return any(p and re.search(p, text, re.I) for p, _r in REMEDIES)


def fault(texts: list[str], rng: random.Random) -> str:
    """What is wrong with the item's shorter text against its longer one (contradicts, adds, omits); else its slip."""
    if len(pair := sorted(texts, key=len)[-2:]) < 2 or len(pair[0].split()) < 3:  # (a label is no second text)
        tag, x, y = _contrast(main_text(texts), corrected(main_text(texts), rng))
        return rng.choice((f"\"{x}\" should be \"{y}\".", f"It says \"{x}\" where it should say \"{y}\".")) \
            if tag == "replace" else ""
    tag, x, y = _contrast(*pair)
    src = rng.choice(("original", "text", "source"))
    if tag == "replace":
        return rng.choice((f"It says \"{x}\", but the {src} says \"{y}\".", f"\"{x}\" is wrong: the {src} says "
                           f"\"{y}\".", f"It gives \"{x}\" instead of \"{y}\", as the {src} has it."))
    if tag == "delete":
        return f"It says \"{x}\", which the {src} never mentions."
    return f"It leaves out \"{y}\"." if y else missing_detail(texts, rng)


def _contrast(checked_text: str, source_text: str) -> tuple[str, str, str]:
    """Where ``checked_text`` contradicts, adds to or omits from ``source_text``: the kind, its words, the source's."""
    checked, source = (re.findall(r"[\w'%-]+[,.;:!?]?", t) for t in (checked_text, source_text))
    low = [[w.lower().rstrip(",.;:!?") for w in ws] for ws in (checked, source)]
    runs = [(tag, checked[i:j], source[k:m]) for tag, i, j, k, m in
            difflib.SequenceMatcher(None, low[0], low[1], autojunk=False).get_opcodes() if tag != "equal"]
    order = {"replace": 2, "delete": 1, "insert": 0}  # a claim the source contradicts before one it lacks
    tag, said, meant = max(runs, key=lambda r: (bool(_differs(r[1], r[2]) or _differs(r[2], r[1])), order[r[0]],
                                                _differs(r[1], r[2]) + _differs(r[2], r[1])), default=("", [], []))
    return tag, " ".join(_trimmed(said)), " ".join(_trimmed(meant))


def _differs(words: list[str], others: list[str]) -> int:
    """How many of ``words`` say something ``others`` do not (a word of substance, not a form of one of theirs)."""
    stems = {o.lower()[:4] for o in others}
    return sum((len(w) > 2 or w.isdigit()) and w.lower() not in NOT_THINGS and w.lower()[:4] not in stems
               for w in words)


def _trimmed(words: list[str], most: int = 5) -> list[str]:
    """Up to ``most`` of ``words`` within a clause, no small word at either end."""
    kept = [w.rstrip(",.;:!?") for w in words]
    ends = next((k for k, w in enumerate(words) if w[-1] in ",.;:!?"), len(words))
    kept = kept[:min(ends + 1, most)]
    while len(kept) > 1 and kept[-1] in SMALL:  # (as written: "May" is a month)
        kept.pop()
    while len(kept) > 1 and kept[0].lower() in SMALL:
        kept.pop(0)
    return kept
