"""The answer an item's own content gives a choice, when it gives one."""

from __future__ import annotations

import re
from functools import lru_cache

CUES: dict[str, tuple[str, ...]] = {  # an option word -> words (stems) that speak for it
    "positive": ("love", "great", "amaz", "best", "happy", "wonderful", "excellent", "gorgeous", "adore", "thank",
                 "good", "perfect", "enjoy", "fantastic", "beautiful", "delight", "awesome", "recommend", "glad",
                 "pleased", "brilliant", "superb", "nice", "lovely", "impress", "satisfied", "worth it", "fabulous",
                 "outstanding", "like a charm", "favourite", "favorite", "incredibl", "terrific", "joy", "fun",
                 "comfortabl", "reliabl", "friendly", "helpful", "smooth", "easy", "works well", "five stars"),
    "negative": ("hate", "awful", "terribl", "broke", "late", "crush", "disappoint", "rude", "worst", "waste",
                 "bad", "poor", "horribl", "annoy", "useless", "angry", "never again", "dirty", "forever",
                 "not worth", "snapped", "ripped", "faulty", "defect", "damag", "cheap", "nobody", "ignor", "slow",
                 "refund", "complain", "unhappy", "frustrat", "mess", "fail", "problem", "sucks", "pathetic",
                 "overpriced", "leak", "stopped working", "doesn't work", "does not work", "one star"),
    "anger": ("angry", "furious", "mad", "rage", "how dare", "outrag", "annoy", "livid", "lied", "fed up", "sick of",
              "infuriat", "irritat", "unacceptabl", "yell", "scream", "hate"),
    "disgust": ("disgust", "revolting", "gross", "rotten", "vomit", "throw up", "nasty", "filthy", "smell", "stink",
                "cockroach", "mould", "mold", "slimy", "maggot", "sickening", "repuls", "dirty"),
    "fear": ("afraid", "scared", "terrifi", "fear", "frighten", "nervous", "anxious", "panic", "worried", "dark",
             "shaking", "trembl", "dread", "horror", "threat", "danger", "alarm", "heart pound"),
    "happiness": ("happy", "joy", "celebrat", "won", "laugh", "wonderful", "delight", "glad", "excit", "overjoy",
                  "married", "thrilled", "proud", "smil", "love", "cheer", "great day", "best day"),
    "sadness": ("sad", "cry", "passed away", "miss", "lonely", "grief", "tears", "heartbroken", "died", "death",
                "funeral", "empty", "lost", "unhappy", "depress", "sorrow", "mourn", "gone forever"),
    "surprise": ("surpris", "wow", "unexpect", "never expected", "no idea", "sudden", "shock", "did not see",
                 "didn't see", "cannot believe", "can't believe", "out of nowhere", "astonish", "amazed", "whoa"),
    "purchase": ("buy", "order", "purchas", "add to", "gift card", "sell", "get one", "checkout", "pay for",
                 "subscribe", "in stock", "i need", "i'd like", "i would like", "more packs", "how much"),
    "return": ("return", "refund", "send back", "send them back", "send it back", "exchange", "money back",
               "cancel my order", "too small", "too big", "doesn't fit", "does not fit", "wrong size", "damaged"),
}
# what a review says of an aspect a box names ("Price", "Staff", "Delivery"): our own short lists
ASPECTS = {"price": ("price", "cost", "expensiv", "cheap", "pricey", "overpriced", "bargain", "value", "money",
                     "afford", "paid", "pay", "£", "$", "€"),
           "staff": ("staff", "waiter", "waitress", "server", "service", "rude", "friendly", "helpful", "manager",
                     "receptionist", "employee", "cashier", "host"),
           "food": ("food", "taste", "tasty", "delicious", "bland", "flavour", "flavor", "meal", "dish", "cooked",
                    "fresh", "soggy", "burnt", "portion", "menu"),
           "delivery": ("deliver", "arrived", "arrival", "shipping", "courier", "parcel", "package", "postman",
                        "dispatch", "tracking"),
           "clean": ("clean", "dirty", "spotless", "filthy", "dust", "smell", "stain", "hygien", "tidy", "grubby"),
           "location": ("location", "located", "nearby", "close to", "far from", "walk", "central", "station",
                        "neighbourhood", "view"),
           "noise": ("noise", "noisy", "loud", "quiet", "peaceful", "traffic"),
           "size": ("size", "fit", "fits", "small", "large", "tight", "loose", "big", "tiny", "roomy", "spacious"),
           "comfort": ("comfort", "comfy", "uncomfortabl", "soft", "cosy", "cozy"),
           "speed": ("wait", "waited", "slow", "quick", "fast", "queue", "minutes", "hours", "late", "prompt"),
           "quality": ("quality", "broke", "sturdy", "flimsy", "cheaply made", "well made", "durabl", "fell apart")}
for _aspect, _synonyms in (("cost", "price"), ("value", "price"), ("service", "staff"), ("taste", "food"),
                           ("shipping", "delivery"), ("cleanliness", "clean"), ("fit", "size"), ("wait", "speed"),
                           ("waiting", "speed"), ("durability", "quality")):
    ASPECTS[_aspect] = ASPECTS[_synonyms]
CUES["joy"], CUES["happy"], CUES["sad"], CUES["angry"] = CUES["happiness"], CUES["happiness"], CUES["sadness"], \
    CUES["anger"]
# Stress ("I can't pay my rent" is stressful, "a nice walk with my dog" is not): our own short lists
STRESS = ("stress", "rent", "can't pay", "cannot pay", "bills", "debt", "deadline", "exam", "fired", "lost my job",
          "evict", "overwhelm", "pressure", "worried", "anxious", "panic", "hospital", "sick", "divorce", "argument",
          "late again", "behind on", "broke", "no money", "loan", "overtime", "too much work", "can't sleep",
          "nervous", "afraid", "scared", "lawsuit", "court", "layoff", "surgery", "fight")
CALM = ("nice", "walk", "relax", "calm", "peaceful", "enjoy", "lovely", "vacation", "holiday", "beach", "sunny",
        "nap", "cozy", "cosy", "tea", "garden", "read a book", "music", "friends", "dog", "cat", "park", "happy",
        "quiet", "slept well", "weekend", "fun", "laugh", "smile", "great")
for _word in ("stress", "stressful", "stressed", "stressing"):
    CUES[_word] = STRESS
for _word in ("calm", "relaxed", "relaxing", "unstressed"):
    CUES[_word] = CALM
NEGATED = re.compile(r"^(not|no|non|un)[\s-]+(?P<word>\w+)")
OTHER = ("other", "none", "none of these", "none of the above", "something else")
NOT_CONTENT = frozenset(("cannot", "determine", "other", "none", "with", "from", "that", "this", "there", "these",
                         "those", "what", "which", "does", "below", "above", "item", "items", "following", "image",
                         "photo", "picture", "text", "someone", "person", "relevant", "searched", "search",
                         "contain", "contains", "show", "shows", "about", "would", "could", "should", "your"))
FULL_SENTENCE = 6  # words: shorter text ("Review number 5.") states nothing either way


def stem(word: str) -> str:
    for end in ("ing", "ed", "es", "s", "ly"):
        if len(word) > len(end) + 3 and word.endswith(end):
            return word[: -len(end)]
    return word


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z][a-z']+", text.lower())


def _cued(cue: str, text: str, stems: set[str]) -> bool:
    """A phrase in the text; a word as a word or its inflection; a cue of five letters or more as a word's start."""
    if " " in cue:
        return re.search(rf"\b{cue}\b", text) is not None
    return not _forms(cue).isdisjoint(stems) or (len(cue) >= 5 and any(s.startswith(cue) for s in stems))


@lru_cache(maxsize=1024)  # the lexicon's cues: a few hundred
def _forms(cue: str) -> frozenset[str]:
    """A cue word and its inflections ("loved", "loving" for "love")."""
    past = "d" if cue.endswith("e") else "ed"  # "loved", "annoyed"; never "fund" for "fun"
    return frozenset({cue, stem(cue), *(cue + end for end in ("s", past, "es", "ing", "ly")), cue.rstrip("e") + "ing"})


def _support(option: str, text: str, stems: set[str]) -> int:
    """Evidence for an option: its words and cues in the text; a negated stress option by the calm lexicon."""
    if negated := NEGATED.match(option.strip().lower()):
        opposite = CALM if CUES.get(negated["word"]) is STRESS else ()
        return sum(1 for c in opposite if _cued(c, text, stems))
    own = [stem(w) for w in _words(option) if len(w) >= 3 and w not in NOT_CONTENT]
    cues = [c for w in _words(option) for c in CUES.get(w, ()) + ASPECTS.get(w, ())]
    return sum(1 for w in own if w in stems) + sum(1 for c in cues if _cued(c, text, stems))


NUMBERED = re.compile(r"(\d+)\s*$")


def passage_choice(texts: list[str], options: list[str]) -> list[str] | None:
    """Options that number the item's texts after its first: the text sharing most words with the first."""
    numbered = {o: int(m[1]) for o in options if (m := NUMBERED.search(o.strip()))}
    if len(numbered) < 2 or len(texts) != max(numbered.values()) + 1 or min(numbered.values()) < 1:
        return None
    query = {stem(w) for w in _words(texts[0]) if len(w) >= 4 and w not in NOT_CONTENT}
    scores = {o: len(query & {stem(w) for w in _words(texts[n])}) for o, n in numbered.items()}
    best = max(scores.values())
    if best == 0:
        return [o for o in options if o not in numbered and o.strip().lower() in OTHER][:1] or None
    return [o for o, s in scores.items() if s == best]


def content_answers(texts: list[str], options: list[str], question: str = "") -> list[str] | None:
    """The options the item's content supports best (None: it says nothing about them)."""
    found = _content_answers(tuple(texts), tuple(options), question)
    return None if found is None else list(found)


# every worker given an item reads the same content: read once per item, field and options
@lru_cache(maxsize=1024)  # workers given an item come close together: a window of items, not all of them
def _content_answers(texts: tuple[str, ...], options: tuple[str, ...], question: str) -> tuple[str, ...] | None:
    if (passages := passage_choice(list(texts), list(options))) is not None:
        return tuple(passages)
    text = " ".join(texts).lower()
    words = _words(text)
    if not words or len(options) < 2:
        return None
    stems = {stem(w) for w in words}
    lowered = [o.strip().lower() for o in options]
    if {"yes", "no"} <= set(lowered):
        asked = {stem(w) for w in _words(question) if len(w) >= 4 and w not in NOT_CONTENT}
        return (options[lowered.index("yes" if asked & stems else "no")],) if asked else None
    scores = [_support(o, text, stems) for o in options]
    best = max(scores)
    if best > 0:
        return tuple(o for o, s in zip(options, scores, strict=True) if s == best)
    if "neutral" in lowered and len(words) >= FULL_SENTENCE:
        return (options[lowered.index("neutral")],)
    if (other := [o for o, low in zip(options, lowered, strict=True) if low in OTHER]) and len(words) >= 3:
        return tuple(other[:1])
    return None


def mentioned(texts: list[str], labels: list[str]) -> list[bool] | None:
    """Whether the item's text speaks of each ticked box's label ("Price": "overpriced"); None if no label has words."""
    if not any(w not in NOT_CONTENT and (len(w) >= 3 or w in CUES) for lab in labels for w in _words(lab)):
        return None
    text = " ".join(texts).lower()
    stems = {stem(w) for w in _words(text)}
    return [_support(lab, text, stems) > 0 or any(c in text for w in _words(lab) for c in ASPECTS.get(w, ())
                                                      if not c.isalpha()) for lab in labels]


# a question asking who agreed, offered or was given something to do, and how a sentence says its person did
COMMITTING = ("agree", "volunteer", "offer", "promis", "task", "commit", "assign", "responsib", "undert")
COMMITS = ("agree", "offer", "volunteer", "promis", "will", "take on", "took on", "going to", "said she would",
           "said he would", "said they would", "undertook", "assigned", "is to", "are to")
DECLINES = re.compile(r"\b(?:not|never|declin\w*|refus\w*|unable|cannot)\b|n't\b", re.I)
INSTRUCTING = frozenset(("tick", "apply", "least", "box", "boxes", "select", "choose", "check", "many", "all"))


def named_in_answer(texts: list[str], labels: list[str], question: str) -> list[bool] | None:
    """Options naming who or what the item itself names ("Who agreed to take on a task?" over the people present):
    an option holds where a sentence naming it says what the question asks (its words; a commitment's cues); None
    unless the item names every option and the question asks something of them."""
    shown = {w for lab in labels for w in _words(lab)}  # a question read with its options: their words are not asked
    asked = {stem(w) for w in _words(question) if len(w) >= 4 and w not in NOT_CONTENT | INSTRUCTING | shown}
    cues = COMMITS if any(w.startswith(c[:4]) for w in asked for c in COMMITTING) else ()
    sentences = [s for t in texts for s in re.split(r"(?<=[.!?;:])\s+|\n+", t) if s.strip()]

    def names(label: str, sentence: str) -> bool:
        return any(re.search(rf"\b{re.escape(w)}\b", sentence) for w in re.findall(r"[A-Z][\w'-]+", label))

    def says(sentence: str) -> bool:
        low = sentence.lower()
        stems = {stem(w) for w in _words(low)}
        return not DECLINES.search(low) and (not asked.isdisjoint(stems) or any(_cued(c, low, stems) for c in cues))
    if not asked or not labels or not all(any(names(lab, s) for s in sentences) for lab in labels):
        return None
    return [any(names(lab, s) and says(s) for s in sentences) for lab in labels]
