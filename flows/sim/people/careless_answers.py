"""How careless people answer a page that is not a caption page."""

from __future__ import annotations

import random

# Stock answers that fit any question and say nothing about the item
STOCK_ANSWERS = ("Good.", "ok", "Nothing.", "N/A", "None", "Looks fine to me.", "Nothing to add.",
                 "Everything is fine here.", "Nothing is missing, it is good.", "It is correct and clear enough.",
                 "Good job, nothing else to say.", "I have no further comments on this one.")
HABITUAL = 2  # stock answers one abuser keeps at hand
UNTOUCHED_SLIDER = 0.5  # a rushed worker leaves a slider where the page put it, else drags it anywhere
PASTED_STOCK = 20  # a stock answer this long is pasted from where it is kept; a shorter one is typed
COPIED = "copied:"  # worker memory "copied:<normalised text>": text the worker copied from the page itself


def stock_origin(text: str) -> str | None:
    """How a stock answer arrives: pasted, or typed when a word or two; None for any other text."""
    if text not in STOCK_ANSWERS:
        return None
    return "list" if len(text) >= PASTED_STOCK else "typed"


def stock_answer(worker_id: str, low: int, rng: random.Random) -> str:
    """One of the worker's stock answers, a longer one where the box asks for at least ``low`` characters."""
    own = random.Random(f"stock|{worker_id}")
    long_enough = [s for s in STOCK_ANSWERS if len(s) >= low] or [max(STOCK_ANSWERS, key=len)]
    kept = own.sample(long_enough, min(HABITUAL, len(long_enough)))
    return rng.choice(kept)
