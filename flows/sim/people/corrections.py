"""A corrected sentence, and whether the page wants one after the worker's own choice."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable

from flows.sim.people.summaries import QUOTES, reword

SPELLING = {"recieve": "receive", "recieved": "received", "definately": "definitely", "seperate": "separate",
            "occured": "occurred", "untill": "until", "tommorow": "tomorrow", "wich": "which", "beleive": "believe",
            "accomodation": "accommodation", "goverment": "government", "wierd": "weird", "alot": "a lot",
            "freind": "friend", "begining": "beginning", "buyed": "bought", "goed": "went", "teached": "taught",
            "acheive": "achieve", "adress": "address", "arguement": "argument", "calender": "calendar",
            "enviroment": "environment", "existance": "existence", "finaly": "finally", "grammer": "grammar",
            "happend": "happened", "independant": "independent", "knowlege": "knowledge", "libary": "library",
            "neccessary": "necessary", "occassion": "occasion", "posible": "possible", "reccomend": "recommend",
            "sucess": "success", "suprise": "surprise", "truely": "truly", "wether": "whether", "writting": "writing",
            "childrens": "children's", "mens": "men's", "womens": "women's", "peoples": "people's"}
AGREE = {"have": "has", "do": "does", "go": "goes", "don't": "doesn't", "were": "was", "was": "were",
         "has": "have", "does": "do", "goes": "go", "are": "is", "is": "are"}
DONE = {"went": "gone", "came": "come", "ate": "eaten", "wrote": "written", "took": "taken", "did": "done",
        "saw": "seen", "gave": "given", "broke": "broken", "spoke": "spoken", "drove": "driven", "began": "begun",
        "ran": "run", "drank": "drunk", "forgot": "forgotten", "chose": "chosen", "stole": "stolen", "fell": "fallen"}
BASE = {"went": "go", "came": "come", "saw": "see", "took": "take", "ate": "eat", "gave": "give", "bought": "buy"}
OF_MANY = r"(?:(?:the|a|this|that) \w+[^s\W]|each|one|neither|either|none) of (?:the |my |our |these |those )?\w+s"
DOING = ("going|coming|doing|making|getting|trying|taking|looking|leaving|being|having|working|playing|running|"
         "waiting|staying|moving|talking|planning|thinking|starting|bringing|buying|selling|living|using|visiting")
THEN = r"(?:would|are|were|will|have|had|went|can|could|should|like|love|want)\b"
FIXES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (  # common slips
    (re.compile(r"\b(could|should|would|must|might) of\b", re.I), r"\1 have"),
    (re.compile(rf"\b({OF_MANY}) (are|have|were|do|don't)\b", re.I), lambda m: f"{m[1]} {AGREE[m[2].lower()]}"),
    (re.compile(r"\b(he|she|it|(?!(?:They|We|You|I|The|My|His|Her)\b)[A-Z][a-z]+|(?i:my|his|her|the) "
                r"(?!(?:children|people|men|women|police)\b)\w+(?<!s)) (have|do|go|don't|were)\b"),
     lambda m: f"{m[1]} {AGREE[m[2]]}"),
    (re.compile(r"\b(you|we|they) (was|has|does|goes)\b", re.I), lambda m: f"{m[1]} {AGREE[m[2]]}"),
    (re.compile(r"\b((?:the|my|our|your|his|her|their|these|those) (?:\w+ )?(?:children|people|men|women|police|"
                r"(?!news\b)\w+[^suiy\W]s)(?: (?:on|in|at|of|from|near|by|for|with) (?:the |a |our )?\w+(?: \w+)?)?)"
                r" was\b", re.I), r"\1 were"),
    (re.compile(r"\b(ha(?:s|ve|d)(?: not| never| already| just)?) (" + "|".join(DONE) + r")\b", re.I),
     lambda m: f"{m[1]} {DONE[m[2].lower()]}"),
    (re.compile(r"\b((?i:I|we|they|you|he|she)) (seen|done)\b"),
     lambda m: f"{m[1]} {'saw' if m[2] == 'seen' else 'did'}"),
    (re.compile(r"\b(didn't|did not|doesn't|does not|don't|do not) (" + "|".join(BASE) + r")\b", re.I),
     lambda m: f"{m[1]} {BASE[m[2].lower()]}"),
    (re.compile(r"^Me and ((?:my|his|her|our|their|the) (?:\w+ ){0,2}?\w+) (?=" + THEN + ")"),
     lambda m: f"{m[1].capitalize()} and I "),
    (re.compile(r"\b(\w+) and me (?=" + THEN + ")"), r"\1 and I "),
    (re.compile(r"\bI (has|does|goes)\b"), lambda m: f"I {AGREE[m[1]]}"),
    (re.compile(r"\b([Aa]) ([aeiou]\w*)"), r"\1n \2"),
    (re.compile(r"\b([Aa])n ([b-df-hj-np-tv-z]\w*)"), r"\1 \2"),
    (re.compile(r"\b(\w+) \1\b", re.I), r"\1"),
    (re.compile(r"\b([Tt])heir (is|are|was|were)\b"), r"\1here \2"),
    (re.compile(rf"\b([Tt])h(?:ere|eir) (not|{DOING})\b"), r"\1hey're \2"),
    (re.compile(r"\b([Tt])o (much|many|late|early|big|small|long|far|often)\b"), r"\1oo \2"),
    (re.compile(rf"\b([Yy])our (welcome|right|not|{DOING})\b"), r"\1ou're \2"),
    (re.compile(r"\bits (a|going|raining|been|not)\b"), r"it's \1"),
    (re.compile(r"\b(?:(is|was) )?less (people|\w+s) (?=on|in|at|than|are|were|came|went|who|this|since|now)", re.I),
     lambda m: f"{AGREE.get((m[1] or '').lower(), '')} fewer {m[2]} ".lstrip()),
    (re.compile(r"\b(more|less|better|worse|rather|other|(?!(?:after|later|never|over|under|ever)\b)\w{2,}er) "
                r"then\b", re.I), r"\1 than"),
    (re.compile(r"\b(" + "|".join(SPELLING) + r")\b", re.I),
     lambda m: (str.capitalize if m[1][0].isupper() else str)(SPELLING[m[1].lower()])),
)
EMPTY_WHEN = re.compile(r"(?:leave (?:it|this|the (?:box|field|text ?box|space))? ?(?:empty|blank)|"
                        r"(?:do not|don't) (?:write|type|fill)[^.;]*?) (?:if|when|where) (?P<c>[^.;]+)|"
                        r"(?:if|when) (?P<d>[^,.;]+),? (?:leave|skip)", re.I)
# a box asked only after one answer: "only if you answered 'No'", "If no, what is wrong?", "If not: which part ..."
ONLY_WHEN = re.compile(r"\b(?:only )?if (?:you (?:answered|chose|selected|picked|said|clicked) (?P<v>[\"'“]?\w+)|"
                       r"(?P<n>yes|no|not)\s*[,:;.)\-–])", re.I)
IF_SO = re.compile(r"\s*(?:only )?if (?P<c>[^,.;:]{1,40})[,:]", re.I)
FINE = re.compile(r"\b(correct|fine|right|ok|okay|no (?:errors?|mistakes?|problems?)|nothing (?:to fix|wrong)|"
                  r"grammatical|free of)\b", re.I)
FAULT = re.compile(r"\b(errors?|mistakes?|problems?|wrong|incorrect|ungrammatical|typos?|issues?|fix(?:es|ing)?|"
                   r"needs? (?:a |some )?(?:small |minor )?(?:changes?|corrections?|edits?))\b", re.I)
AGAINST = re.compile(r"\b(?:with|again|using|from|to|accor|compa|match|by)\b")  # (five-letter stems)
SMALL = frozenset(("with", "and", "from", "into", "over", "under", "your", "their", "this", "that", "these", "those",
                   "some", "each", "very", "than", "then", "what", "when", "which", "have", "been", "were", "also"))


def _bare(word: str) -> str:
    return word.strip(".,;:!?()\"'").lower()


def _stems(text: str) -> set[str]:
    return {w[:5] for w in map(_bare, text.split()) if len(w) >= 4 and w not in SMALL}


def to_correct(question: str, texts: list[str], labels: dict[str, str]) -> tuple[str, str]:
    """The text a correction box asks about (the one whose label its question names: "the corrected English line"
    -> "Our English"), and another version shown beside it (an original it translates, the facts it must agree
    with: "rewrite the notice so that it agrees with the timetable"), or ""."""
    leads = {t: h for h, t in itertools.pairwise(texts) if h.endswith(":") and len(h.split()) <= 8}  # "Notice:"
    labels = {**leads, **labels}
    texts = [*texts, *(t for t in labels if t not in texts and len(t.split()) < 3)]  # a dish name is short
    asked = [w[:5] for w in map(_bare, question.split())]
    at = {t: next((k for k, w in enumerate(asked) if w in _stems(labels.get(t, ""))), -1) for t in texts}
    named = sorted((t for t in texts if at[t] >= 0), key=lambda t: at[t])
    facts = [t for t in named if AGAINST.search(" ".join(asked[max(0, at[t] - 3):at[t]]))]  # "agrees with the X"
    if len(named) >= 2 or facts:  # the text to fix, and the facts it must agree with (the lead-in's too)
        version = (facts or named[1:])[0]
        target = next((t for t in named if t != version), "") or max((t for t in texts if t != version), key=len)
        return target, f"{leads.get(version, '')} {version}".strip()
    target = max(named or texts, key=len) if texts else ""
    size = len(target.split())
    beside = [t for t in texts if t != target and target in labels and t in labels
              and size / 2 <= len(t.split()) <= size * 2]
    order = list(labels)  # (page order: the version a page shows beside the text is next to it)
    return target, min(beside, key=lambda t: abs(order.index(t) - order.index(target))) if named and beside else ""


def corrected(sentence: str, rng: random.Random, version: str = "", one: bool = False) -> str:
    """``sentence`` with its mistake fixed, or (none found) changed as a person who believes it has one;
    ``version``: the text it must agree with, read beside it; ``one``: only the sentence fixed."""
    text = sentence.strip()
    if version and (fixed := agreeing(text, version, one)):
        return fixed
    for pattern, fix in FIXES:
        fixed = pattern.sub(fix, text, count=1)
        if fixed != text:
            return fixed
    if (plainer := reword(text, rng, 1.0)) != text:  # no mistake of ours found: a word put another way
        return plainer
    text = text[:1].upper() + text[1:]
    return text[:-1] + ";" if text.endswith(".") and text.count(".") == 1 and "," in text else \
        (text.rstrip(".!?") + ("!" if text.endswith(".") else "."))


TOKEN = re.compile(r"\d[\d:.,/-]*\d|\d|[\w'&-]+|[.!?;,]")
SAME = dict.fromkeys(("until", "till", "through", "-", "and"), "to")  # "06:00 until 20:00" is "06:00 to 20:00"
DAY = re.compile(r"^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)")


def _key(token: str) -> str:
    return token if token[:1].isdigit() else SAME.get(token.lower(), token.lower()[:4])


def _kind(tokens: list[str], k: int) -> str:
    """A fact's kind ("" for none): a time, a number, a day, a name (a capital not opening a sentence)."""
    w = tokens[k]
    if w[:1].isdigit():
        return "time" if ":" in w else "number"
    if DAY.match(w.lower()) and w[:1].isupper():
        return "day" if w.lower().endswith(("day", "days")) else "month"
    return "name" if w[:1].isupper() and k and tokens[k - 1] not in ".!?" else ""


def _near(tokens: list[str], k: int) -> tuple[str, str]:
    return _key(tokens[k - 1]) if k else "", _key(tokens[k + 1]) if k + 1 < len(tokens) else ""


def _swap(said: list[str], k: int, facts: list[str], whole: set[str]) -> str:
    """The fact of ``facts`` (the other text's) that fact ``k`` of ``said`` should be: one of its kind that the words
    around it fit better than they fit this fact there (one the text does not have first), or ""."""
    kind, key, near = _kind(said, k), _key(said[k]), _near(said, k)

    def fit(j: int) -> int:
        return sum(a == b != "" for a, b in zip(near, _near(facts, j), strict=True))
    own = max((fit(j) for j, f in enumerate(facts) if _key(f) == key), default=0)
    found = [(fit(j), _key(f) not in whole, -abs(j / len(facts) - k / len(said)), j) for j, f in enumerate(facts)
             if _kind(facts, j) == kind and _key(f) != key]
    best = max(found, default=(0, False, 0, -1))
    return facts[best[-1]] if best[0] > own else ""


def agreeing(text: str, version: str, one: bool) -> str:
    """``text``'s sentence that disagrees with ``version`` on a number, time, day or name, put right (the whole text,
    unless ``one``); "" where they agree on every such fact."""
    facts, sentences = TOKEN.findall(version), re.split(r"(?<=[.!?])\s+(?=[A-Z0-9])", text)
    whole = {_key(t) for t in TOKEN.findall(text)}
    best, fixed = 0, ""
    for n, sentence in enumerate(sentences):
        said = TOKEN.findall(sentence)
        swaps = {k: new for k in range(len(said)) if _kind(said, k) and (new := _swap(said, k, facts, whole))}
        if len(swaps) > best:
            put = _put(sentence, swaps)
            best, fixed = len(swaps), put if one else " ".join([*sentences[:n], put, *sentences[n + 1:]])
    return fixed


def _put(sentence: str, swaps: dict[int, str]) -> str:
    at = itertools.count()  # (the same tokens, in the same order, as TOKEN finds them)
    return TOKEN.sub(lambda m: swaps.get(next(at), m[0]), sentence)


NOT_ORDERS = frozenset(("i", "you", "your", "we", "the", "a", "an", "this", "that", "these", "those", "it", "he", "she",
                        "they", "my", "our", "there", "his", "her", "its", "their", "please", "could", "would", "can"))
SOFTENERS = ("Just a note: {s}", "I noticed {s}", "Sorry to say it, but {s}", "Just so you know, {s}")
ASKING = ("Could you please {s}?", "Would you mind if I asked you to {s}?", "Please could you {s}?",
          "Would you please {s}?")
THANKS = ("Thank you!", "Thanks so much.", "I really appreciate it.", "Many thanks.")
HARSH = ((re.compile(r"\s*\b(?:right )?now\b|\s*\b(?:immediately|at once|right away)\b", re.I), " when you can"),
         (re.compile(r"\s*\bagain\b", re.I), ""), (re.compile(r"!+"), "."))


def politer(text: str, rng: random.Random) -> str:
    """``text`` said more kindly, asking for the same: orders as favours, sentences softened, thanks at the end."""
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+", text.strip()):
        for pattern, softer in HARSH:
            sentence = pattern.sub(softer, sentence)
        said = sentence.strip().rstrip(".?")
        if not said:
            continue
        first = said.split()[0].lower()
        if first in ("don't", "do") and said.lower().startswith(("don't ", "do not ")):
            said, first = "try not to " + said.split(" ", 2 if first == "do" else 1)[-1], "try"
        frames = SOFTENERS if first in NOT_ORDERS or first.endswith(("ed", "'s")) else ASKING
        lower = said if first == "i" else said[:1].lower() + said[1:]
        out.append(rng.choice(frames).format(s=lower) + ("" if frames is ASKING else "."))
    return " ".join([*out, rng.choice(THANKS)])


def says_fine(chosen: str, choice_asks: str) -> bool:
    """Whether the worker's choice (label or value) said the item is fine ("Yes" to "Is it correct?")."""
    if re.search(r"\bno (?:errors?|mistakes?|problems?)", chosen, re.I):
        return True
    if FAULT.search(chosen) or FINE.search(chosen):
        return not FAULT.search(chosen)
    yes = bool(re.match(r"\s*(yes|true)\b", chosen, re.I))
    return yes != (bool(FAULT.search(choice_asks)) and not re.search(r"free of|without", choice_asks, re.I))


def asked_when(question: str, chosen: str) -> bool | None:
    """Whether a box asked only after one answer is asked of a worker who chose ``chosen``; None: of everyone."""
    empty = EMPTY_WHEN.search(question)
    if not (m := ONLY_WHEN.search(question)) or (empty and empty.start() <= m.start() <= empty.end()):
        return None  # ("leave it empty if you chose ...": when not to write)
    said = (m["v"] or "").strip(QUOTES) or m["n"].lower().replace("not", "no")
    return bool(re.search(rf"\b{re.escape(said)}\b", chosen, re.I))


def left_empty(question: str, chosen: str, choice_asks: str) -> bool:
    """Whether the box's own words ask a person who chose ``chosen`` to leave it empty."""
    if (when := asked_when(question, chosen)) is not None:
        return not when
    if not (m := EMPTY_WHEN.search(question)):  # "If wrong, type ...": asked only while the condition holds
        said = IF_SO.match(question)
        return bool(said and (FAULT.search(said["c"]) or FINE.search(said["c"])) and
                    says_fine(chosen, choice_asks) == bool(FAULT.search(said["c"])))
    condition = m["c"] or m["d"]
    if said := re.search(r"you (?:answered|chose|selected|picked|said) (?:[\"'“]([^\"'”]+)|(\w+))", condition, re.I):
        return bool(re.search(rf"\b{re.escape(said[1] or said[2])}\b", chosen.replace("_", " "), re.I))
    fine = bool(re.search(r"\bno (?:error|mistake|problem)|nothing", condition, re.I)) or \
        (bool(FINE.search(condition)) and not FAULT.search(condition))
    return says_fine(chosen, choice_asks) == fine
