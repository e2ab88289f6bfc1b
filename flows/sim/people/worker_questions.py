"""Questions a page asks about the worker, not the item."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from flows.core.pages.asks_worker import topic
from flows.core.pages.mturk_forms import FormField

VALUES = {
    "place": ("Ontario", "Quebec", "British Columbia", "Alberta", "Manitoba", "Nova Scotia"),
    "country": ("United States", "India", "United Kingdom", "Canada", "Brazil", "Germany"),
    "state": ("California", "Texas", "Ohio", "Florida", "New York", "Washington"),
    "city": ("Toronto", "Chicago", "Leeds", "Pune", "Austin", "Manchester"),
    "language": ("English", "English", "Spanish", "Hindi", "Portuguese", "Tagalog", "German"),
    "colour": ("blue", "green", "red", "purple", "black", "yellow", "orange", "pink"),
    "gender": ("female", "male", "female", "male", "prefer not to say"),
    "confidence": ("Fairly sure.", "Very sure, the difference was easy to see.", "Quite confident.",
                   "Not completely sure, two of them looked alike.", "Sure enough, I checked twice."),
    "heard_where": ("In a news article.", "From a friend.", "On a podcast.", "At university.", "On social media."),
    "often": ("Rarely, {t} is not something I think about.", "Once a month or so, when {t} is in the news.",
              "A few times a week, {t} comes up at home.", "Almost never, I know little about {t}.",
              "Now and then, when friends mention {t}."),
    "opinion": ("Lower costs would make {t} easier for me.", "Clearer information about {t}.",
                "More time to try {t} myself.", "Friends who are into {t} too.", "Simple beginner guides on {t}."),
    "feedback": ("No comments, thanks.", "Clear instructions.", "All worked fine.", "Nice survey.", "Nothing to add."),
}
PLAIN = {"often": ("Rarely.", "Once a month or so.", "A few times a week.", "Almost never.", "Now and then."),
         "opinion": ("Lower costs and clearer information.", "More time to try it out.", "Friends who do it too.",
                     "Simple guides for beginners.", "Better support where I live.")}
# what a question is about, when it names it ("How often do you think about solar cooking?")
SUBJECT = re.compile(r"\babout (?P<a>[^?.]{3,60})\?|\bmake (?P<b>[^?.]{3,60}?) (easier|better|simpler)", re.I)


def _own(worker_id: str, name: str) -> random.Random:
    return random.Random(f"{worker_id}|{name}")  # the same answer on every HIT of this worker


def _heard(worker_id: str) -> bool:
    return _own(worker_id, "heard").random() < 0.35


def _place(worker_id: str, question: str) -> str:
    q = question.lower()
    kind = "country" if "country" in q else "state" if "state" in q else "city" if "city" in q else "place"
    return _own(worker_id, "place").choice(VALUES[kind])


def text_answer(kind: str, worker_id: str, question: str, rng: random.Random) -> str:
    """What the worker types for a question about themselves."""
    if kind == "age":
        return str(_own(worker_id, "age").randint(19, 68))
    if kind == "place":
        return _place(worker_id, question)
    if kind == "heard":
        return "Yes" if _heard(worker_id) else "No"
    if kind == "if_yes":
        return rng.choice(VALUES["heard_where"]) if _heard(worker_id) else ""
    if kind in ("language", "colour", "gender"):
        return _own(worker_id, kind).choice(VALUES[kind])
    if kind in PLAIN:  # an answer that names what the question is about differs from item to item, as people's do
        subject = SUBJECT.search(question)
        if subject is None:
            return rng.choice(PLAIN[kind])
        return rng.choice(VALUES[kind]).format(t=(subject["a"] or subject["b"]).strip())
    return rng.choice(VALUES[kind])  # how sure, a comment on the task: may differ per HIT


def choice_answer(kind: str, worker_id: str, f: FormField) -> str:
    """The option a worker picks about themselves, the same on every HIT (the first option more often)."""
    options = [o for o in f.options if o] or f.options
    if kind == "heard":
        wanted = "yes" if _heard(worker_id) else "no"
        return next((o for o in options if o.lower().startswith(wanted)), options[0])
    rng = _own(worker_id, kind)
    return options[0] if rng.random() < 0.5 else rng.choice(options)


def own_question(question: str, item_texts: Iterable[str]) -> str:
    """The words that ask: ``question`` without the item's own text, keeping its prompt."""
    plain = " ".join(question.split())
    for text in sorted({" ".join(t.split()) for t in item_texts if t.strip()}, key=len, reverse=True):
        head, found, _ = plain.rpartition(text)
        if found and not plain.endswith(text):
            plain = " ".join((head + " " + plain[len(head) + len(text):]).split())
    return plain


def about_worker(f: FormField, question: str, worker_id: str, rng: random.Random) -> str | None:
    """The worker's answer when the control asks about them; None when it asks about the item."""
    kind = topic(question)
    if not kind:
        return None
    if f.kind in ("radio", "select", "checkbox") and f.options:
        return choice_answer(kind, worker_id, f)
    if f.kind in ("number", "range"):  # a number about the item ("How sure are you?" on a slider): its score
        return text_answer("age", worker_id, question, rng) if kind == "age" and f.kind == "number" else None
    if kind == "device":  # a text box near "headphones" is about the item (a review of them), not the listener
        return None
    if kind == "feedback" and "required" not in f.attrs and rng.random() < 0.85:
        return ""  # most people leave an optional comment box empty
    if kind == "if_yes" and "data-required-when" in f.attrs:
        return None  # the page requires it after that choice: a question about the item, as its script makes it
    said = text_answer(kind, worker_id, question, rng)  # "If yes, ...": blank where they said no
    return None if not said and "required" in f.attrs else said  # required (its choice made): about the item
