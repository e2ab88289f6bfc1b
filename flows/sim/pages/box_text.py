"""An honest worker's free text for a box of a page hitflow did not write."""

from __future__ import annotations

import re

from flows.core.pages.form_spec import field_rule
from flows.core.pages.mturk_forms import FormField, field_base
from flows.sim.pages.filling import Filling, known_for, takes_care
from flows.sim.people import captions
from flows.sim.people.crowd_model import normalise
from flows.sim.people.item_answers import SHORT_BOX, copies, fit_text, reworded, short_phrase
from flows.sim.people.known_answers import described
from flows.sim.people.known_text import known_text
from flows.sim.people.page_context import ItemContext
from flows.sim.people.plain_text import Box, box_limits, meets, plain
from flows.sim.people.stated_limits import within

CAPTION = re.compile(r"caption|describ|description|\btitle\b|alt[\s_-]?text|what (do you see|is in)", re.I)


def limits(fill: Filling, f: FormField, ctx: ItemContext) -> Box:
    """The box's limits as QC reads them: its question, after the page's words where it is the page's only box."""
    question = fill.questions.get(f.name, "")
    if len({field_base(n) for n in fill.text_boxes}) <= 1:
        page = fill.page
        for text in ctx.texts:  # an item's own words state no limit
            page = page.replace(text, " ")
        question = f"{page}\n{question}"
    return box_limits(question, field_rule(f) or {}, fill.min_words.get(f.name, 0))


def written(fill: Filling, f: FormField, ctx: ItemContext, sources: list[str]) -> str:
    """What an honest worker writes in the box, never a text they wrote before."""
    box, rng = limits(fill, f, ctx), fill.rng
    given = known if (known := known_for(fill, ctx, f)) and takes_care(fill) else None
    texts, text = sources, ""  # (a picture's: the bank's captions of it)
    image = ctx.shows_image and sources != ctx.texts and CAPTION.search(fill.questions.get(f.name) or f.name)
    for _ in range(8):
        if given:  # as one who knows it says it (people/known_text.py)
            text = known_text(given, fill.questions.get(f.name, ""), ctx.texts, rng, box.least, box.most)
        elif not image or not meets(text := _drafted(fill, f, ctx, sources, box), box):
            text = plain(texts, box, rng, f.kind == "textarea")
        text = fit_text(captions.styled(fill.worker, text, rng, exact=box.copy), f, rng, texts)
        if normalise(text) not in fill.worker.written and not copies(text, fill.item_texts.get(ctx.key, [])):
            break  # (nor another box's answer on the item)
    fill.worker.written.add(normalise(text))
    fill.item_texts.setdefault(ctx.key, []).append(text)
    return text


def _drafted(fill: Filling, f: FormField, ctx: ItemContext, sources: list[str], box: Box) -> str:
    """A caption of the image from the bank's, in the worker's words, never one they wrote before."""
    rng = fill.rng
    draft = rng.choice(sources).strip()
    if rng.random() < 0.6:  # people put what they see in their own words
        draft = reworded(draft, rng, ctx.shows_image or described(fill.bank, ctx.key))
    high = (field_rule(f) or {}).get("maxlength")

    def shaped(t: str) -> str:  # a short box's phrase, and the box's stated most kept as an honest person keeps it
        return within(short_phrase(t, int(high)) if high is not None and high <= SHORT_BOX else t, box.most, None)
    others = [s for s in sources if s != draft]
    written = fill.item_texts.get(ctx.key, [])  # this item's other fields: never copied
    text, attempt = shaped(draft), 0
    while (normalise(text) in fill.worker.written or copies(text, written)) and attempt < 2000:
        attempt += 1
        text = shaped(others[attempt - 1] if attempt <= len(others) else captions.variation(draft, attempt))
    return text
