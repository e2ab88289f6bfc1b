"""A simulated worker's date or time: a value the picker offers (min/max, step), the item's own, as the profile errs."""

from __future__ import annotations

import math

from flows.core.pages.form_spec import field_rule
from flows.core.pages.mturk_forms import FormField, field_base
from flows.sim.pages.filling import RUSHED, Filling, answer_rng, known_for, takes_care
from flows.sim.people.latent_choices import keep_known
from flows.sim.people.page_context import ItemContext
from flows.sim.people.ratings import TYPED_SLIP
from qc.answer_values import WHEN_STEPS, moment, moment_text

# Where a picker without bounds is opened, and how far either side of it a plausible answer lies (its units)
CENTRE = {"date": "2026-01-15", "month": "2026-01", "week": "2026-W03", "time": "12:00",
          "datetime-local": "2026-01-15T12:00"}
REACH = {"date": 180, "month": 12, "week": 26, "time": 43140, "datetime-local": 30 * 86400}


def offered(f: FormField) -> tuple[float, float, int]:
    """(the first value the picker offers, its step, how many steps past it it offers), as counts of its unit."""
    rule, kind = field_rule(f) or {}, f.kind
    low, high = (moment(rule.get(k) or "", kind) for k in ("min", "max"))
    centre = moment(f.value, kind) or moment(CENTRE[kind], kind) or 0.0
    if low is None:
        low = high - 2 * REACH[kind] if high is not None else centre - REACH[kind]
    if high is not None and high < low and kind == "time":  # a range over midnight: its clock wraps
        high += 86400
    high = high if high is not None and high >= low else low + 2 * REACH[kind]
    step = WHEN_STEPS[kind] if rule.get("step") in ("any", None) or float(rule["step"]) <= 0 else float(rule["step"])
    base = moment(rule.get("min") or "", kind)
    base = base if base is not None else (moment(rule.get("base") or "", kind) or 0.0)
    first = base + step * math.ceil((low - base) / step - 1e-9)
    return first, step, max(0, math.floor((high - first) / step + 1e-9))


def picked(fill: Filling, f: FormField, ctx: ItemContext) -> str:
    """The value this worker picks for this item."""
    first, step, slots = offered(f)
    truth = answer_rng(ctx, f.name).randint(0, slots)  # the step the item "has" when nothing is known
    known = moment(str(known_for(fill, ctx, f) or "").strip(), f.kind)
    if known is not None:  # the requester's value, on the picker's grid (the dry run lists those it cannot offer)
        truth = min(slots, max(0, round((known - first) / step)))
        keep_known(fill.worker, ctx.key, field_base(f.name), moment_text(first + truth * step, f.kind))
    if fill.worker.profile == "contrarian":
        k = 0
    elif fill.worker.profile in RUSHED:
        k = fill.rng.randint(0, slots)
    elif fill.rng.random() < TYPED_SLIP[takes_care(fill)]:  # a slip: the value beside (the day before, 15 min on)
        k = min(slots, max(0, truth + fill.rng.choice((-1, 1))))
    else:
        k = truth
    return moment_text(first + k * step, f.kind)
