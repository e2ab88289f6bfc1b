"""How a simulated worker fills a page hitflow did not write: any text box, choice or number,
within the constraints its controls declare, in the manner of the worker's profile.

What a field is about comes from the page itself: a field named ``<name>_<i>`` belongs to item
``i`` (its id from ``image_id_<i>``/``item_id_<i>``, else its image), and the text shown with that
item and no other (nor on the type's other HITs: page_common.py) is the item's. Honest workers write
from the item's captions in the bank, else that text, else a bank image the item adopts
(``image_entry``), never typing the same text twice; choices follow the item's latent answer
(latent_choices.py). Speeders rush, pasters paste one text everywhere, contrarians give one answer
to every choice, rule breakers leave required fields empty as if the page's check had been bypassed.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, field

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.crowd_elements import ANNOTATIONS, ENTITIES
from flows.core.pages.form_spec import field_rule
from flows.core.pages.mturk_forms import FormField, read_page
from flows.sim import captions
from flows.sim.annotations import marks
from flows.sim.crowd_model import PASTING_PROFILES, BankEntry, Worker, normalise
from flows.sim.entity_spans import entities
from flows.sim.item_answers import (
    SHORT_BOX,
    copies,
    fit_text,
    leaves_empty,
    optional,
    palette_colour,
    reworded,
    short_phrase,
    sole_answers,
)
from flows.sim.known_answers import described, known_answer, known_option
from flows.sim.latent_choices import KNOWN, LATENT, SOURCE, accuracy, confused, latent_answer, slip
from flows.sim.page_context import ItemContext, context_for, field_base, item_index, page_contexts
from flows.sim.page_spec import honour_spec, page_spec
from flows.sim.ratings import nearest, numeric_scale, rated_position, truth_option
from flows.sim.slot_text import slot, slot_text
from flows.sim.worker_questions import about_worker
from qc.form_constraints import step_ok

RUSHED = ("speeder", "canned_abuser")
NONE_OPTIONS = ("none", "nothing", "no", "n/a", "none of these")


@dataclass
class Filling:
    worker: Worker
    bank: dict[str, BankEntry]
    rng: random.Random
    item_texts: dict[str, list[str]] = field(default_factory=dict)  # item -> what this worker wrote for it
    questions: dict[str, str] = field(default_factory=dict)  # field -> the words a person reads as its question
    text_boxes: list[str] = field(default_factory=list)  # the page's free-text fields, in page order


def _truth_rng(ctx: ItemContext, name: str) -> random.Random:
    """The answer an item "really" has for a choice: the same for every worker."""
    return random.Random(zlib.crc32(f"{ctx.key}|{name}".encode()))


def _careful(w: Worker, rng: random.Random) -> bool:
    return rng.random() < accuracy(w)


def _known(fill: Filling, ctx: ItemContext, f: FormField) -> str | None:
    """The requester's known answer for this item and field, as the field holds it (flows/sim/known_answers.py)."""
    return known_answer(fill.bank, ctx.key, field_base(f.name))


def _takes_care(fill: Filling) -> bool:
    """Whether the worker takes care over this answer: a rushed profile never does, the others by skill."""
    return fill.worker.profile not in RUSHED and _careful(fill.worker, fill.rng)


def _sources(ctx: ItemContext, bank: dict[str, BankEntry]) -> list[str]:
    """What an honest worker writes from: the bank's captions, the item's own text, or an adopted image's."""
    known = bank.get(ctx.key.split("~")[0])
    if known and known.captions:
        return [c for c in known.captions if c.strip()] or known.captions
    if ctx.texts:
        return ctx.texts
    entry, scene = captions.image_entry(ctx.key, bank)
    return [f"{c.strip().rstrip('.!?')}, {scene}." if scene else c for c in entry.captions] or ["An object."]


def _pasted(fill: Filling, sources: list[str]) -> str:
    kind, w = fill.worker.profile, fill.worker
    if kind == "generic_praise":
        return fill.rng.choice(captions.PRAISE)
    if kind == "instruction_echo":
        return fill.rng.choice(captions.PAGE_ECHOES)
    if "text" not in w.memory:
        own = random.Random(w.worker_id)
        pick = own.choice(sources) if kind == "copy_paster" else captions.TEMPLATES[
            int(w.params.get("ring", own.randrange(len(captions.TEMPLATES)))) % len(captions.TEMPLATES)]
        w.memory["text"] = pick
    return w.memory["text"]


def _styled(fill: Filling, text: str) -> str:
    kind = fill.worker.profile
    if kind == "blur_talker" and fill.rng.random() < fill.worker.params.get("blur_rate", 0.7):
        text = "A blurry photo of " + text[:1].lower() + text[1:]
    if kind == "caps_locker":
        return text.upper()
    if kind == "typo_prone":
        return captions.add_typos(text, fill.worker.params.get("typo_rate", 0.12), fill.rng)
    return text


def free_text(fill: Filling, f: FormField, ctx: ItemContext) -> str:
    """What this worker types into a text box for this item."""
    kind, rng = fill.worker.profile, fill.rng
    if f.kind == "email":
        return f"{fill.worker.worker_id.lower()}@example.org"
    if f.kind == "url":
        return f"https://example.org/{zlib.crc32(ctx.key.encode())}"
    sources = _sources(ctx, fill.bank)
    if kind in PASTING_PROFILES:
        return fit_text(_pasted(fill, sources), f, rng, sources)
    boxes = [n for n in fill.text_boxes if item_index(n) == item_index(f.name)]
    if found := slot(f, ctx.texts, boxes):  # the item's own sentence has a gap: the missing words
        careful = _takes_care(fill)
        text = slot_text(found, rng, careful)
        for _ in range(5 if found[0] != "word" else 0):  # a person does not open every sentence alike
            text = text if normalise(text) not in fill.worker.written else slot_text(found, rng, careful)
        fill.worker.written.add(normalise(text))
        return text.upper() if kind == "caps_locker" else text
    if kind in RUSHED:
        short = min(sources, key=len).split()
        return fit_text(" ".join(short[: max(3, len(short) // 2)]), f, rng, sources)
    if not (ctx.texts or ctx.shows_image or described(fill.bank, ctx.key)) and optional(f):
        return ""  # an optional box about an item that shows nothing to describe (a sound): left empty
    draft = rng.choice(sources).strip()
    if rng.random() < 0.6:  # people put what they see in their own words
        draft = reworded(draft, rng)
    high = (field_rule(f) or {}).get("maxlength")
    shaped = (lambda t: short_phrase(t, int(high))) if high is not None and high <= SHORT_BOX else (lambda t: t)
    others = [s for s in sources if s != draft]
    written = fill.item_texts.setdefault(ctx.key, [])  # this item's other fields: never copied
    text, attempt = fit_text(_styled(fill, shaped(draft)), f, rng, others or sources), 0
    while (normalise(text) in fill.worker.written or copies(text, written)) and attempt < 2000:
        attempt += 1
        if attempt > len(others) and written and not f.attrs.get("minlength") and "required" not in f.attrs:
            return ""  # an optional box, and nothing new to say about the item: left empty
        retry = others[attempt - 1] if attempt <= len(others) else captions.variation(draft, attempt)
        text = fit_text(_styled(fill, shaped(retry)), f, rng, sources)
    fill.worker.written.add(normalise(text))
    written.append(text)
    return text


def choice(fill: Filling, f: FormField, ctx: ItemContext) -> str:
    """The item's latent answer, given with the worker's skill (flows/sim/latent_choices.py)."""
    options = [o for o in f.options if o != ""] or f.options
    if not options:
        return ""
    if fill.worker.profile == "contrarian":
        return options[0]  # one answer to everything
    known = known_option(_known(fill, ctx, f), options)
    if known is None and (scale := numeric_scale(options)):  # a rating of what the simulator cannot perceive
        return rating(fill, f, ctx, options, scale)
    truth = latent_answer(fill.worker, ctx.key, field_base(f.name), options,
                          ctx.texts or (_sources(ctx, fill.bank) if ctx.shows_image and fill.bank else []),
                          f.attrs.get("header", ""), known)
    if fill.worker.params.get("choices") == "wrong":
        return confused(fill.worker.worker_id, options, truth)
    if not _takes_care(fill):
        return slip(fill.worker, options, truth, fill.rng)
    return truth


def rating(fill: Filling, f: FormField, ctx: ItemContext, options: list[str], scale: list[float]) -> str:
    """The item's latent score through the worker's bias and honest noise; its truth kept for sim_items.json."""
    base = field_base(f.name)
    truth = truth_option(options, scale, ctx.key, base)
    fill.worker.memory[f"{LATENT}{ctx.key}|{base}"] = truth
    if fill.worker.params.get("choices") == "wrong":
        return confused(fill.worker.worker_id, options, truth)
    careful = _takes_care(fill)
    return nearest(options, scale, rated_position(ctx.key, base, fill.worker.worker_id, careful, fill.rng))


def ticks(fill: Filling, f: FormField, ctx: ItemContext) -> str:
    rule = field_rule(f) or {}
    truth_rng = _truth_rng(ctx, f.name)
    truth = [o for o in f.options if truth_rng.random() < 0.35]
    if (given := _known(fill, ctx, f)) is not None:  # the requester's ticks, "a|b"
        truth = [o for o in f.options if known_option(o, given.split("|"))]
        fill.worker.memory[f"{LATENT}{ctx.key}|{field_base(f.name)}"] = "|".join(truth)
        fill.worker.memory[f"{SOURCE}{ctx.key}|{field_base(f.name)}"] = KNOWN
    if fill.worker.profile == "contrarian":
        picked = f.options[:1]
    elif fill.worker.profile in RUSHED:
        picked = [o for o in f.options if fill.rng.random() < 0.3]
    else:
        picked = [o for o in f.options if (o in truth) == _careful(fill.worker, fill.rng)]
    if any(p.lower() not in NONE_OPTIONS for p in picked):  # "none of these" goes with nothing else
        picked = [p for p in picked if p.lower() not in NONE_OPTIONS]
    picked += [o for o in rule.get("required_options", []) if o not in picked]
    if not picked and int(rule.get("min") or 0) > 0:  # nothing applies: say so where the page lets you
        picked += [o for o in f.options if o.lower() in NONE_OPTIONS][:1]
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
    rule = field_rule(f) or {}
    low = float(rule["min"]) if rule.get("min") is not None else 0.0
    high = float(rule["max"]) if rule.get("max") is not None else low + 20
    step = 1.0 if rule.get("step") in ("any", None) else float(rule["step"])
    base = float(rule.get("base") or 0.0)
    first = base + step * -(-(float(low) - base) // step)
    slots = max(0, int((float(high) - first) // step))
    if fill.worker.profile == "contrarian":
        k = 0
    elif f.kind == "range":  # a slider is a rating: the item's latent score, bias and honest noise
        careful = _takes_care(fill)
        k = round(slots * rated_position(ctx.key, f.name, fill.worker.worker_id, careful, fill.rng))
    elif not _takes_care(fill):
        k = fill.rng.randint(0, slots)
    else:
        k = min(slots, max(0, _number_truth(fill, f, ctx, first, step, slots) + fill.rng.choice((-1, 0, 0, 1))))
    value = first + k * step
    if not step_ok(value, rule):
        value = first
    return str(int(value)) if float(value).is_integer() else f"{value:.10g}"


def _number_truth(fill: Filling, f: FormField, ctx: ItemContext, first: float, step: float, slots: int) -> int:
    """The slot of the item's true number: the requester's known one, else drawn by the item and field."""
    try:
        return min(slots, max(0, round((float(_known(fill, ctx, f) or "") - first) / step)))
    except ValueError:  # none known, or not a number
        return _truth_rng(ctx, f.name).randint(0, slots)


def answer(fill: Filling, f: FormField, ctx: ItemContext) -> str | None:
    """The value a worker gives one control (None: the control is not submitted)."""
    asked = fill.questions.get(f.name, "")
    if asked and not (fill.worker.profile in PASTING_PROFILES and f.kind in ("text", "textarea")) and \
            (mine := about_worker(f, asked, fill.worker.worker_id, fill.rng)) is not None:
        return mine  # a question about the worker, answered about themselves
    if f.kind in ANNOTATIONS:
        careful = _takes_care(fill)
        if f.kind == ENTITIES:  # spans of the element's own text
            return entities(f.attrs.get("text", ""), f.options, fill.worker.profile, careful, fill.rng)
        return marks(f.kind, f.options, _truth_rng(ctx, f.name), fill.worker.profile, careful, fill.rng)
    if f.kind in ("radio", "select") and "multiple" not in f.attrs:
        return choice(fill, f, ctx)
    if f.kind in ("checkbox", "select"):
        return ticks(fill, f, ctx)
    if f.kind in ("number", "range"):
        return number(fill, f, ctx)
    if f.kind == "color" and not f.value:  # a colour the item "has": the same for careful workers
        return palette_colour(_truth_rng(ctx, f.name))
    if f.kind in ("date", "datetime-local", "month", "week", "time", "color"):
        return f.value or {"date": "2026-01-15", "month": "2026-01", "week": "2026-W03", "time": "12:00",
                           "color": "#336699", "datetime-local": "2026-01-15T12:00"}[f.kind]
    if "readonly" in f.attrs:
        return f.value
    return free_text(fill, f, ctx)


def fill_unhinted(worker: Worker, fields: list[FormField], html: str, bank: dict[str, BankEntry],
                  rng: random.Random, page_key: str = "", common: frozenset[str] = frozenset()) -> dict[str, str]:
    """Values for the page's controls that carry no simulator hint (hidden ones stay as set);
    ``common``: the page's own text, as other HITs of its type show it (flows/sim/page_common.py)."""
    todo = [f for f in fields if f.kind != "hidden" and not f.attrs.get("data-sim-fill")
            and not (f.kind == "text" and f.value)]
    if not todo:
        return {}
    contexts = page_contexts(html or "", common)
    if page_key:
        contexts = {k: ItemContext(f"{page_key}#{k}", c.texts, c.shows_image) for k, c in contexts.items()}
    fill = Filling(worker, bank, rng, questions=question_texts(read_page(html or "")),
                   text_boxes=[f.name for f in todo if f.kind in ("text", "textarea")])
    values: dict[str, str] = {}
    sole = sole_answers(fields)
    for f in todo:
        # an optional field, skipped
        if leaves_empty(f, worker.profile, worker.profile in RUSHED, rng, f.name in sole, worker.params):
            if f.kind not in ("radio", "select"):
                values[f.name] = ""  # an empty box is still submitted; an unchosen radio is not
            continue
        if (v := answer(fill, f, context_for(contexts, f.name, f.attrs))) is not None:
            values[f.name] = v
    honour_spec(values, page_spec(html), {f.name: f for f in fields})
    if worker.profile == "rule_breaker":  # the page would refuse this; they posted around it
        required = sorted(n for n in values if "required" in {f.name: f for f in todo}[n].attrs)
        for name in rng.sample(required or sorted(values), k=max(1, len(required or values) // 4)):
            values[name] = ""
    return values
