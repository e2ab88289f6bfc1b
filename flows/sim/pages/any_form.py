"""How a simulated worker fills a page hitflow did not write: each control within its limits, by profile."""

from __future__ import annotations

import random
import re
from dataclasses import replace

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.crowd_elements import ANNOTATIONS, ENTITIES
from flows.core.pages.form_spec import STYLE_HIDDEN, field_rule, required_when
from flows.core.pages.mturk_forms import FormField, field_base, read_page
from flows.sim.pages.box_text import written
from flows.sim.pages.choice_answers import choice, number, ticks
from flows.sim.pages.date_answers import offered, picked
from flows.sim.pages.filling import RUSHED, Filling, answer_rng, known_for, takes_care, writing_sources
from flows.sim.pages.none_boxes import none_pairs, settle
from flows.sim.pages.page_spec import honour_spec, page_spec
from flows.sim.pages.script_checks import checked_boxes, word_minimum
from flows.sim.pages.typed_values import shaped_value, typed_value
from flows.sim.people import captions
from flows.sim.people.annotations import marks
from flows.sim.people.attention_answers import attention_answer, rating_rows
from flows.sim.people.box_conditions import EMPTY_WHEN, FAULT, FINE, IF_SO, asked_when, left_empty
from flows.sim.people.careless_answers import COPIED, stock_answer
from flows.sim.people.crowd_model import PASTING_PROFILES, BankEntry, Worker, normalise
from flows.sim.people.entity_spans import entities
from flows.sim.people.item_answers import (
    code_pattern,
    fit_text,
    leaves_empty,
    optional,
    palette_colour,
    sendable,
    sole_answers,
)
from flows.sim.people.known_answers import described, known_answer
from flows.sim.people.latent_choices import keep_known
from flows.sim.people.page_context import ItemContext, context_for, page_contexts
from flows.sim.people.pattern_text import matching_text
from flows.sim.people.plain_text import lengthened
from flows.sim.people.stated_limits import stated, stated_format
from flows.sim.people.unseen_images import BLIND_TEXT, TEXT_SOURCE, unreadable
from flows.sim.people.worker_questions import about_worker, own_question
from qc.answer_values import WHEN_INPUTS, moment_text
from qc.form_constraints import condition_met
from qc.instructed_items import instructed_option
from qc.submit_rules import SubmitRules

NO_RULES = SubmitRules(min_words=0, one_sentence=False, banned_prefixes=(), required=False)  # a paste as it is


def free_text(fill: Filling, f: FormField, ctx: ItemContext) -> str:
    """What this worker types into a text box for this item."""
    if f.kind in ("email", "url"):  # the worker's own address, a link of the item's
        return shaped_value(fill, f.kind, "", ctx, None)
    sources = writing_sources(ctx, fill.bank)
    if unreadable(ctx, fill.bank) and (ctx.shows_image or not optional(f)):  # (an optional box there: left empty)
        fill.worker.memory[f"{TEXT_SOURCE}{ctx.key}|{field_base(f.name)}"] = BLIND_TEXT  # the report says so
    if (careless := _careless(fill, f, ctx, sources)) is not None:
        return careless
    if code := code_pattern(f):
        question = fill.questions.get(f.name, "")  # a reading, a code: typed as the page asks, when it asks
        if left_empty(question, fill.picked.get(ctx.key, ""), fill.picked.get(f"{ctx.key}?", "")):
            return ""
        return matching_text(code, answer_rng(ctx, field_base(f.name)) if takes_care(fill) else fill.rng) or ""
    if fill.worker.profile in RUSHED:
        short = min(sources, key=len).split()
        return fit_text(" ".join(short[: max(3, len(short) // 2)]), f, fill.rng, sources)
    if not (ctx.texts or ctx.shows_image or described(fill.bank, ctx.key)) and optional(f):
        return ""  # an optional box about an item that shows nothing to describe (a sound): left empty
    return written(fill, f, ctx, sources)


def _careless(fill: Filling, f: FormField, ctx: ItemContext, sources: list[str]) -> str | None:
    """The text of a profile that does not write about the item (a copy, a paste, a canned line), else None."""
    kind, rng = fill.worker.profile, fill.rng
    if kind == "copy_paster" and ctx.texts:  # the item's own text, copied on the page and pasted back
        copied = fit_text(max(ctx.texts, key=len), f, rng, ctx.texts)
        fill.worker.memory[f"{COPIED}{normalise(copied)}"] = ctx.key  # how it arrived: typing_model.py
        return copied
    if kind in PASTING_PROFILES:
        return fit_text(captions.pasted(fill.worker, kind, sources, fill.bank, NO_RULES, rng), f, rng, sources)
    if kind == "canned_abuser" and rng.random() < fill.worker.params.get("canned_rate", 0.8):
        low = int((field_rule(f) or {}).get("minlength") or 0)
        return fit_text(stock_answer(fill.worker.worker_id, low, rng), f, rng, [])
    return None


def answer(fill: Filling, f: FormField, ctx: ItemContext) -> str | None:
    """The value a worker gives one control (None: the control is not submitted)."""
    if f.kind in WHEN_INPUTS:  # a picker's value, whatever its question asks
        return picked(fill, f, ctx)
    asked = own_question(fill.questions.get(f.name, ""), ctx.texts)
    if asked and not (fill.worker.profile in PASTING_PROFILES and f.kind in ("text", "textarea")) and \
            (mine := about_worker(f, asked, fill.worker.worker_id, fill.rng)) is not None:
        return mine  # a question about the worker, answered about themselves
    if f.kind in ANNOTATIONS:
        careful = takes_care(fill)
        if f.kind == ENTITIES:  # spans of the element's own text
            return entities(f.attrs.get("text", ""), f.options, fill.worker.profile, careful, fill.rng)
        return marks(f.kind, f.options, answer_rng(ctx, f.name), fill.worker.profile, careful, fill.rng)
    if f.kind in ("radio", "select", "checkbox") and \
            (told := instructed_option(fill.questions.get(f.name, ""), f.options, f.labels)) is not None:
        return attention_answer(fill.worker, [o for o in f.options if o], told, fill.rng, embedded=f.name in fill.rows)
    if f.kind in ("radio", "select") and "multiple" not in f.attrs:
        value = choice(fill, f, ctx)
        fill.picked[ctx.key] = f.labels.get(value, value)  # a reason names the option as the page shows it
        fill.picked[f"{ctx.key}?"] = own_question(fill.questions.get(f.name, ""), ctx.texts)
        return value
    if f.kind in ("checkbox", "select"):
        return ticks(fill, f, ctx)
    if f.kind in ("number", "range"):
        fill.picked[ctx.key] = number(fill, f, ctx)
        return fill.picked[ctx.key]
    if f.kind == "color":  # a colour the item "has": the same for careful workers
        return f.value or palette_colour(answer_rng(ctx, f.name))
    if "readonly" in f.attrs:
        return f.value
    text = free_text(fill, f, ctx)
    if text and (wanted := fill.min_words.get(f.name, 0)):  # the page's own script counts words: as a person
        text = lengthened(text, wanted, ctx.texts or writing_sources(ctx, fill.bank), fill.rng)
    return text


def fill_unhinted(worker: Worker, fields: list[FormField], html: str, bank: dict[str, BankEntry],
                  rng: random.Random, page_key: str = "", common: frozenset[str] = frozenset()) -> dict[str, str]:
    """Values for controls with no simulator hint (hidden ones stay as set); ``common``: the page's own text."""
    todo = [f for f in fields if f.kind != "hidden" and not f.attrs.get("data-sim-fill")
            and not (f.kind == "text" and f.value) and settable(f)]
    if not todo:
        return {}
    contexts = page_contexts(html or "", common)
    if page_key:
        contexts = {k: ItemContext(f"{page_key}#{k}", c.texts, c.shows_image, c.asks)
                    for k, c in contexts.items()}
    shown = read_page(html or "")
    fill = Filling(worker, bank, rng, questions=question_texts(shown), page=" ".join(t for _, t, _ in shown.texts),
                   text_boxes=[f.name for f in todo if f.kind in ("text", "textarea")], sole=sole_answers(fields),
                   rows=rating_rows(fields))
    if least := word_minimum(html or ""):  # a check the page's script makes, met as a person meets it
        fill.min_words = dict.fromkeys(checked_boxes(todo), least)
    fill.min_words |= {f.name: int(n) for f in todo if (n := f.attrs.get("data-min-words", "")).isdigit()}
    values = _filled(fill, todo, contexts, {f.name for f in fields})
    honour_spec(values, page_spec(html) or {}, {f.name: f for f in fields})
    settle(values, none_pairs(fields), lambda n: known_answer(bank, context_for(contexts, n, {}).key,
                                                              field_base(n)))  # a value, or a box saying none
    controls = {f.name: f for f in fields} | {f.name: f for f in todo}
    values = {n: sendable(controls[n], v, rng) if n in controls else v for n, v in values.items()}
    if worker.profile == "rule_breaker":  # the page would refuse this; they posted around it
        _broken(values, controls, [f.name for f in todo], rng)
    return values


def settable(f: FormField) -> bool:
    """Whether a person can set the control: shown, or a radio or checkbox styled away behind the label drawn for it
    (a star, a chip: the text that names it, which a person clicks)."""
    return not STYLE_HIDDEN.search(f.attrs.get("style", "")) or (f.kind in ("radio", "checkbox") and bool(f.labels))


def _filled(fill: Filling, todo: list[FormField], contexts: dict[str, ItemContext], names: set[str]) -> dict[str, str]:
    """Each control's value in page order (``todo`` updated with the rules its words state), as the worker fills it."""
    values: dict[str, str] = {}
    worker = fill.worker
    for k, f in enumerate(todo):
        if (when := required_when(f, names)) and condition_met(when, values):  # page order: the choice is made
            todo[k] = f = replace(f, attrs={**f.attrs, "required": ""})
        question = fill.questions.get(f.name, "")
        if f.kind == "text" and not f.attrs.get("pattern") and (shape := stated_format(question)):
            todo[k] = f = replace(f, attrs={**f.attrs, "pattern": shape})  # "(5 digits)": the page's script checks it
        ctx = context_for(contexts, f.name, f.attrs)
        if (typed := typed_value(fill, f, ctx)) is not None:  # a time, a date, a figure: typed_values.py
            values[f.name] = typed
            continue
        # a box asked after one answer ("If no, what is wrong?"): empty after the others, answered after it
        after = _applies(question, fill.picked.get(ctx.key, ""), fill.picked.get(f"{ctx.key}?", "")) \
            if f.kind in ("text", "textarea") else None
        asked_for = f.name in fill.sole or bool(after) or \
            bool(stated(question).least_words and not re.search(r"\boptional\b", question, re.I))  # "15 to 40 words"
        # an optional field, skipped
        if after is False or leaves_empty(f, worker.profile, worker.profile in RUSHED, fill.rng, asked_for,
                                          worker.params):
            if f.kind not in ("radio", "select"):
                values[f.name] = ""  # an empty box is still submitted; an unchosen radio is not
            continue
        if known_for(fill, ctx, f) == "" and worker.profile not in RUSHED:  # the requester's answer: left blank
            values[f.name] = ""
            keep_known(worker, ctx.key, field_base(f.name), "")  # the report counts it known
        elif (v := answer(fill, f, ctx)) is not None:
            values[f.name] = v
    return values


def _applies(question: str, chosen: str, choice_asks: str) -> bool | None:
    """Whether a box the page asks under a condition ("Leave this empty if you chose ...", "If no, what is wrong?")
    is to be filled after ``chosen``; None: asked of everyone, or nothing chosen yet."""
    if (when := asked_when(question, chosen)) is not None:
        return when
    said, empty = IF_SO.match(question), EMPTY_WHEN.search(question)
    # (a condition on the item, "leave empty if everything is clear", is no answer of the worker's: None)
    stated = (empty and re.search(r"\byou (?:answered|chose|selected|picked|said|ticked|clicked)\b", empty[0], re.I)) \
        or (said and (FAULT.search(said["c"]) or FINE.search(said["c"])))
    return not left_empty(question, chosen, choice_asks) if stated and chosen else None


def _broken(values: dict[str, str], controls: dict[str, FormField], todo: list[str], rng: random.Random) -> None:
    """A rule breaker's blanks: required fields left empty; a date around a picker's minimum, a step before it."""
    pool = [n for n in sorted(values) if n in todo]
    required = [n for n in pool if "required" in controls[n].attrs or controls[n].attrs.get("data-min-selections")
                or controls[n].attrs.get("data-one-of")] or pool
    group = {n: g for n in pool if (g := controls[n].attrs.get("data-one-of"))}
    chosen = rng.sample(required, k=min(len(required), max(1, len(required) // 4)))
    # a group the page wants one of is left blank whole: with one box ticked, nothing was posted around the page
    for name in dict.fromkeys(m for n in chosen for m in (pool if n in group else [n]) if group.get(m) == group.get(n)):
        # a slider has no blank: left where the page put it, which a required slider's page refuses
        values[name] = sendable(controls[name], "", rng) if controls[name].kind == "range" else ""
        if controls[name].kind in WHEN_INPUTS and (field_rule(controls[name]) or {}).get("min"):
            first, step, _ = offered(controls[name])
            values[name] = moment_text(first - step, controls[name].kind)
