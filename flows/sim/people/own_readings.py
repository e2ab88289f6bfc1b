"""What a person reads in an item's own words for the own-voice answers."""

from __future__ import annotations

import itertools
import random
import re

from flows.sim.people.asked_details import SMALL
from flows.sim.people.item_parts import missing_in
from flows.sim.people.stated_limits import NUMBERS
from flows.sim.people.summaries import main_text, sentences

SUBJECT_AFTER = frozenset((",", ";", ":", "and", "because", "as", "that", "when", "if", "so", "but", "then", "while",
                           "since", "until", "unless", "where", "which", "who"))  # "you" after these is "I"
SWAP = {"i": "you", "me": "you", "my": "your", "mine": "yours", "we": "you", "us": "you", "our": "your",
        "you": "me", "your": "my", "yours": "mine", "am": "are", "i'm": "you're", "you're": "I'm"}


def swapped(text: str) -> str:
    """``text`` said back to its writer: "I", "my" become "you", "your", and the other way round."""
    def turn(m: re.Match[str]) -> str:
        before = re.findall(r"[\w']+|[,;:]", text[:m.start()])[-1:]
        subject = not before or before[0].lower() in SUBJECT_AFTER
        if m[0].lower() == "am" and before[-1:] != ["I"]:  # "7 am" is a time
            return m[0]
        word = "I" if m[0].lower() == "you" and subject else SWAP[m[0].lower()]
        return _cased(word, m[0])
    return re.sub(r"\b(?:I'm|you're|I|me|my|mine|we|us|our|you|your|yours|am)\b", turn, text, flags=re.I)


def _cased(word: str, like: str) -> str:
    return word if word == "I" or not like[:1].isupper() else word[:1].upper() + word[1:]


def clauses(text: str, least: int = 3) -> list[str]:
    return [c.strip() for c in re.split(r"[,;.!?]\s*|\s(?:and|but|so|although|because)\s", text)
            if len(c.split()) >= least]


def short(clause: str, most: int = 8) -> str:
    """The clause's first ``most`` words, ending on one that is not a small word."""
    words = clause.split()[:most]
    while len(words) > 2 and (len(words[-1]) < 3 or words[-1].lower() in ("the", "and", "with", "that", "from")):
        words.pop()
    return " ".join(words).strip(".,;:")

def named(text: str) -> str:
    """The first thing ``text`` names with an article or a possessive: "the blue kettle", "the beach car", or ""."""
    found = [f"the {' '.join(itertools.takewhile(lambda w: not UNNAMED.search(w), m[1].split()))}" for m in
             re.finditer(r"\b(?:a|an|the|my|your|our|their)\s+((?:[a-z-]+ ){0,2}[a-z-]{3,})", text, re.I)]
    if AGENT.match(text):  # "The council plans to close the library": what it acts on, first
        found = found[1:] + found[:1]
    return next((n for n in found if n != "the "), "")

UNNAMED = re.compile(rf"^(?:{'|'.join(SMALL)}|i|you|he|she|we|they|it|left|got|bought|went|came|took|made|put|sent|"
                     r"broke|fell|\w{3,}ed)$", re.I)
AGENT = re.compile(r"(?:the|our|your|their) (?:\w+ )?(?:council|company|government|authority|management|shop|store|"
                   r"landlord|bank|club|firm|business|airline|operator|board|owners?|trust|hospital|museum)\b", re.I)
COUNTER = re.compile(r"\b(?:words?|characters?|chars?|letters?)\b|\d+\s*/\s*\d+", re.I)
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


def checked(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
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


# what a reader may need that a text does not give (its price, time, date, place): its names, and whether it is given
DETAILS = (("price|cost|pay|fee|fare", r"[£$€]\s?\d|\d\s?(?:pounds|euros|dollars)|\bfree\b|per hour"),
           ("hours|times|opening hours", r"\d(?:[.:]\d\d)?\s*[ap]\.?m\b|\b\d{1,2}[.:]\d\d\b|o'clock|\bnoon|\bhours\b"),
           ("date|day", r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|\b\d{1,2}(?:st|nd|rd|th)\b|"
                        r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d"),
           ("location|address|place", r"\b(?:in|at|near) (?-i:[A-Z])[a-z]+|\baddress\b|\bstreet\b|\broad\b"))
STEP = re.compile(r"[A-Z][a-z]+ (?:the|a|an|it|some|in|on|up|out|them|your|all)\b")  # "Knead the dough."
READER = re.compile(r"\b(?:an?|the) ((?!one\b|thing\b)[a-z]+(?: [a-z]+)?(?: with (?:an? )?[a-z]+(?: [a-z]+)?)?) "
                    r"(?:would|might|will|needs?|wants?)\b")
UNTOLD = ("It does not say {d}.", "{D} is not given.", "It never tells you {d}.", "There is nothing about {d}.",
          "{D}.")


def untold(texts: list[str], rng: random.Random, question: str, page: str) -> list[str]:
    """The detail the item leaves a reader to guess: a needed part, a step's amount or time, else a common one."""
    if part := missing_in(texts, rng, page, question):
        return [part]
    said = [s for t in texts for s in sentences(t)]
    steps = [s.rstrip(".!") for s in said if STEP.match(s)]
    steps_asked = len(steps) >= max(3, 0.6 * len(said))
    if steps_asked:  # instructions: what a step leaves to guess
        lacking = [f"how long or how much to {s[:1].lower() + s[1:]}" for s in steps if not NUMBER.search(s)] or \
            ["how long each step takes"]  # (a step with no figure leaves its time or amount to guess)
    else:
        text = " ".join(texts)
        lacking = sorted((_detail(names, page) for names, has in DETAILS if not re.search(has, text, re.I)),
                         key=lambda d: not re.search(rf"\b{d.split()[-1]}\b", page, re.I)) or ["who to ask"]
    d = lacking[0] if rng.random() < 0.75 else rng.choice(lacking[:2])  # the page's own concern first
    if not steps_asked:  # never one line for all items: whose detail it is
        d = f"{d} {'for' if d.startswith('how') else rng.choice(('for', 'of'))} {_subject(texts)}"
    reader = READER.search(question) or READER.search(page)  # "what would a job seeker want to know ..."
    who = f"a {reader[1]}" if reader else "I"
    then = rng.choice(("{w} would need that before deciding anything.", "Without it {w} cannot really judge it.",
                       "That is the first thing {w} would ask about.")).format(w=who)
    return [f"{rng.choice(UNTOLD).format(d=d, D=d[:1].upper() + d[1:])} {then[:1].upper()}{then[1:]}"]


def _subject(texts: list[str]) -> str:
    """What the item is about in its own words: its title, else the first thing it names, else its opening."""
    main = main_text(texts)
    titles = [re.sub(r"^[A-Z][a-z]+:\s*", "", t).strip(" .") for t in texts if t != main and len(t.split()) <= 6
              and re.search(r"[A-Za-z]{3,}", t) and not COUNTER.search(t)]  # ("0 / 20 words": a counter)
    opening = " ".join(w.strip(".,;:!?") for w in main.split()[:3])
    return next(iter(titles), "") or named(main) or f"\"{opening}\""


def _detail(names: str, page: str) -> str:
    """The first of ``names`` the page's own words use (else the first), as a detail: "the pay", "how to apply"."""
    found = next((n for n in names.split("|") if re.search(rf"\b{n}\b", page, re.I)), names.split("|")[0])
    return found if found.startswith("how") else f"the {found}"
