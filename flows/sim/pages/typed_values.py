"""A value a text box asks for (a clock time, a date, a figure, an address), typed as a person reads the box."""

from __future__ import annotations

import random
import re
import zlib

from flows.core.pages.asks_worker import topic
from flows.core.pages.mturk_forms import FormField
from flows.sim.pages.filling import RUSHED, Filling, known_for, takes_care
from flows.sim.people.box_conditions import left_empty
from flows.sim.people.crowd_model import PASTING_PROFILES
from flows.sim.people.item_answers import leaves_empty
from flows.sim.people.page_context import ItemContext
from flows.sim.people.stated_figures import CLOCK, clock_minutes, stated_figure
from flows.sim.people.stated_limits import NUMBERS
from flows.sim.people.worker_questions import own_question
from qc.answer_values import number as read_number

DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b|\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b|"
                  r"\b(\d{1,2})(?:st|nd|rd|th)? (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*,? (\d{4})\b|"
                  r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b",
                  re.I)
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")
# what the box is for, read from its words when no example shows the shape
ASKS = (("time", re.compile(r"\b(?:clock time|what time|which time|time of day|(?:latest|earliest) time|at what time|"
                            r"hh[:.]mm|(?:start|end|finish|arrival|closing|opening) time)\b", re.I)),
        ("date", re.compile(r"\b(?:date|dd/mm|mm/dd|yyyy-mm-dd|on what day)\b", re.I)),
        ("email", re.compile(r"\be-?mail address\b", re.I)),
        ("url", re.compile(r"\b(?:url|web ?address|link to)\b", re.I)),
        ("number", re.compile(r"\b(?:how (?:many|much|long|old)|number of|(?:what|which) year|amount|price|cost|"
                              r"percent(?:age)?|digits? only|in (?:numbers|digits))\b", re.I)))
EXAMPLE = re.compile(r"(?:for example|for instance|e\.\s?g\.|eg\.?|such as|like|format)\s*:?\s*[\"'“(]?"
                     r"([^\"'”);]{1,24})", re.I)
OPTIONAL = re.compile(r"\boptional\b|\bif (?:any|known|you know)\b", re.I)
SHORT = 40  # a box this short holds a value, not a sentence


def typed_value(fill: Filling, f: FormField, ctx: ItemContext) -> str | None:
    """The value this worker types into a box that asks for one ('' where the page says to leave it empty);
    None for a box that asks for writing, and for a profile that pastes whatever it pastes."""
    question = fill.questions.get(f.name, "")
    if f.kind != "text" or fill.worker.profile in PASTING_PROFILES:
        return None
    if int(f.attrs.get("maxlength") or SHORT) > SHORT or not (shape := asked_shape(question, f)) or \
            (topic(own_question(question, ctx.texts)) not in ("", "if_yes")):
        return None  # a sentence's box, or a question about the worker (worker_questions.py)
    chosen = fill.picked.get(ctx.key, "")
    if chosen and left_empty(question, chosen, fill.picked.get(f"{ctx.key}?", "")):
        return ""  # asked after another answer than this worker's (no answer known: the box is answered)
    if OPTIONAL.search(question) and leaves_empty(f, fill.worker.profile, fill.worker.profile in RUSHED, fill.rng):
        return ""  # (a box that asks for a value is answered unless it says it may be left)
    known = known_for(fill, ctx, f)  # the requester's own answer, where given, is the item's value
    value = shaped_value(fill, shape, question + " " + f.attrs.get("placeholder", ""), ctx, known)
    pattern = f.attrs.get("pattern")  # the page's, or one its words state ("digits only"): a value it refuses is not
    return value if not pattern or re.fullmatch(pattern, value) else None


def asked_shape(question: str, f: FormField) -> str:
    """'time', 'date', 'number', 'email' or 'url' as the box's example, placeholder or words ask; '' for none."""
    for shown in [m[1] for m in EXAMPLE.finditer(question)] + [f.attrs.get("placeholder", "")]:
        if CLOCK.search(shown) or re.search(r"\bhh[:.]mm\b", shown, re.I):
            return "time"
        if DATE.search(shown) or re.search(r"\b(?:dd|mm)[/.-](?:dd|mm)\b|yyyy", shown, re.I):
            return "date"
    return next((shape for shape, words in ASKS if words.search(question)), "")


def shaped_value(fill: Filling, shape: str, asked: str, ctx: ItemContext, known: str | None) -> str:
    """A value of ``shape`` ('time', 'date', 'number', 'email', 'url') for the item, as the worker types it."""
    rng, worker = fill.rng, fill.worker
    if shape == "email":
        return f"{worker.worker_id.lower()}@example.org"
    if shape == "url":
        return f"https://example.org/{zlib.crc32(ctx.key.encode())}"
    careful, rushed = takes_care(fill), worker.profile in RUSHED
    own = random.Random(worker.worker_id)  # a person writes times and dates one way throughout
    said = " ".join(asked.split())  # a box's hint ("for example 4:30 pm") is no value of the item's
    texts = [known] if known else [t for t in ctx.texts if " ".join(t.split()) not in said and not EXAMPLE.search(t)]
    if shape == "time":
        minutes = stated_time(texts)
        if minutes is None or rushed:  # a guess: a round hour of the day
            minutes = rng.randint(8, 18) * 60
        elif not careful:  # a slip: a quarter of an hour to an hour out
            minutes += rng.choice((-60, -30, -15, 15, 30, 60))
        return clock_text(minutes, _twelve_hour(asked, own))
    if shape == "date":
        day = _stated_date(" ".join(texts)) or (2026, rng.randint(1, 12), rng.randint(1, 28))
        if not careful or rushed:
            day = (day[0], day[1], max(1, min(28, day[2] + rng.choice((-1, 1)))))
        return date_text(day, asked)
    figure = read_number(known.replace(",", "").strip()) if known else stated_figure(asked, texts)
    if figure is None or rushed:
        figure = float(rng.randint(1, 10))
    elif not careful:
        figure += rng.choice((-1, 1))
    return f"{figure:g}" if figure != int(figure) else str(int(figure))


def stated_time(texts: list[str]) -> int | None:
    """Minutes past midnight of the item's time (the one said "at", else its last), or None."""
    text = re.sub(r"\b[a-z]+\b", lambda m: NUMBERS.get(m[0].lower(), m[0]), " ".join(texts), flags=re.I)
    found = [(m.start(), t) for m in CLOCK.finditer(text) if (t := clock_minutes(m)) is not None]
    at = [t for start, t in found if re.search(r"\bat\s*$", text[max(0, start - 4):start], re.I)]
    return at[-1] if at else found[-1][1] if found else None


def clock_text(minutes: int, twelve: bool) -> str:
    hour, minute = divmod(minutes % 1440, 60)
    if not twelve:
        return f"{hour:02d}:{minute:02d}"
    return f"{(hour - 1) % 12 + 1}:{minute:02d} {'pm' if hour >= 12 else 'am'}"


def _twelve_hour(asked: str, own: random.Random) -> bool:
    """am/pm as the box's examples show times; where they show both ways, the worker's own habit."""
    shown = {bool(m[3]) for e in EXAMPLE.finditer(asked) for m in CLOCK.finditer(e[1]) if m[3] or m[4]}
    shown |= {False} if re.search(r"\bhh[:.]mm\b|24.hour", asked, re.I) else set()
    return own.random() < 0.6 if len(shown) != 1 else shown == {True}


def _stated_date(text: str) -> tuple[int, int, int] | None:
    m = DATE.search(text)
    if not m:
        return None
    if m[1]:
        return int(m[1]), int(m[2]), int(m[3])
    if m[6]:
        return int(m[6]), int(m[5]), int(m[4])
    if m[8]:
        return int(m[9]), MONTHS.index(m[8].lower()) + 1, int(m[7])
    return int(m[12]), MONTHS.index(m[10].lower()) + 1, int(m[11])


def date_text(day: tuple[int, int, int], asked: str) -> str:
    """The date in the format the box shows (its example or its mask), else written out as people write it."""
    year, month, d = day
    if re.search(r"yyyy-mm-dd|\b\d{4}-\d{2}-\d{2}\b", asked, re.I):
        return f"{year:04d}-{month:02d}-{d:02d}"
    if re.search(r"mm/dd", asked, re.I):
        return f"{month:02d}/{d:02d}/{year}"
    if re.search(r"dd/mm|\b\d{1,2}/\d{1,2}/\d{4}\b", asked, re.I):
        return f"{d:02d}/{month:02d}/{year}"
    return f"{d} {MONTH_NAMES[month - 1]} {year}"
