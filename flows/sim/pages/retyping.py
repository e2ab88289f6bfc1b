"""A browser worker the page refused reads its message and changes the box before submitting again."""

from __future__ import annotations

import random
import re
from typing import Any

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.mturk_forms import form_fields, read_page
from flows.sim.pages.browser_check import TRIES
from flows.sim.pages.submit_watch import refusal
from flows.sim.people.crowd_model import RUSHED, Worker
from flows.sim.people.latent_choices import accuracy
from flows.sim.people.refusal_asks import asked_in, meeting
from flows.sim.people.typing_model import Hand

TEXT_KINDS = ("text", "textarea", "search")
IS_TEXT_JS = ("([e]) => e.tagName === 'TEXTAREA' || "
              "['text', 'search'].includes((e.getAttribute('type') || 'text').toLowerCase())")


def heard(page: Any, html: str, typed: dict[str, str], shown: list[str], alerts: list[str]) -> list[str]:
    """[the box a refused press was about or '', what the page said, what that box held] (``typed``: the answers
    meant for the page's boxes)."""
    box, message = refusal(page, shown, alerts)
    box = box if box else box_named(message, html, typed)
    control = text_box(page, box) if box else None
    return [box, message, control.input_value() if control is not None else ""]


def box_named(message: str, html: str, typed: dict[str, str]) -> str:
    """The text box whose question shares the most words with the page's refusal, the first in page order of those
    alike; where none shares a word, the page's one text box filled ('' for none)."""
    said = {w[:5] for w in re.findall(r"[a-z]{4,}", message.lower())}
    questions = question_texts(read_page(html))
    boxes = {f.name for f in form_fields(html) if f.kind in TEXT_KINDS}
    named = [n for n in typed if n in questions and n in boxes]  # (a box left empty too: often the one refused)
    scores = {n: len(said & {w[:5] for w in re.findall(r"[a-z]{4,}", questions[n].lower())}) for n in named}
    best = max(scores, key=lambda n: scores[n], default="")
    if best and scores[best]:
        return best
    filled = [n for n in typed if n in boxes and typed[n]]
    return filled[0] if len(filled) == 1 and asked_in(message) else ""


def text_box(page: Any, name: str) -> Any | None:
    """The visible box a person types ``name``'s text into (a crowd element's own), None for another control."""
    named = '[name="' + name.replace("\\", "\\\\").replace('"', '\\"') + '"]'  # (a CSS string: quotes escaped)
    host = page.locator(named)
    if not host.count():
        return None
    tag = host.first.evaluate_all("([e]) => e.tagName.toLowerCase()")
    box = page.locator(f"{tag}{named} input, {tag}{named} textarea").first \
        if tag.startswith("crowd-") else host.first
    if not box.count() or not box.is_visible() or not box.is_editable():
        return None
    return box if box.evaluate_all(IS_TEXT_JS) else None


def reads_message(worker: Worker | None, attempt: int, rng: random.Random) -> bool:
    """Whether a refused worker acts on the page's message before this press: a rushed profile never; on the last
    try everyone else; before it, as careful as the worker is."""
    if worker is None:
        return True
    if worker.profile in RUSHED:
        return False
    return attempt >= TRIES - 1 or rng.random() < accuracy(worker)


def retyped(page: Any, told: list[str], hand: Hand, rng: random.Random) -> bool:
    """Whether the worker changed the refused box's text as the page's message asks (``told``: as :func:`heard`)."""
    box, message = [*told, "", ""][:2]
    asked = asked_in(message)
    control = text_box(page, box) if box and asked else None
    if control is None:
        return False
    most = control.get_attribute("maxlength") or ""  # a box that takes no more: its text cut to fit
    if most.isdigit() and (asked.limits.most_chars is None or int(most) < asked.limits.most_chars):
        asked = asked._replace(limits=asked.limits._replace(most_chars=int(most)))
    typed = control.input_value()
    text = meeting(typed, asked, rng)
    if control.evaluate_all("([e]) => e.tagName") == "INPUT":
        text = text.replace("\n", " ")
    if text == typed:
        return False
    hand.replace(control, text)
    return True
