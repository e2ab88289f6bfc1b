"""A simulated worker's choice, ticks or number on any page: the item's latent (or known) answer with their accuracy."""

from __future__ import annotations

import random
import re

from flows.core.pages.form_spec import field_rule, slider_start
from flows.core.pages.mturk_forms import FormField, field_base
from flows.sim.pages.filling import RUSHED, Filling, answer_rng, known_for, takes_care, writing_sources
from flows.sim.people.careless_answers import UNTOUCHED_SLIDER
from flows.sim.people.content_choice import mentioned, named_in_answer
from flows.sim.people.item_answers import on_grid
from flows.sim.people.known_answers import known_option
from flows.sim.people.latent_choices import LATENT, as_on_a_page, careful, confused, keep_known, latent_answer
from flows.sim.people.page_context import ItemContext
from flows.sim.people.ratings import TYPED_SLIP, answered_number, nearest, numeric_scale, rated_position, truth_option
from flows.sim.people.stated_figures import stated_figure
from flows.sim.people.unseen_images import unseen
from qc.answer_values import number as read_number

# a box saying none applies ("none of these", "nobody", "not stated"), or a bare "no"
EXCLUSIVE = re.compile(r"\s*(?:no\s*$|none\b|nobody|no[\s-]?one\b|nothing\b|neither\b|n/a\b|"
                       r"not (?:stated|given|mentioned|known|listed|applicable|sure)\b)", re.I)


def choice(fill: Filling, f: FormField, ctx: ItemContext) -> str:
    """The item's latent answer, given with the worker's skill (flows/sim/people/latent_choices.py)."""
    options = [o for o in f.options if o != ""] or f.options
    if not options:
        return ""
    if fill.worker.profile == "contrarian":
        return options[0]  # one answer to everything
    known = known_option(known_for(fill, ctx, f), options)
    if known is None and (scale := numeric_scale(options)):  # a rating of what the simulator cannot perceive
        return rating(fill, f, ctx, options, scale)
    truth = latent_answer(fill.worker, ctx.key, field_base(f.name), options,
                          ctx.texts or (writing_sources(ctx, fill.bank) if ctx.shows_image and fill.bank
                                        and not unseen(ctx, fill.bank) else []),  # nothing to read: blind
                          f.attrs.get("header", ""), known)
    return as_on_a_page(fill.worker, options, truth, fill.rng)  # (the item's truth is recorded above all the same)


def rating(fill: Filling, f: FormField, ctx: ItemContext, options: list[str], scale: list[float]) -> str:
    """The item's latent score through the worker's bias and honest noise; its truth kept for sim_items.json."""
    base = field_base(f.name)
    truth = truth_option(options, scale, ctx.key, base)
    fill.worker.memory[f"{LATENT}{ctx.key}|{base}"] = truth
    if fill.worker.params.get("choices") == "wrong":
        return confused(fill.worker.worker_id, options, truth)
    if fill.worker.profile in RUSHED:  # a random click
        return fill.rng.choice(options)
    careful = takes_care(fill)
    return nearest(options, scale, rated_position(ctx.key, base, fill.worker.worker_id, careful, fill.rng))


def exclusive(option: str, label: str) -> bool:
    """A box saying none applies ("nobody", "not stated"): ticked alone."""
    return any(EXCLUSIVE.match(t) for t in (option, label))


def ticks(fill: Filling, f: FormField, ctx: ItemContext) -> str:
    rule = field_rule(f) or {}
    truth_rng = answer_rng(ctx, f.name)
    truth = [o for o in f.options if truth_rng.random() < 0.35]
    labels = {o: f.labels.get(o) or o for o in f.options}
    alone = [o for o in f.options if exclusive(o, labels[o])]
    if ctx.texts and not ctx.shows_image and (said := mentioned(ctx.texts, list(labels.values()))):
        truth = [o for o, yes in zip(f.options, said, strict=True) if yes]  # ("which aspects does it mention?")
    named = [o for o in f.options if o not in alone]
    held = named_in_answer(ctx.texts, [labels[o] for o in named], fill.questions.get(f.name, "")) if ctx.texts else None
    if held is not None and (any(held) or alone):  # ("who agreed to a task?"; none did: the box saying so)
        truth = [o for o, yes in zip(named, held, strict=True) if yes] or alone[:1]
    if (given := known_for(fill, ctx, f)) is not None:  # the requester's ticks, "a|b"
        truth = [o for o in f.options if known_option(o, given.split("|"))]
        keep_known(fill.worker, ctx.key, field_base(f.name), "|".join(truth))
    if fill.worker.profile == "contrarian":
        picked = f.options[:1]
    elif fill.worker.profile in RUSHED:
        picked = [o for o in f.options if fill.rng.random() < 0.3]
    else:
        picked = [o for o in f.options if (o in truth) == careful(fill.worker, fill.rng)]
    if any(p not in alone for p in picked):  # "none of these" goes with nothing else
        picked = [p for p in picked if p not in alone]
    picked = picked[:1] if picked and all(p in alone for p in picked) else picked  # nor with another "none"
    picked += [o for o in rule.get("required_options", []) if o not in picked]
    if not picked and int(rule.get("min") or 0) > 0:  # nothing applies: say so where the page lets you
        picked += alone[:1]
    for o in f.options:
        if len(picked) >= int(rule.get("min") or 0):
            break
        if o not in picked:
            picked.append(o)
    top = rule.get("max")
    keep = set(rule.get("required_options", []))
    while top is not None and len(picked) > int(top):
        picked.remove(next((p for p in picked if p not in keep), picked[-1]))
    return "|".join(o for o in f.options if o in picked)


def number(fill: Filling, f: FormField, ctx: ItemContext) -> str:
    """A number or slider: the known number with the worker's error spread, else a slider's latent score, else drawn."""
    rule = field_rule(f) or {}
    declared_low = float(rule["min"]) if rule.get("min") is not None else None
    declared_high = float(rule["max"]) if rule.get("max") is not None else None
    low = declared_low if declared_low is not None else 0.0
    high = declared_high if declared_high is not None else low + 20
    step = 1.0 if rule.get("step") in ("any", None) else float(rule["step"])
    base = float(rule.get("base") or 0.0)
    first = base + step * -(-(float(low) - base) // step)
    slots = max(0, int((float(high) - first) // step))
    known = known_number(fill, ctx, f, declared_low, declared_high)
    if known is None and (read := stated_figure(fill.questions.get(f.name, ""), ctx.texts)) is not None:
        known = min(max(read, low), high) if declared_high is not None else max(read, low)  # as the item states it
    if fill.worker.profile == "contrarian":
        value = first
    elif fill.worker.profile in RUSHED and f.kind == "range":  # left where the page put it, or dragged anywhere
        start = slider_start(read_number(f.value), low, high, step)
        value = start if fill.rng.random() < UNTOUCHED_SLIDER else first + step * fill.rng.randint(0, slots)
    elif known is not None and f.kind == "number" and fill.rng.random() >= TYPED_SLIP[takes_care(fill)]:
        value = known  # a figure read off the item (a receipt's total, a count) is typed as it stands
    elif known is not None:
        given = answered_number(known, declared_low, declared_high, fill.worker.worker_id, takes_care(fill), fill.rng)
        value = max(first, first + round((given - first) / step) * step) if step > 0 else given
        value = min(value, first + slots * step) if declared_high is not None else value
    elif f.kind == "range":  # a slider is a rating: the item's latent score, bias and honest noise
        careful = takes_care(fill)
        value = first + step * round(slots * rated_position(ctx.key, f.name, fill.worker.worker_id, careful, fill.rng))
    elif not takes_care(fill):
        value = first + step * fill.rng.randint(0, slots)
    else:
        k = answer_rng(ctx, f.name).randint(0, slots) + fill.rng.choice((-1, 0, 0, 1))
        value = first + step * min(slots, max(0, k))
    if rule.get("start") is not None and abs(value - float(rule["start"])) < 1e-9:
        value = moved_off_start(value, step, (first, first + slots * step), fill.rng)  # the page refuses it
    return on_grid(value, rule)


def moved_off_start(value: float, step: float, bounds: tuple[float, float], rng: random.Random) -> float:
    """A required slider's answer on its start, which the page refuses: nudged a step (up at its lowest, else down)."""
    low, high = bounds
    up = value + step <= high and (value - step < low or rng.random() < 0.5)
    return value + step if up else value - step


def known_number(fill: Filling, ctx: ItemContext, f: FormField, low: float | None, high: float | None) -> float | None:
    """The known number for the item within the field's bounds; None if none or not finite. Kept for sim_items.json."""
    given = read_number(str(known_for(fill, ctx, f) or "").strip())
    if given is None:
        return None
    within = min(high, given) if high is not None else given
    within = max(low, within) if low is not None else within
    keep_known(fill.worker, ctx.key, field_base(f.name), f"{within:g}")
    return within
