"""Answers in the shape a box's own words ask, read off their verb and noun, not off a domain: hashtags, emoji, a
list of N things, a name for the item, an amount in words, a text put in the past tense, a line whose words start
with a sound. Each is built from the item's own salient words and meets the count the words state; a box asking
none of these shapes gets "" (the other writers answer it)."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from flows.sim.people.made_texts import (
    alliterating,
    amount_words,
    own_item,
    past_tense,
    salient,
    suggestion,
)
from flows.sim.people.stated_limits import LEAST, MOST, NUMBERS, SPAN

COUNT = r"(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)"
RANGE = re.compile(r"\b(?P<a>\d{1,2}|one|two|three|four|five|six)\s*(?:-|–|to)\s*(?P<b>\d{1,2}|two|three|four|five|"
                   r"six|seven|eight|nine|ten)\s+(?P<u>[a-z]+)", re.I)
HASHTAGS = re.compile(rf"\b(?:{COUNT}\s+)?hashtags?\b", re.I)
EMOJI = re.compile(r"\bemoji", re.I)
IN_WORDS = re.compile(r"\b(?:amount|number|figure|sum|price|total)s?\b[^.?]{0,20}\bin words\b|\bin words\b[^.?]{0,40}"
                      r"\b(?:amount|number|pounds|dollars|euros)\b|\bspell(?:ed|t)? out\b", re.I)
PAST = re.compile(r"\bpast tense\b|\bin the past\b", re.I)
REWRITE = re.compile(r"\bre-?writ\w*\b|\brephras\w*\b|\bput (?:it|this) in\b|\bturn (?:it|this) into\b", re.I)
SOUND = re.compile(r"\b(?:start|begin)s? with (?:the )?(?:sound|letter)s?\s*[\"“']?(?P<s>[a-z]{1,3})\b", re.I)
SUGGEST = re.compile(r"\b(?:suggest|recommend|choose|pick)\b (?:one|a|an)\b (?P<thing>[a-z]+)", re.I)
NAME = re.compile(r"\b(?:make up|invent|come up with|think of|suggest|give|create|choose|pick|write)\b[^.?]{0,25}"
                  r"\b(?:name|title|nickname)\b", re.I)
# "three sounds", not a limit ("2 to 6 words", "5 minutes")
LIST = re.compile(rf"(?<!to )(?<!-)\b{COUNT}\s+(?!(?:words|characters|chars|letters|sentences|lines|digits|minutes|"
                  r"seconds|hours|days|times|stars|points)\b)(?P<thing>[a-z]+s)\b", re.I)
BY_SPACES = re.compile(r"\b(?:space|spaces) between\b|\bseparated by (?:a )?spaces?\b", re.I)


# what a person sees in a few common things (the first matching noun of the item's text wins a place)
EMOJI_OF = {"sea": "🌊", "ferry": "⛴️", "boat": "⛵", "ship": "🚢", "island": "🏝️", "beach": "🏖️", "sun": "☀️",
            "summer": "🌅", "winter": "❄️", "snow": "❄️", "rain": "🌧️", "storm": "⛈️", "father": "👨", "dad": "👨",
            "mother": "👩", "mum": "👩", "daughter": "👧", "son": "👦", "girl": "👧", "boy": "👦", "child": "🧒",
            "children": "🧒", "baby": "👶", "old": "👴", "retired": "👴", "grandmother": "👵", "grandfather": "👴",
            "love": "❤️", "wedding": "💍", "heart": "❤️", "goat": "🐐", "dog": "🐶", "cat": "🐱", "horse": "🐴",
            "farm": "🚜", "cow": "🐄", "sheep": "🐑", "pig": "🐷", "chicken": "🐔", "bird": "🐦", "fish": "🐟",
            "city": "🏙️", "town": "🏘️", "village": "🏡", "house": "🏠", "home": "🏠", "school": "🏫",
            "teacher": "👩‍🏫", "chef": "👨‍🍳", "cook": "👨‍🍳", "restaurant": "🍽️", "food": "🍲", "cake": "🎂",
            "bake": "🍞", "bread": "🍞", "wine": "🍷", "coffee": "☕", "money": "💰", "bank": "🏦", "robbery": "💰",
            "thief": "🦹", "police": "👮", "detective": "🕵️", "murder": "🔪", "crime": "🚨", "prison": "⛓️",
            "war": "⚔️", "soldier": "🪖", "king": "👑", "queen": "👑", "prize": "🏆", "win": "🏆", "show": "🏆",
            "race": "🏁", "football": "⚽", "team": "⚽", "music": "🎵", "band": "🎸", "singer": "🎤", "song": "🎵",
            "dance": "💃", "film": "🎬", "book": "📖", "letter": "✉️", "phone": "📱", "computer": "💻",
            "robot": "🤖", "space": "🚀", "astronaut": "🚀", "moon": "🌙", "star": "⭐", "night": "🌙",
            "ghost": "👻", "wedding_cake": "🎂", "hospital": "🏥", "doctor": "👩‍⚕️", "sick": "🤒", "ill": "🤒",
            "death": "💀", "dies": "💀", "funeral": "⚰️", "car": "🚗", "train": "🚆", "plane": "✈️",
            "travel": "✈️", "trip": "🧳", "mountain": "⛰️", "forest": "🌲", "garden": "🌻", "flower": "🌸",
            "tree": "🌳", "lighthouse": "🗼", "river": "🏞️", "lost": "🔍", "search": "🔍", "secret": "🤫",
            "laugh": "😂", "funny": "😂", "comedy": "😂", "sad": "😢", "cry": "😢", "angry": "😠", "fight": "🥊",
            "friend": "🤝", "friends": "👯", "party": "🎉", "birthday": "🎂", "christmas": "🎄", "holiday": "🏖️",
            "office": "🏢", "work": "💼", "accountant": "💼", "job": "💼", "fire": "🔥", "ice": "🧊",
            "hotel": "🏨", "wolf": "🐺", "bear": "🐻", "whale": "🐋", "shark": "🦈", "alien": "👽", "magic": "✨",
            "witch": "🧙", "dragon": "🐉", "time": "⏰", "clock": "⏰", "piano": "🎹", "paint": "🎨", "art": "🎨"}
# what one hears near a few common kinds of place, for a list of sounds
SOUNDS_OF = {"sea": "waves", "bay": "waves", "beach": "waves", "coast": "gulls", "cliff": "gulls",
             "harbour": "boats", "wood": "owls", "woodland": "owls", "forest": "owls", "trees": "wind in the trees",
             "river": "running water",
             "stream": "running water", "lake": "ducks", "farm": "sheep", "sheep": "sheep bleating", "cows": "cows",
             "road": "traffic", "town": "traffic", "city": "traffic", "railway": "trains", "station": "trains",
             "fire": "crackling fire", "campfire": "crackling fire", "moor": "wind", "moorland": "wind",
             "hill": "wind", "dunes": "waves", "park": "children", "pub": "people talking", "festival": "music"}
NIGHT = ("wind", "owls", "rain", "foxes", "crickets")
# a colour as a person names it: its hue's things, its lightness's mood
HUES = (("red", ("Poppy", "Ember", "Cherry", "Brick")), ("orange", ("Apricot", "Marigold", "Amber", "Copper")),
        ("yellow", ("Honey", "Sunflower", "Buttercup", "Lemon")), ("green", ("Meadow", "Fern", "Moss", "Sage")),
        ("teal", ("Lagoon", "Seaglass", "Kingfisher", "Juniper")), ("blue", ("Harbour", "Cornflower", "Ocean", "Sky")),
        ("purple", ("Heather", "Plum", "Lavender", "Violet")), ("pink", ("Blossom", "Rose", "Peony", "Candyfloss")))
MOODS = {"pale": ("Mist", "Whisper", "Morning", "Haze"), "deep": ("Midnight", "Velvet", "Forest", "Dusk"),
         "grey": ("Pebble", "Slate", "Storm", "Flint"), "mid": ("Garden", "Field", "Harvest", "Cottage")}

def around_boxes(positions: dict[str, int], texts: Sequence[tuple[int, str, object]],
                 boxes: list[str]) -> dict[str, str]:
    """Box -> the page's words between the control before it and the one after it (its question and the hint under
    it, as a person reads them together)."""
    marks = sorted(positions.values())
    out = {}
    for name in boxes:
        if (pos := positions.get(name)) is None:
            continue
        low = max((p for p in marks if p < pos), default=-1)
        high = min((p for p in marks if p > pos), default=10**9)
        out[name] = " ".join(t for p, t, _ in texts if low < p < high)
    return out


def box_ask(question: str, around: str) -> str:
    """All a box's words: its question, and the sentences around it that ask or say how to answer (a hint under it;
    never an item's text shown there)."""
    said = [t for t in re.split(r"(?<=[.?!])\s+", around) if (ASKING.match(t) or t.endswith("?")) and t not in question]
    return " ".join([question, *said]).strip()


# a sentence that asks for an answer or says how to give it ("Q2. Suggest three hashtags", "Each hashtag starts ...")
ASKING = re.compile(r"^\W*(?:q?\d{1,2}[.):]\s*|[a-h]\)\s*)?(?:now\s+)?(?:please\s+)?(?:write|suggest|name|list|give|"
                    r"make|retell|tell|describe|re-?write|rephrase|put|type|enter|use|add|choose|pick|think of|imagine|"
                    r"create|invent|come up|say|each|keep|spell|separate)\b", re.I)


UNSURE = "Not sure: the item does not tell me enough to answer this."  # said where the box's own words would be


def echoes_ask(text: str, question: str, shown: Sequence[str] = ()) -> bool:
    """An answer made of the box's own words, which no person gives: its limit ("2 to 4 words", "at most 15 words",
    "separated by commas") or most of its question's words over again (the item's ``shown`` words are the answer's
    to use: a box with no question of its own is read under the item)."""
    if any(p.search(text) for p in (SPAN, LEAST, MOST)) or re.search(r"\bseparated by\b", text, re.I):
        return True
    said = re.findall(r"[a-z]{3,}", text.lower())
    asked = set(re.findall(r"[a-z]{3,}", question.lower())) - set(re.findall(r"[a-z]{3,}", " ".join(shown).lower()))
    return len(said) >= 3 and sum(w in asked for w in said) >= 0.8 * len(said)


def shaped_answer(ask: str, question: str, texts: list[str], page: str, rng: random.Random) -> str:
    """The answer in the shape the box's words name (``ask``: its ``question`` and the hint around it, box_ask), from
    the item's ``texts`` (``page``: all its words; an example in the question is not the item); "" for none."""
    main = max(texts, key=len, default="")
    if HASHTAGS.search(ask):
        return hashtags(main, _count(ask, HASHTAGS, 3), rng)
    if EMOJI.search(ask):
        return emoji(main, _span(ask, "emoji", (3, 5)), rng)
    if IN_WORDS.search(ask) and (told := amount_words(_shown_amount(question, texts, page))):
        return told
    if PAST.search(ask) or (REWRITE.search(ask) and PAST.search(page)):
        return past_tense(own_item(texts, question)) if texts else ""
    if sound := SOUND.search(ask):
        return alliterating(sound["s"].lower(), _span(ask, "words", (6, 8)), main, rng)
    if (wants := SUGGEST.search(ask)) and re.search(r"\bwhy\b", ask, re.I) and \
            (told := suggestion(wants["thing"], texts, page)):
        return told
    if NAME.search(ask):
        return made_name(texts, page, _span(ask, "words", (2, 3)), rng)
    if (listed := LIST.search(_lead(ask))) and 2 <= int(NUMBERS.get(listed["n"].lower(), listed["n"])) <= 10:
        return listing(listed["thing"].lower(), int(NUMBERS.get(listed["n"].lower(), listed["n"])), " ".join(texts),
                       " " if BY_SPACES.search(ask) else ", ")
    return ""


def _lead(ask: str) -> str:
    """The asking words before any example ("e.g. owls, waves"): what a list's count is read off."""
    return re.split(r"\b(?:e\.g\.|for example|such as|like)\b", ask, maxsplit=1, flags=re.I)[0]


def _count(ask: str, pattern: re.Pattern[str], default: int) -> int:
    found = pattern.search(_lead(ask)) or pattern.search(ask)
    n = found["n"] if found and found.groupdict().get("n") else ""
    return int(NUMBERS.get(n.lower(), n)) if n else default


def _span(ask: str, unit: str, default: tuple[int, int]) -> int:
    """How many ``unit`` a person gives where the box states a span ("3 to 6 emoji": 4), else a default's draw."""
    for m in RANGE.finditer(ask):
        if m["u"].lower().startswith(unit[:4]):
            a, b = (int(NUMBERS.get(v.lower(), v)) for v in (m["a"], m["b"]))
            return max(a, min(b, (a + b + 1) // 2))
    return default[0] + (default[1] > default[0])


def _shown_amount(ask: str, texts: list[str], page: str) -> str:
    """The page's amount of money that is no example of the box's words (its item's), else its texts' words."""
    amounts = [a for a in re.findall(r"[£$€]\s?\d[\d,]*(?:\.\d{2})?", page) if a not in ask]
    return amounts[0] if amounts else " ".join(texts)


def hashtags(text: str, n: int, rng: random.Random) -> str:
    """``n`` different hashtags from the item's salient words (a name's words run together)."""
    words = salient(text)
    names = [m.replace(" ", "") for m in re.findall(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+", text)]
    tags = list(dict.fromkeys(t.lower() for t in [*names[:1], *sorted(words, key=len, reverse=True)]))
    picked = tags[:n] + [t for t in ("local", "community", "weekend") if t not in tags][: max(0, n - len(tags))]
    rng.shuffle(picked)
    return " ".join(f"#{t}" for t in picked)


def emoji(text: str, n: int, rng: random.Random) -> str:
    """``n`` emoji of the things the item names, in its order (a face for its mood where it names too few)."""
    said = [EMOJI_OF.get(w.lower()) or EMOJI_OF.get(w.lower().rstrip("s")) for w in re.findall(r"[A-Za-z]+", text)]
    found = list(dict.fromkeys(e for e in said if e))
    moods = ["😂", "😢", "❤️", "🎬", "⭐"]
    return " ".join((found + [m for m in moods if m not in found])[:n])


def listing(thing: str, n: int, text: str, sep: str) -> str:
    """``n`` short things of the kind asked ("sounds"): the ones the item's places make, else its own things."""
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", text)]
    if thing.startswith("sound"):
        found = [SOUNDS_OF[w] for w in words if w in SOUNDS_OF] + list(NIGHT)
    else:
        found = [w.lower() for w in salient(text)] or ["nothing else"]
    return sep.join(list(dict.fromkeys(found))[:n])


def made_name(texts: list[str], page: str, n: int, rng: random.Random) -> str:
    """A name of ``n`` words for the item: a colour it shows named by its hue and lightness, else its own salient
    words, capitalised as a name."""
    if colour := re.search(r"#([0-9A-Fa-f]{6})\b", " ".join(texts) + " " + page):
        hue, mood = _colour(colour[1])
        words = [rng.choice(MOODS[mood]), rng.choice(hue)]
        return " ".join(words[: max(2, n)])
    found = salient(" ".join(texts))
    return " ".join(w[:1].upper() + w[1:] for w in found[: max(1, n)]) if found else ""


def _colour(hexa: str) -> tuple[tuple[str, ...], str]:
    """A colour's hue's words and its mood (pale, deep, grey or mid)."""
    import colorsys

    r, g, b = (int(hexa[k:k + 2], 16) / 255 for k in (0, 2, 4))
    h, light, sat = colorsys.rgb_to_hls(r, g, b)
    mood = "grey" if sat < 0.15 else "pale" if light > 0.7 else "deep" if light < 0.3 else "mid"
    at = int(((h * 360 + 15) % 360) // 45)  # red, orange, yellow, green, teal, blue, purple, pink
    return HUES[min(at, len(HUES) - 1)][1], mood


