"""Texts a box asks to be made from its item: an amount in words, the item's sentence put in the past tense, a
line whose words start with one sound, a thing suggested for the person an item tells of and why."""

from __future__ import annotations

import random
import re

from flows.sim.people.own_words import uncopied

STOP = frozenset(("a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "with", "by", "from", "but",
                  "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "those", "their",
                  "there", "here", "his", "her", "he", "she", "they", "them", "we", "our", "you", "your", "i",
                  "my", "me", "not", "no", "so", "as", "into", "over", "after", "before", "just", "very", "also",
                  "has", "have", "had", "will", "would", "can", "could", "should", "may", "might", "than", "then",
                  "when", "while", "who", "which", "what", "where", "one", "two", "three", "four", "five", "six",
                  "seven", "eight", "nine", "ten", "all", "some", "any", "each", "every", "more", "most", "about",
                  "up", "down", "out", "off"))
ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
TENS = ("_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
CURRENCY = {"£": ("pound", "pounds", "p"), "$": ("dollar", "dollars", "cents"), "€": ("euro", "euros", "cents")}
IRREGULAR = {"is": "was", "are": "were", "has": "had", "have": "had", "cuts": "cut", "lead": "led", "leads": "led",
             "wins": "won", "win": "won", "beat": "beat", "beats": "beat", "says": "said", "say": "said",
             "makes": "made", "make": "made", "takes": "took", "take": "took", "gives": "gave", "give": "gave",
             "goes": "went", "go": "went", "comes": "came", "come": "came", "meets": "met", "meet": "met",
             "runs": "ran", "run": "ran", "finds": "found", "holds": "held", "keeps": "kept", "loses": "lost",
             "lose": "lost", "sets": "set", "puts": "put", "hits": "hit", "rises": "rose", "rise": "rose",
             "falls": "fell", "fall": "fell", "brings": "brought", "buys": "bought", "sells": "sold",
             "tells": "told", "shuts": "shut", "blows": "blew", "breaks": "broke", "break": "broke",
             "leaves": "left", "leave": "left", "spends": "spent", "sits": "sat", "sit": "sat", "gets": "got",
             "get": "got", "pays": "paid", "stands": "stood", "begins": "began", "sees": "saw", "see": "saw",
             "will": "would", "can": "could", "do": "did", "does": "did", "swims": "swam", "drives": "drove",
             "flies": "flew", "grows": "grew", "throws": "threw", "wears": "wore", "fights": "fought"}


def own_item(texts: list[str], ask: str = "") -> str:
    """The item's one text a rewrite is of: the last that is neither the box's words nor an instruction."""
    said = [t for t in texts if t.strip() not in ask and not INSTRUCTION.search(t)]
    return (said or texts)[-1]


INSTRUCTION = re.compile(r"\b(?:please|re-?writ\w*|write|tick|answer|you|your|don't|do not|pick|keep|choose)\b|:\s*$",
                         re.I)


def salient(text: str) -> list[str]:
    """The item's content words in order, each once (no small words, no numbers)."""
    seen: dict[str, None] = {}
    for w in re.findall(r"[A-Za-z][A-Za-z'-]{2,}", text):
        if w.lower() not in STOP and not w.lower().endswith("'s"):
            seen.setdefault(w, None)
    return list(seen)


def number_words(n: int) -> str:
    """A whole number in words, as written on a cheque ("one hundred and twenty")."""
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + (f"-{ONES[n % 10]}" if n % 10 else "")
    if n < 1000:
        return f"{ONES[n // 100]} hundred" + (f" and {number_words(n % 100)}" if n % 100 else "")
    if n < 1_000_000:
        rest = n % 1000
        return f"{number_words(n // 1000)} thousand" + (
            "" if not rest else f" and {number_words(rest)}" if rest < 100 else f" {number_words(rest)}")
    return str(n)


def amount_words(text: str) -> str:
    """The item's first amount in words, its unit named (pence in figures, as a cheque allows); "" with none."""
    found = re.search(r"(?P<c>[£$€])?\s?(?P<n>\d{1,3}(?:,\d{3})*|\d+)(?:\.(?P<d>\d{2}))?", text)
    if not found:
        return ""
    n, unit = int(found["n"].replace(",", "")), CURRENCY.get(found["c"] or "£" if "pound" in text.lower() or
                                                              found["c"] else "")
    said = number_words(n)
    if unit:
        said += f" {unit[0] if n == 1 else unit[1]}"
        if found["d"] and int(found["d"]):
            said += f" and {int(found['d'])}{unit[2] if unit[2] == 'p' else ' ' + unit[2]}"
    return said[:1].upper() + said[1:]


def past_tense(text: str) -> str:
    """The item's sentence told in the past: its verbs of the present put in the past (is: was, cuts: cut, finishes:
    finished), the rest of its words kept."""
    from flows.sim.people.entity_spans import COMMON, word_counts

    text = re.sub(r"^[A-Z][A-Za-z ]{0,20}:\s+", "", text.strip())  # ("LIVE: ...": the label is no part of it)
    counts, words, changed = word_counts(), text.split(), False
    for k, w in enumerate(words):
        bare, tail = re.match(r"([A-Za-z'-]*)(.*)", w).groups()  # type: ignore[union-attr]
        low = bare.lower()
        before = words[k - 1].lower() if k else ""
        if low in ("and", "as", "after", "when", "while", "because", "but", "until", "before"):
            changed = False  # (a new clause has a verb of its own)
        if k == 0 or before in AFTER_NO_VERB:
            continue
        past = IRREGULAR.get(low) if low not in ("lead", "win", "run", "go", "see") or _plural(before) else None
        if past is None and low.endswith("s") and not low.endswith("ss") and not changed:
            stem = low[:-2] if low.endswith(("es",)) and counts.get(low[:-2] + "ed", 0) >= COMMON else low[:-1]
            stem = stem[:-1] + "i" if low.endswith("ies") else stem
            past = next((p for p in (stem + "ed", stem + "d") if counts.get(p, 0) >= COMMON), None)
        elif past is None and not changed and _plural(before):  # "the under-13s reach": reached
            past = next((p for p in (low + "d" if low.endswith("e") else low + "ed",) if counts.get(p, 0) >= COMMON),
                        None)
        if past:
            words[k], changed = (past[:1].upper() + past[1:] if bare[:1].isupper() else past) + tail, True
        changed = changed and not tail.endswith((";", ":"))  # (a new clause has a verb of its own)
    return " ".join(words)


AFTER_NO_VERB = frozenset(("the", "a", "an", "to", "its", "their", "his", "her", "of", "new", "this", "for", "with",
                           "by", "from", "into", "on", "in", "at", "about", "my", "our", "your", "some", "many"))


def _plural(word: str) -> bool:
    return word.rstrip(",;").endswith("s") and not word.endswith(("ss", "'s", "us"))


def alliterating(sound: str, n: int, text: str, rng: random.Random) -> str:
    """A line of about ``n`` words most of which start with ``sound``: everyday words of its own, not the item's
    (describing words, things and a doing word in the past, told by their endings)."""
    from flows.sim.people.entity_spans import COMMON, word_counts

    counts, shown = word_counts(), {w.lower() for w in re.findall(r"[A-Za-z]+", text)}

    def common(w: str) -> bool:
        return counts.get(w, 0) >= COMMON
    pool = [w for w in counts if w.startswith(sound) and w.isalpha() and 3 <= len(w) <= 9 and common(w)
            and w not in shown and w not in STOP and not RUDE.search(w)]
    kinds = ([w for w in pool if w.endswith("y") and not w.endswith("ly") and common(w[:-1])],  # sandy
             [w for w in pool if common(w + "s") and not common(w + "ed") and not w.endswith(("y", "s", "ing"))],
             [w for w in pool if w.endswith("ed") and common(w[:-2] if common(w[:-2]) else w[:-1])])
    adjectives, nouns, verbs = (found or [w for w in pool if w.endswith(end)] or pool
                                for found, end in zip(kinds, ("y", "er", "ed"), strict=True))
    adj, noun = rng.sample(adjectives, min(3, len(adjectives))) * 3, rng.sample(nouns, min(3, len(nouns))) * 3
    line = [adj[0], noun[0] + "s", rng.choice(verbs), adj[1], noun[1] + "s", "and", adj[2], noun[2] + "s"]
    while len(line) > max(4, n) or line[-1] == "and":
        line.pop()
    return " ".join(line).capitalize() + "."


RUDE = re.compile(r"sex|shit|fuck|damn|bitch|crap|piss|cock|dick|slut|whore|nazi|rape|porn|nude|drug|kill|dead|"
                  r"death|bomb|gun|ass|bloody|hell|suicid|terror|booty|gay|crippl|fella|crime|murder", re.I)


def suggestion(thing: str, texts: list[str], page: str) -> str:
    """One thing of the kind asked (a present) for the person the item tells of, and why: something for what the
    item says they love or do (else for what it names), within a budget the page states."""
    note = own_item(texts)
    found = LIKES.search(note)
    doing = re.split(r"\s(?:and|but|so|because|while|since|even)\s|[,.;]", found[0] if found else "")[0].strip()
    what = re.split(r"\s(?:and|but|so|because|while|since|even)\s|[,.;]", found["what"] if found else "")[0]
    topic: list[str] = []
    for w in what.split():
        if (w.lower() in STOP | OWNERS and topic) or len(topic) == 2:
            break
        topic += [] if w.lower() in STOP | OWNERS else [w]
    budget = re.search(r"[£$€]\s?\d+(?:\.\d{2})?", " ".join(texts) + " " + page)
    within = f"it fits the {budget[0]} budget" if budget else "it is not expensive"
    if not topic:  # nothing the note says they do: something for what it names
        named = [w for w in salient(note) if len(w) >= 4][-2:]
        return f"A voucher for something to do with {' and '.join(named) or 'their hobbies'} would suit them, " \
               f"because the note mentions it, and {within}." if named else ""
    who = next((p for p, said in (("she", r"\b(?:she|her)\b"), ("he", r"\b(?:he|his|him)\b")) if re.search(said, note,
                                                                                                          re.I)), "")
    doing = re.sub(r"^'s\b", "is", doing)
    told = f"A good book about {' '.join(topic).lower()} would suit them, because {who or 'this person'} " \
           f"{_theirs(doing, who)}, and {within}."
    return uncopied(told, note, 6)


OWNERS = frozenset(("his", "her", "their", "my", "the", "a", "an", "every", "round", "around", "through", "morning",
                    "day", "days", "week", "weekend", "hours", "night", "evening", "year", "years", "months"))


def _theirs(doing: str, who: str) -> str:
    """What someone does as the note says it, said of them ("my records": her records)."""
    own = {"he": "his", "she": "her"}.get(who, "their")
    return " ".join(own if w.lower() in ("my", "his", "her", "their") else w for w in doing.split())


LIKES = re.compile(r"\b(?:loves?|enjoys?|likes?|is (?:really |always )?(?:into|mad about|keen on|off|working)|"
                   r"(?:'s|is) (?:mad|crazy) about|is always|spends [^.]{0,40}? on|has (?:just |recently )?(?:started|"
                   r"bought|got into|taken up)|is learning|collects?|keeps?|plays?|grows?|cycles|runs|walks|swims|"
                   r"reads|paints|bakes|cooks)\s+(?P<what>[^.;]+)", re.I)
