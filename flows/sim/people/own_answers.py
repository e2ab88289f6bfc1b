"""Free text a person writes in their own voice about an item, of the kind the question asks: a reply to the item's
writer, what they would do about it, what they would change in it and why, what it does not tell a reader, how
they checked a sum, what a term means, an opinion with a reason (docs/custom_pages.md). Each is made of the
item's own words (the thing at fault, its numbers, its clauses) set in a few frames of our own, and grows by a
further sentence of the same kind, not by the item's text over again, until it meets the box's minimum.
"""

from __future__ import annotations

import itertools
import random
import re

from flows.sim.people.asked_details import SMALL, WHEN, WRONG, remedy, thing
from flows.sim.people.item_parts import missing_part
from flows.sim.people.stated_limits import NUMBERS
from flows.sim.people.summaries import main_text, sentences

ASKS = (("reply", r"\bhow (?:would|will|might|do) you (?:reply|respond|answer)|\b(?:write|draft) (?:a |an |your )?"
                  r"(?:reply|response|answer) to\b|\bwhat would you (?:say|write) (?:to|back)\b"),
        ("change", r"\bwhat (?:\w+ )?would you (?:change|improve|alter|add|remove)\b|\bhow would you (?:change|improve)"
                   r"\b|\bwhat (?:changes?|improvements?) would you\b|\bif you could change\b"),
        ("deed", r"\bwhat\b(?:,? if anything,?)? (?:would|will|could|might|should) you (?:\w+ )?do\b|\bhow would you "
                 r"(?:handle|deal with|react)\b|\bwhat do you do\b"),
        ("checked", r"\bhow (?:did|do|would|could|can) you (?:check|verify|confirm|test|work (?:\w+ )?out|calculate|"
                    r"get|arrive)\b|\bshow (?:your working|how you)\b"),
        ("meaning", r"\bwhat (?:does|do|did) (?:the |this |that )?(?:[\w'-]+ ){0,3}(?:mean|stand for)\b|\bexplain\b"
                    r"[^?.]{0,40}\bwhat\b[^?.]{0,40}\bmeans?\b|\b(?:define|definition of|meaning of)\b"),
        ("opinion", r"\bgood idea\b|\bwhat do you think (?:of|about)\b|\b(?:your|an) (?:opinion|view)\b|"
                    r"\bdo you (?:agree|support|approve)\b|"
                    r"\bin favou?r\b|\bfor or against\b"),
        ("untold", r"\b(?:does|do|did)(?: ?n[o']t|\b[^?.]{0,40}\bnot) (?:tell|say|mention|include|give|state|explain|"
                   r"cover)\b|\bnot "
                   r"(?:given|stated|mentioned|included|explained|said|told)\b|\bwould (?:most )?(?:want|like|need) "
                   r"to know\b"))
OWN_KINDS = frozenset(kind for kind, _p in ASKS)
ASKED = tuple((kind, re.compile(pattern, re.I)) for kind, pattern in ASKS)
RECAST = re.compile(r"\b(?:reword|rewrite|rephrase|kinder|politer|polite|friendlier|gentler)\b", re.I)
PEOPLE = re.compile(r"\b(?:neighbou?rs?|couple|family|people|man|woman|friends?|colleagues?|boss|manager|cashier|"
                    r"driver|guests?|kids|children|students?|staff|employees|workers|landlord|owner|tenants?|"
                    r"visitors|residents|customers|passengers|drivers|pupils|members)\b", re.I)
NOISE = re.compile(r"\b(?:nois\w*|loud\w*|music|bass|racket|shout\w*|bang\w*|bark\w*|drill\w*|rattl\w*|"
                   r"thump\w*|part(?:y|ies))\b", re.I)
IN_CHARGE = re.compile(r"\b(?:council|landlord|manager|management|police|company|school|agent|owner|staff|shop|"
                       r"driver|bank|boss)\b", re.I)
SUBJECT_AFTER = frozenset((",", ";", ":", "and", "because", "as", "that", "when", "if", "so", "but", "then", "while",
                           "since", "until", "unless", "where", "which", "who"))  # "you" after these is "I"
SWAP = {"i": "you", "me": "you", "my": "your", "mine": "yours", "we": "you", "us": "you", "our": "your",
        "you": "me", "your": "my", "yours": "mine", "am": "are", "i'm": "you're", "you're": "I'm"}


def own_kind(question: str) -> str:
    """The kind of own-voice answer ``question`` asks for, or "" (one the caller reads otherwise)."""
    if RECAST.search(question):
        return ""
    return next((kind for kind, pattern in ASKED if pattern.search(question)), "")


def own_answer(kind: str, question: str, texts: list[str], rng: random.Random, least: int, page: str = "") -> str:
    """An answer of ``kind`` (:func:`own_kind`) about the item's ``texts``, of at least ``least`` words where its
    kind has that much to say; "" where the item has no words to answer from."""
    if not texts or not main_text(texts).strip():
        return ""
    said = WRITERS[kind](texts, rng, question, page)
    text = said[0] if said else ""
    for more in said[1:]:
        if len(text.split()) >= least:
            break
        text = f"{text} {more}"
    return text


def swapped(text: str) -> str:
    """``text`` said back to its writer: their "I", "my" become "you", "your", and theirs of me mine ("you" as
    an object, "near you", becomes "me")."""
    def turn(m: re.Match[str]) -> str:
        before = re.findall(r"[\w']+|[,;:]", text[:m.start()])[-1:]
        subject = not before or before[0].lower() in SUBJECT_AFTER
        word = "I" if m[0].lower() == "you" and subject else SWAP[m[0].lower()]
        return _cased(word, m[0])
    return re.sub(r"\b(?:I'm|you're|I|me|my|mine|we|us|our|you|your|yours|am)\b", turn, text, flags=re.I)


def _cased(word: str, like: str) -> str:
    return word if word == "I" or not like[:1].isupper() else word[:1].upper() + word[1:]


def _clauses(text: str, least: int = 3) -> list[str]:
    return [c.strip() for c in re.split(r"[,;.!?]\s*|\s(?:and|but|so|although|because)\s", text)
            if len(c.split()) >= least]


def _short(clause: str, most: int = 8) -> str:
    """The clause's first ``most`` words, ending on one that is not a small word."""
    words = clause.split()[:most]
    while len(words) > 2 and (len(words[-1]) < 3 or words[-1].lower() in ("the", "and", "with", "that", "from")):
        words.pop()
    return " ".join(words).strip(".,;:")


def _trouble(texts: list[str]) -> tuple[list[str], str]:
    """The clauses of the item's main text that tell of trouble (else all of them), and the thing at fault."""
    clauses = _clauses(main_text(texts))
    told = [c for c in clauses if WRONG.search(c)] or clauses or [main_text(texts)]
    return told, _named(main_text(texts)) or thing(told + clauses)


def _named(text: str) -> str:
    """The first thing ``text`` names with an article or a possessive: "the blue kettle", "the beach car", or ""."""
    named = [f"the {' '.join(itertools.takewhile(lambda w: not UNNAMED.search(w), m[1].split()))}" for m in
             re.finditer(r"\b(?:a|an|the|my|your|our|their)\s+((?:[a-z-]+ ){0,2}[a-z-]{3,})", text, re.I)]
    return next((n for n in named if n != "the "), "")


def _todo(told: list[str], what: str, instead: str) -> str:
    """What to do about the trouble (asked_details.remedy), or ``instead`` where no remedy fits it."""
    todo = remedy(told, what)
    return instead.format(t=what) if todo == remedy([""], what) else todo


def _reply(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
    told, what = _trouble(texts)
    worst = swapped(_short(told[-1] if len(told) > 1 else told[0], 9))
    todo = _todo(told, what, "look into what happened with {t} and get back to you")
    thanks = rng.choice(("Thank you for your message about {t}.", "Hi, thanks for letting me know about {t}.",
                         "Hello, and thank you for telling me about {t}.")).format(t=what)
    sorry = rng.choice(("I am sorry that {s}.", "Sorry to hear that {s}.", "I apologise that {s}.")).format(
        s=worst[:1].lower() + worst[1:] if not worst.startswith("I ") else worst)
    return [f"{thanks} {sorry} I will {todo} {rng.choice(WHEN)}.",
            rng.choice(("Please let me know if you need anything else.", "Thanks for your patience.",
                        "I will keep you updated."))]


def _deed(texts: list[str], rng: random.Random, question: str, page: str) -> list[str]:
    """What I would do: ask the people behind the trouble to stop it, else cope and report it; then whom I would
    go to if that failed, and why it matters to me (the item's own "you" clauses, said of myself)."""
    told, what = _trouble(texts)
    item = main_text(texts)
    who, noisy = PEOPLE.search(" ".join(told)), NOISE.search(f"{item} {question} {page}")  # (a page on noise)
    told = sorted(told, key=lambda c: not (PEOPLE.search(c) or NOISE.search(c)))  # the trouble's own clause first
    if who:
        ask = "keep the noise down" if noisy else "sort it out"
        first = f"I would {rng.choice(('talk to', 'have a word with', 'speak to'))} the {who[0].lower()} " \
                f"{rng.choice(('politely', 'calmly', 'first'))} and ask them to {ask}, as {_told(told)}."
    else:
        first = f"I would {'close the windows and try earplugs, and ' if noisy else ''}report {what} to someone " \
                f"who can deal with it, as {_told(told)}."
    charge = IN_CHARGE.search(item)
    then = f"If that did not work, I would contact {'the ' + charge[0].lower() if charge else 'whoever is in charge'}."
    mine = [swapped(_short(c, 10)) for c in _clauses(item) if re.search(r"\byou(?:r)?\b", c, re.I)]
    why = [f"It matters to me because {mine[0][:1].lower() + mine[0][1:]}."] if mine else []
    return [first, then, *why, f"I would not just ignore {what}."]


def _told(told: list[str]) -> str:
    """The trouble, in a few of the item's words, as I would tell it."""
    said = swapped(_short(told[0], 9))
    return said[:1].lower() + said[1:] if not said.startswith("I ") else said


def _change(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
    clauses = _clauses(main_text(texts))
    strict = [c for c in clauses if re.search(r"\b(?:must|only|at least|never|not|all|every|loses?|cannot|no|"
                                              r"more than|less than)\b", c, re.I)] or clauses
    part = _short(strict[0], 7)
    people = PEOPLE.search(main_text(texts))
    who = people[0].lower() if people else "the people it affects"
    change = rng.choice(("I would change the part where {p}, so that it is less strict.",
                         "I would relax the rule that {p} and allow some exceptions.",
                         "I would make \"{p}\" more flexible.")).format(p=part[:1].lower() + part[1:])
    return [change + rng.choice((" This is because it is too strict for {w}.", " It would be fairer to {w} that way.",
                                 " That way {w} would have more choice, as needs differ.")).format(w=who),
            f"As it stands, it does not allow for emergencies or for {who} with different needs."]


def _opinion(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
    item = main_text(texts)
    aim = re.search(r"\b(?:so that|in order to|to)\s+(?P<a>(?:save|help|make|stop|reduce|allow|give|let|protect|keep|"
                    r"improve|cut|raise|pay|fund|cover)\b[^,.;]*|(?<=so that )[^,.;]+)", item)
    what = _named(item) or thing(_clauses(item))
    if rng.random() < 0.6:
        reason = f"it would {aim['a']}" if aim and not aim[0].startswith("so that") else \
            (aim["a"] if aim else f"it would make {what} better for the people who use it")
        return [f"Yes, I think it is a good idea, because {reason}.",
                f"I would support it as long as {what} is looked after."]
    return [f"No, I do not think it is a good idea, because it would be hard on people who rely on {what}.",
            "The money and effort could be spent on something more useful."]


# never part of a thing's name: a small word, a pronoun or a verb ("the jumper I bought", "the driver left")
UNNAMED = re.compile(rf"^(?:{'|'.join(SMALL)}|i|you|he|she|we|they|it|left|got|bought|went|came|took|made|put|sent|"
                     r"broke|fell|\w{3,}ed)$", re.I)
NUMBER = re.compile(r"[£$€]?\d+(?:[.:/]\d+)?")
IN_WORDS = {"half": "2", "third": "3", "quarter": "4", "twice": "2", "double": "2", "dozen": "12"} | \
    {w: n for w, n in NUMBERS.items() if int(n) <= 20}
# how a sum is worked, by the words of its problem (the first that fits): the verb, with its two numbers
OPS = ((r"\beach\b|\bper\b|\bevery\b|\btimes\b|\bpacks?\b|\bcosts?\b", "multiplied {a} by {b}"),
       (r"\bshare|\bsplit|\bbetween\b|\bequal|\bgroups?\b|\bquarter|\bthird|\bhalf\b|\bfraction|\bdivid",
        "divided {a} by {b}"),
       (r"\bleft\b|\bchange\b|\baway\b|\beats?\b|\bate\b|\bspent\b|\bfewer\b|\bless\b|\bremain|\bbroken\b",
        "took {b} away from {a}"),
       (r"", "added {a} and {b}"))


def _checked(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
    problem = next((t for t in texts if t.rstrip().endswith("?") and NUMBER.search(t)), "") or \
        max(texts, key=lambda t: (len(NUMBER.findall(t)), len(t)))
    nums = NUMBER.findall(re.sub(r"\b[a-z]+\b", lambda m: IN_WORDS.get(m[0].lower(), m[0]), problem, flags=re.I))
    back = rng.choice(("Then I checked it the other way round.", "I also estimated it roughly to be sure.",
                       "Both ways gave me the same figure."))
    if len(nums) < 2:
        return [f"I worked through {_subject(texts)} again myself, step by step, and compared my result with the "
                "answer given.", back]
    ops = sorted((m.start(), o) for p, o in OPS[:-1] if (m := re.search(p, problem, re.I)))
    if len(ops) >= 2:  # two steps: the second works on the first's result ("... 3 by 1.40, then took that ...")
        x, y = (nums[1], nums[2]) if len(nums) >= 3 else (nums[0], nums[1])
        op = f"{ops[0][1].format(a=x, b=y)}, then {ops[1][1].format(a=nums[0], b='that')}"
    else:
        op = (ops[0][1] if ops else OPS[-1][1]).format(a=nums[0], b=nums[1])
    return [rng.choice(("I {o} myself and compared it with the answer given.", "I worked it out again: I {o} and "
                        "compared the result.", "I redid the sum by hand, I {o} and checked the final answer."))
            .format(o=op), back]


def _meaning(texts: list[str], rng: random.Random, question: str, page: str) -> list[str]:
    term = _term(texts, question, page)
    said = [re.sub(r"^[A-Z][\w ]{0,30}:\s*", "", s).strip("\"“”' ") for t in texts for s in sentences(t)]
    used = next((s for s in said if term and term.lower() in s.lower()), main_text(said))
    parts = [re.sub(r"^(?:so|and|but|then|which)\s+", "", c, flags=re.I) for c in _clauses(used)]
    around = [c for c in parts if not term or term.lower() not in c.lower()]
    name = term or "it"
    frames: tuple[str, ...] = ("{T} means the situation where {g}.", "In my own words, {t} is what leads to this: {g}.",
              "I would say {t} means something that explains why {g}.")
    if not around:  # one clause, the term's own: what it goes with there ("the office", "an hour")
        found = re.findall(r"\b(?:a|an|the|her|his|their|my|your|its)\s+[a-z-]{3,}", used)
        things = [t for t in dict.fromkeys(found) if not term or term.lower() not in t.lower()][:3] or ["this"]
        frames, around = ("{T} means something to do with {g}, as in the example.",), [" and ".join(things)]
    gist = swapped(_short(around[-1], 8))
    rest = [c for c in parts if c not in around] or around
    example = re.sub(re.escape(term), "it", rest[0], flags=re.I) if term else rest[0]
    return [rng.choice(frames).format(t=name, T=name[:1].upper() + name[1:], g=gist[:1].lower() + gist[1:]),
            f"In the sentence, {swapped(_short(example, 6))}.", "That is how most people use the word."]


def _term(texts: list[str], question: str, page: str) -> str:
    """The word a question asks the meaning of: quoted in it, else a word or two the page sets after a label
    ("Term: overdraft") that the item's text uses."""
    if quoted := re.search(r"[\"“‘']([A-Za-z][\w' -]{1,30})[\"”’']", question):
        return quoted[1]
    said = " ".join(texts).lower()
    labelled = re.findall(r"\b[A-Z][a-z]+: ([A-Za-z][\w'-]{3,}(?: [a-z][\w'-]+)?)\b", f"{page} {' '.join(texts)}")
    return next((w for w in labelled if w.lower() in said), "")


# what a reader of a text may need that it does not give: how a person names it (the page's own word for it where
# the page has one), and whether the text gives it
DETAILS = (("price|cost|pay|wage|salary|fee|rent|fare", r"[£$€]\s?\d|\d\s?(?:pounds|euros|dollars)|\bfree\b|per hour"),
           ("hours|times|shifts|opening hours", r"\d(?:[.:]\d\d)?\s*[ap]\.?m\b|\b\d{1,2}[.:]\d\d\b|o'clock|\bnoon|"
                                                r"\bshifts?\b|\bhours\b"),
           ("start date|date|day", r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|\b\d{1,2}(?:st|nd|rd|th)\b|"
                                   r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d|immediate"),
           ("location|address|place", r"\b(?:in|at|near) (?-i:[A-Z])[a-z]+|\baddress\b|\bremote\b|\bstreet\b|\broad\b"),
           ("contract|length|duration", r"\bpermanent\b|\btemporary\b|\bcontract\b|"
                                        r"\b\d+\s*(?:weeks?|months?|years?)\b"),
           ("how to apply|contact details|how to book", r"@|\bcall\b|\bphone\b|\bemail\b|www\.|\.co\b|\bapply\b"),
           ("portion size|size", r"\b(?:small|large|size|portion|serves)\b|\d+\s*(?:cm|mm|inches|g|grams)\b"))
STEP_NEEDS = (("how long to {s}", r"^(?:leave|bake|cook|wait|boil|heat|soak|dry|rest|charge|hold|press|knead|let|"
                                   r"stir|simmer|roast|fry|water)\b"),
              ("how much to use when you {s}", r"^(?:add|mix|pour|use|put|fill|sprinkle|spread)\b"),
              ("which tools you need to {s}", r"^(?:attach|fix|fit|screw|slide|assemble|join|cut|drill|remove|open)\b"),
              ("what exactly to do to {s}", r""))
STEP = re.compile(r"[A-Z][a-z]+ (?:the|a|an|it|some|in|on|up|out|them|your|all)\b")  # "Knead the dough."
READER = re.compile(r"\b(?:an?|the) ((?!one\b|thing\b)[a-z]+(?: [a-z]+)?) (?:would|might|will|needs?)\b")
UNTOLD = ("It does not say {d}.", "{D} is not given.", "It never tells you {d}.", "There is nothing about {d}.",
          "{D}.")


def _untold(texts: list[str], rng: random.Random, question: str, page: str) -> list[str]:
    """The detail the item leaves a reader to guess: a part the page says it needs, a step's amount or time
    (instructions), else one a reader of any notice asks about (the price, the times ...), the page's first."""
    if part := next(filter(None, (missing_part(t, rng, page) for t in texts)), ""):
        return [part]
    said = [s for t in texts for s in sentences(t)]
    steps = [s.rstrip(".!") for s in said if STEP.match(s)]
    if len(steps) >= max(3, 0.6 * len(said)):  # instructions: what a step leaves to guess
        needs = [(k, n.format(s=s[:1].lower() + s[1:])) for s in steps if not NUMBER.search(s)
                 for k, (n, p) in enumerate(STEP_NEEDS) if re.match(p, s, re.I)]
        lacking = [n for _k, n in sorted(needs, key=lambda kn: kn[0])] or ["how long each step takes"]  # (vague last)
    else:
        text = " ".join(texts)
        lacking = sorted((_detail(names, page) for names, has in DETAILS if not re.search(has, text, re.I)),
                         key=lambda d: not re.search(rf"\b{d.split()[-1]}\b", page, re.I)) or ["who to ask"]
    d = lacking[0] if rng.random() < 0.75 else rng.choice(lacking[:2])  # the page's own concern first
    d = f"{d} {rng.choice(('for', 'of'))} {_subject(texts)}" if d.startswith("the ") else d  # never one line for all
    reader = READER.search(question) or READER.search(page)  # "what would a job seeker want to know ..."
    who = f"a {reader[1]}" if reader else "I"
    then = rng.choice(("{w} would need that before deciding anything.", "Without it {w} cannot really judge it.",
                       "That is the first thing {w} would ask about.")).format(w=who)
    return [f"{rng.choice(UNTOLD).format(d=d, D=d[:1].upper() + d[1:])} {then[:1].upper()}{then[1:]}"]


def _subject(texts: list[str]) -> str:
    """What the item is about, in its own words: its title (a short text of its own), else the first thing its
    main text names, else its opening words."""
    main = main_text(texts)
    short = [re.sub(r"^[A-Z][a-z]+:\s*", "", t).strip(" .") for t in texts if t != main and len(t.split()) <= 6]
    opening = " ".join(w.strip(".,;:!?") for w in main.split()[:3])
    return next(iter(short), "") or _named(main) or f"\"{opening}\""


def _detail(names: str, page: str) -> str:
    """The first of ``names`` the page's own words use (else the first), as a detail: "the pay", "how to apply"."""
    found = next((n for n in names.split("|") if re.search(rf"\b{n}\b", page, re.I)), names.split("|")[0])
    return found if found.startswith("how") else f"the {found}"


WRITERS = {"reply": _reply, "deed": _deed, "change": _change, "opinion": _opinion, "checked": _checked,
           "meaning": _meaning, "untold": _untold}
