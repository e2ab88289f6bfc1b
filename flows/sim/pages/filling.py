"""What a simulated worker carries while filling one page, and how careful they are over one answer."""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, field

from flows.core.pages.mturk_forms import FormField, field_base
from flows.sim.people import captions
from flows.sim.people.crowd_model import RUSHED, BankEntry, Worker
from flows.sim.people.known_answers import known_answer
from flows.sim.people.latent_choices import careful
from flows.sim.people.page_context import ItemContext

__all__ = ["RUSHED"]  # choice_answers and any_form read it here


@dataclass
class Filling:
    worker: Worker
    bank: dict[str, BankEntry]
    rng: random.Random
    item_texts: dict[str, list[str]] = field(default_factory=dict)  # item -> what this worker wrote for it
    questions: dict[str, str] = field(default_factory=dict)  # field -> the words a person reads as its question
    text_boxes: list[str] = field(default_factory=list)  # the page's free-text fields, in page order
    sole: set[str] = field(default_factory=set)  # fields that are their item's only answer (item_answers.py)
    rows: set[str] = field(default_factory=set)  # choice fields among rows of one scale (attention_answers.py)
    # item -> this worker's last choice for it (a conditional box's); item + "?": that choice's question
    picked: dict[str, str] = field(default_factory=dict)
    min_words: dict[str, int] = field(default_factory=dict)  # box -> the words the page's own script asks for
    page: str = ""  # the page's own words, all of them (the limits it states for its only box)


def answer_rng(ctx: ItemContext, name: str) -> random.Random:
    """The answer an item "really" has for a choice: the same for every worker."""
    return random.Random(zlib.crc32(f"{ctx.key}|{name}".encode()))


def known_for(fill: Filling, ctx: ItemContext, f: FormField) -> str | None:
    """The requester's known answer for this item and field, as the field holds it (people/known_answers.py)."""
    return known_answer(fill.bank, ctx.key, field_base(f.name))


def takes_care(fill: Filling) -> bool:
    """Whether the worker takes care over this answer: a rushed profile never does, the others by skill."""
    return fill.worker.profile not in RUSHED and careful(fill.worker, fill.rng)


def writing_sources(ctx: ItemContext, bank: dict[str, BankEntry]) -> list[str]:
    """What an honest worker writes from: the bank's captions, the item's text, or a scene made up for an image."""
    known = bank.get(ctx.key.split("~")[0])
    if known and known.captions and (ctx.shows_image or not ctx.texts):  # a text item is not a bank image
        return [c for c in known.captions if c.strip()] or known.captions
    if ctx.texts:
        return ctx.texts
    if not ctx.shows_image and ctx.asks:  # a question without a picture: never a made-up photo's caption
        return ctx.asks
    # a generated item adopts a bank image's captions; a real image the bank does not hold (or none), a made-up scene
    entry, scene = captions.image_entry(ctx.key, bank)
    return [f"{c.strip().rstrip('.!?')}, {scene}." if scene else c for c in entry.captions] or ["An object."]
