"""Four more pages for ``python -m bench.words_answered`` (bench/words_pages/), written with their judges below
before any simulated answer on them was read, after the simulator had been changed for held-out sets 2-4 (an
action, a part missing, a box asked "if no", a rating's criterion): they measure whether those changes carry to
pages nobody tuned to. Their first run is recorded as ``first-run-words5``. The judges use no table of the
simulator; words, content words and copied runs as bench/words_answered.py reads them.

- kitchen (an inspector's note; "What should the kitchen staff do about it? Reply with one sentence of 5 to 20
  words"): 5-20 words, one sentence, no question, an instruction (a verb of TODO opening the answer or a clause,
  or after should / must / to / then / and / please) and a content word of the note; on the note with no
  problem ("problem" no), "no action / nothing / keep / carry on / continue" answers too.
- booking (a text-message booking; "Is this booking complete?" yes/no; "If no, what is missing? (a few
  words)"): judged only where the worker said no on an item that lacks a part (others: not counted); 1-8
  words naming the part ``gold_missing`` says (people: people, persons, guests, party, how many, number, size,
  covers; day: day, date, when; time: time, hour, when, o'clock; name: name, who, surname).
- shelf (a photo of a shop shelf, a select "how well stocked"; "Describe the shelf briefly: what is on it and
  how it is arranged (4 to 15 words)"): 4-15 words, names the shelf or its goods (SHELF) or a 4+ letter word of
  the aisle, and does not open on the page's own "Photo taken".
- logged (a customer's note and what an assistant typed; "Did the assistant type it in correctly?" yes/no;
  "If not, what is wrong with what was typed? Keep it under 20 words"): judged only where the worker said no on
  an item typed wrong; under 20 words, names the ``wrong`` or the ``right`` word, says it is a fault (FAULT of
  bench/words_answered.py), copied run of the typed text <= 8.

Two more, written (with their judges) after the simulator was changed for the four above (a part the page names,
a thing a box asks to describe), before any run on them; their first run is ``first-run-words5-gig-parking``:

- gig (a band's email; "Can we publish this listing as it is?" yes/no; the page says a listing needs a date, a
  start time, a venue and a ticket price; "If not, which detail is missing? Just name it"): judged only where
  the worker said no on an item that lacks a part; 1-6 words naming it (date: date, day, when; time: time,
  start, when, o'clock; venue: venue, where, place, location; price: price, ticket, cost, how much, entry).
- parking (a car park camera still; "Is the car parked inside the bay lines?"; "Describe the car in a few
  words (3 to 10 words)"): 3-10 words, names the car (CAR: car, vehicle, a kind of car or a colour), and does
  not open on the page's own "Camera".

A judge's None: the answer is not counted (the worker's own choice did not ask for the box).
"""

from __future__ import annotations

import re
from collections.abc import Callable

TODO = (r"clean|wash|wipe|scrub|mop|sweep|degrease|fix|repair|mend|replace|seal|throw|discard|bin|dispose|remove|"
        r"move|store|keep|put|place|separate|label|date|cover|wrap|cook|reheat|heat|cool|chill|check|test|inspect|"
        r"call|contact|book|get|buy|order|restock|refill|stock|supply|turn|set|raise|adjust|service|train|tell|"
        r"make|stop|close|clear|empty|lay|install|treat|spray|report|record|log|monitor|keep|carry|continue")
INSTRUCTION = re.compile(rf"(?:^|[.;:,]\s*|\b(?:should|must|to|then|and|please|need to|needs to)\s+)(?:{TODO})\w*\b",
                         re.I)
NONE_NEEDED = re.compile(r"no action|nothing|keep|carry on|continue|no need|not needed|none needed", re.I)
PART = {"people": r"people|persons?|guests?|party|how many|number|size|covers|diners",
        "day": r"day|date|when", "time": r"time|hour|when|o'?clock", "name": r"name|who|surname"}
SHELF = re.compile(r"shel(?:f|ves)|products?|items?|goods|stock|packets?|packs?|tins?|cans?|bottles?|boxes|jars?|"
                   r"bags?|rows?|labels?|arranged|stacked|lined|neat|tidy|messy|gaps?|empty|full|brands?", re.I)
WORDS = re.compile(r"[a-z0-9']+")
STOP = frozenset(("this", "that", "with", "from", "they", "their", "there", "have", "what", "your", "were", "will",
                  "when", "which", "would", "about", "into", "them", "than", "then", "some", "only", "also", "just",
                  "been", "more", "most", "very"))


def _words(text: str) -> list[str]:
    return WORDS.findall(text.lower())


def _content(text: str) -> set[str]:
    return {w[:4] for w in _words(text) if len(w) >= 4 and w not in STOP}


def _copied(text: str, source: str) -> int:
    a, b = _words(text), _words(source)
    runs = {tuple(b[i:i + n]) for n in range(1, 30) for i in range(len(b) - n + 1)}
    return max((n for n in range(1, 30) for i in range(len(a) - n + 1) if tuple(a[i:i + n]) in runs), default=0)


def kitchen(row: dict, a: dict) -> bool:
    text = a["todo"]
    if row["problem"] == "no" and NONE_NEEDED.search(text):
        return 5 <= len(text.split()) <= 20 or bool(re.match(r"\s*no action", text, re.I))
    one = re.search(r"[.!?]\s+\S", text.strip()) is None
    return 5 <= len(text.split()) <= 20 and one and "?" not in text and bool(INSTRUCTION.search(text)) \
        and bool(_content(text) & _content(row["note"]))


def booking(row: dict, a: dict) -> bool | None:
    if not row["gold_missing"] or a.get("complete") != "no":
        return None
    text = a["lacks"]
    return 1 <= len(text.split()) <= 8 and bool(re.search(rf"\b(?:{PART[row['gold_missing']]})", text, re.I))


def shelf(row: dict, a: dict) -> bool:
    text = a["shelf"]
    return 4 <= len(text.split()) <= 15 and not text.lower().startswith("photo taken") \
        and bool(SHELF.search(text) or {w for w in _words(text) if len(w) >= 4} & set(_words(row["aisle"])))


def logged(row: dict, a: dict, fault: re.Pattern[str]) -> bool | None:
    if row["gold"] != "no" or a.get("correct") != "no":
        return None
    text = a["what_wrong"]
    named = any(re.search(rf"(?<![a-z0-9]){re.escape(w)}", text, re.I) for w in (row["wrong"], row["right"]))
    return 0 < len(text.split()) < 20 and named and bool(fault.search(text)) and _copied(text, row["typed"]) <= 8


GIG = {"date": r"date|day|when", "time": r"time|start|when|o'?clock", "venue": r"venue|where|place|location",
       "price": r"price|ticket|cost|how much|entry"}
CAR = re.compile(r"\b(?:cars?|vehicles?|hatchback|saloon|estate|van|suv|4x4|pickup|taxi|convertible|coupe|red|blue|"
                 r"black|white|silver|grey|gray|green|yellow)\b", re.I)


def gig(row: dict, a: dict) -> bool | None:
    if not row["gold_missing"] or a.get("publish") != "no":
        return None
    text = a["detail"]
    return 1 <= len(text.split()) <= 6 and bool(re.search(rf"\b(?:{GIG[row['gold_missing']]})", text, re.I))


def parking(row: dict, a: dict) -> bool:
    text = a["car"]
    return 3 <= len(text.split()) <= 10 and bool(CAR.search(text)) and not text.lower().startswith("camera")


def judges(fault: re.Pattern[str]) -> dict[str, Callable[[dict, dict], bool | None]]:
    """The six pages' judges (``fault``: bench/words_answered.py's FAULT)."""
    return {"kitchen": kitchen, "booking": booking, "shelf": shelf, "logged": lambda r, a: logged(r, a, fault),
            "gig": gig, "parking": parking}
