"""How a simulated worker fills a task page: its submit rules, form fields and timers, from the worker's profile."""

from __future__ import annotations

import random

from flows.core.pages.crowd_elements import ANNOTATIONS
from flows.core.pages.form_spec import BOOKKEEPING
from flows.core.pages.mturk_forms import FormField
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.page_spec import page_spec
from flows.sim.people import crowd, judges, qual_tests, typing_model
from flows.sim.people.attention_answers import attention_answer, check_question
from qc.answer_values import WHEN_INPUTS
from qc.instructed_items import instructed_option
from qc.submit_rules import CANNED_TEXT, SubmitRules

# People's median seconds a control, the simulator's own (never the plan's), from real MTurk timings where there are
# some (tests/test_time_models.py), else assumed
SECONDS = {"text": 42.0, "formatted": 20.0, "choice": 5.0, "number": 8.0, "date": 10.0, "marks": 30.0}
READING = 25.0


def page_rules(html: str) -> SubmitRules:
    """The submit rules a page declares for its own check (what its workers are held to)."""
    spec = page_spec(html)
    if spec is None:
        return SubmitRules(min_words=0, one_sentence=False, banned_prefixes=(), required=False)
    return SubmitRules(
        min_words=int(spec.get("min_words", 0)), one_sentence=bool(spec.get("one_sentence")),
        banned_prefixes=tuple(spec.get("banned_prefixes", [])), max_chars=spec.get("max_chars"),
        required=bool(spec.get("required", True)), canned_text=spec.get("canned_text", CANNED_TEXT),
    )


def work_units(fields: list[FormField]) -> int:
    """Effort in captions, for recruiting: a test of eight short questions takes about as long as one caption; of
    the controls without a hint (any page's), a text box about as long as a caption, four choices one."""
    plain = [f for f in fields if f.kind != "hidden" and not f.attrs.get("data-sim-fill")]
    texts = sum(1 for f in plain if f.kind in ("text", "textarea") and not f.value)
    return work_effort(fields)[0] + texts + -(-(len(plain) - texts) // 4)


def work_effort(fields: list[FormField]) -> tuple[int, list[float]]:
    """What a page takes a worker: units of hinted work and, for other controls, a diligent person's median seconds."""
    hints = [f.attrs.get("data-sim-fill") for f in fields]
    units = hints.count("caption") + -(-hints.count("qual_answer") // 8) + judges.judgement_units(fields)
    plain = [SECONDS[k] for f in fields if (k := plan_kind(f))]
    return units, [READING, *plain] if plain else []


def plan_kind(f: FormField) -> str:
    """What a person does with a control without a hint ("" for nothing: bookkeeping, prefilled, hinted): a hidden
    value the page's own script writes is a click (stars, a scale); a text box with a pattern takes a code."""
    if f.attrs.get("data-sim-fill") or (f.kind in ("text", "textarea", "hidden") and f.value):
        return ""
    if f.kind == "hidden":
        return "" if BOOKKEEPING.match(f.name) else "choice"
    if f.attrs.get("data-crowd") in ANNOTATIONS:
        return "marks"
    if f.kind in ("text", "textarea"):
        return "formatted" if f.kind == "text" and f.attrs.get("pattern") else "text"
    return {"radio": "choice", "select": "choice", "checkbox": "choice", "number": "number",
            "range": "number", **dict.fromkeys(WHEN_INPUTS, "date")}.get(f.kind, "formatted")


def fill_form(worker: crowd.Worker, fields: list[FormField], rules: SubmitRules,
              accept: float, submit: float, bank: dict[str, crowd.BankEntry],
              rng: random.Random, html: str = "", page_key: str = "",
              common: frozenset[str] = frozenset()) -> dict[str, str]:
    """The values a worker submits for every control of the page (``html``: read for what each field is about)."""
    n_items = max(1, sum(1 for f in fields if f.attrs.get("data-sim-fill") == "caption"))
    step = (submit - accept) / n_items
    values: dict[str, str] = judges.judge_fields(worker, fields, bank, rng)
    values.update(fill_unhinted(worker, fields, html, bank, rng, page_key, common))
    for f in fields:
        if f.name in values:
            continue  # answered; a choice fill_unhinted left unchosen (an optional one) gets nothing below
        hint, item = f.attrs.get("data-sim-fill", ""), f.attrs.get("data-item", "")
        index = int(f.attrs.get("data-index", "0") or 0)
        if hint == "caption":
            values[f.name] = crowd.write_caption(worker, item, bank, rules, rng)
        elif hint == "qual_answer":
            values[f.name] = qual_tests.answer_item(worker, item, f.options, rng)
        elif hint == "attention":
            told = instructed_option(check_question(html, f.name), f.options)
            values[f.name] = attention_answer(worker, list(f.options), told, rng)
        elif hint == "text_present":
            values[f.name] = crowd.says_text_present(worker, item, bank, rng)
        elif hint == "start_ms":
            values[f.name] = str(int((accept + step * index) * 1000))
        elif hint == "end_ms":
            values[f.name] = str(int((accept + step * (index + 1)) * 1000 - 500))
        elif f.kind in ("hidden", "text") and f.value:
            values[f.name] = f.value
        elif f.kind in ("text", "textarea"):
            values[f.name] = ""
    recorders = [f.name for f in fields if f.attrs.get("data-sim-fill") == "telemetry"]
    if recorders:  # the page's recorder: how the captions (any page's free text) arrived, in its own format
        captions = [(f.name, f.attrs.get("data-item", "") or _item_of(f.name, values), values.get(f.name, ""))
                    for f in fields if f.attrs.get("data-sim-fill") == "caption" or _typed_text(f, values)]
        values[recorders[0]] = typing_model.page_record(worker, captions, accept, submit, rules.canned_text)
    return values


def _typed_text(f: FormField, values: dict[str, str]) -> bool:
    """An unhinted free-text box the worker filled (a custom page's), which the recorder watches too."""
    return (not f.attrs.get("data-sim-fill") and f.kind in ("text", "textarea", "search")
            and "hidden" not in f.attrs and bool(values.get(f.name)))


def _item_of(name: str, values: dict[str, str]) -> str:
    """The item a field ``<base>_<i>`` is about: the page's ``image_id_<i>``."""
    base, _, index = name.rpartition("_")
    return values.get(f"image_id_{index}", "") if base and index.isdigit() else ""

