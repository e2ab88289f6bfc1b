"""What an honest simulated worker writes is about the item, not the page."""

from __future__ import annotations

import math
import random
import re
from decimal import Decimal

from flows.core.pages.form_spec import field_rule
from flows.core.pages.mturk_forms import FormField
from flows.sim.people import captions
from flows.sim.people.crowd_model import PASTING_PROFILES, normalise
from flows.sim.people.pattern_text import matching_text
from qc.answer_values import number as read_number
from qc.form_constraints import check_field, compiled_pattern, text_length

SKIP_OPTIONAL = {"text": 0.7, "choice": 0.15, "number": 0.3}  # chance an optional field is left empty
# An honest profile's chance of leaving an optional one-click choice unanswered (``choice_skip``).
CHOICE_SKIP = {"diligent": 0.02, "typo_prone": 0.03, "slow": 0.02, "note_paster": 0.02, "fast_typist": 0.04,
               "slow_typist": 0.02}
RUSHED_SKIP = 0.9  # speeders skip what they may
SHORT_BOX = 80  # a box this short (maxlength) is for a title or a few words, not a sentence
OPENINGS = re.compile(r"^(in the photo, |the picture shows |here you can see |this shows |we see |a |an |the )",
                      re.I)
BREAKS = re.compile(r",| with | in the | at the | on the | while | and ")


SKIPPABLE = {"radio": "choice", "select": "choice", "number": "number", "text": "text", "textarea": "text",
             "search": "text"}  # a control's kind -> its SKIP_OPTIONAL kind


def optional(f: FormField) -> bool:
    """Nothing on the control asks for an answer: not required, no minimum length, no pattern."""
    return "required" not in f.attrs and not f.attrs.get("minlength") and not f.attrs.get("pattern")


def skip_rate(kind: str, profile: str, rushed: bool, params: dict[str, object] | None = None) -> float:
    """The chance a worker of ``profile`` leaves an optional field of ``kind`` empty."""
    if rushed:
        return RUSHED_SKIP
    if kind == "choice" and profile in CHOICE_SKIP:
        return float(str((params or {}).get("choice_skip", CHOICE_SKIP[profile])))
    return SKIP_OPTIONAL[kind]


def leaves_empty(f: FormField, profile: str, rushed: bool, rng: random.Random, sole: bool = False,
                 params: dict[str, object] | None = None) -> bool:
    """Whether this worker leaves an optional field empty (a ``sole`` answer: only a speeder does)."""
    kind = SKIPPABLE.get(f.kind, "")
    if not kind or not optional(f) or profile in PASTING_PROFILES or "readonly" in f.attrs:
        return False
    if sole and not rushed:
        return False
    if f.kind == "select" and "multiple" not in f.attrs:
        return False  # a single select always submits one of its options
    return rng.random() < skip_rate(kind, profile, rushed, params)


def short_phrase(text: str, limit: int) -> str:
    """A title-like phrase of what a sentence describes, within ``limit`` characters, cut at a phrase boundary."""
    body = OPENINGS.sub("", text.strip().rstrip(".!?"))
    body = OPENINGS.sub("", body)  # "In the photo, a red bus" -> "red bus"
    head = BREAKS.split(body, maxsplit=1)[0].strip() or body
    words, out = head.split(), ""
    for word in words[:8]:
        if len(f"{out} {word}".strip()) > limit:
            break
        out = f"{out} {word}".strip()
    return (out[:1].upper() + out[1:]) if out else body[:limit]


def _words(text: str) -> list[str]:
    return OPENINGS.sub("", OPENINGS.sub("", normalise(text))).replace(",", " ").split()


def copies(text: str, others: list[str]) -> bool:
    """The text repeats another field's answer for the item (four in five of their distinct words shared)."""
    mine = _words(text)
    for other in others:
        theirs = _words(other)
        if not mine or not theirs:
            continue
        shared = len(set(mine) & set(theirs)) / len(set(mine) | set(theirs))
        if shared >= 0.8:  # "A red bus in the" cut from "A red bus in the rain." shares 5 of 6 words
            return True
    return False


REWORDINGS = ("In the photo, ", "The picture shows ", "Here you can see ", "This shows ", "We see ")


def reworded(text: str, rng: random.Random, image: bool = True) -> str:
    """The same content in other words: a few synonyms, and for an image an opening."""
    words = [captions.SYNONYMS.get(w, w) if rng.random() < 0.5 else w for w in text.strip().split(" ")]
    body = " ".join(words)
    if rng.random() < 0.5 and body and image:
        body = rng.choice(REWORDINGS) + body[:1].lower() + body[1:]
    return body


def sole_answers(fields: list[FormField]) -> set[str]:
    """Names of the fields that are all their item has to answer: its only field, or all-optional ones."""
    per_item: dict[str, list[FormField]] = {}
    for f in fields:
        if f.kind != "hidden":
            per_item.setdefault(re.sub(r"^.*?(_\d+)?$", r"\1", f.name), []).append(f)
    return {f.name for item in per_item.values() if len(item) == 1 or not any("required" in f.attrs for f in item)
            for f in item}


PALETTE = ("#c0392b", "#2980b9", "#27ae60", "#f1c40f", "#8e44ad", "#e67e22", "#2c3e50", "#ecf0f1", "#d35400", "#16a085")


def palette_colour(rng: random.Random) -> str:
    """A colour picker's answer: one of a few plain colours (``<input type=color>`` posts ``#rrggbb``)."""
    return rng.choice(PALETTE)


PROSE = ("Red", "A red bus in the rain at night.")  # a word, a sentence: a box whose pattern takes neither asks a code


def code_pattern(f: FormField) -> str:
    """The control's pattern when it takes no words (a reading, a code, a number), else "": typed in its form."""
    pattern = str((field_rule(f) or {}).get("pattern") or "")
    regex = compiled_pattern(pattern) if pattern else None
    return pattern if regex is not None and not any(regex.matches(s) for s in PROSE) else ""


FILLER = ("The", "item", "shows", "this", "clearly", "with", "some", "detail", "in", "view")


def fit_text(text: str, f: FormField, rng: random.Random, padding: list[str]) -> str:
    """The text edited until the control takes it: lengthened, cut, or typed in its format."""
    rule = field_rule(f) or {}
    low, high = rule.get("minlength") or 0, rule.get("maxlength")
    words = " ".join(padding).split() or list(FILLER)
    k = 0
    while text_length(text) < low and k < 400:
        text = f"{text.rstrip('.')} {words[k % len(words)]}".strip()
        k += 1
    if high is not None and text_length(text) > high:
        cut = text[:high]
        text = cut.rsplit(" ", 1)[0] if " " in cut and text_length(cut.rsplit(" ", 1)[0]) >= low else cut
        while text_length(text) > high:
            text = text[:-1]
    pattern = rule.get("pattern")
    if pattern and compiled_pattern(pattern) and check_field(rule, text) != "":
        for candidate in (re.sub(r"[^\w\s]", "", text), text.rstrip(".")):
            if check_field(rule, candidate) == "":
                return candidate
        return matching_text(pattern, rng) or text
    return text


def number_text(value: float, rule: dict[str, object]) -> str:
    """A number as a person types it at the control's step: pence as two decimals, whole steps as a whole."""
    step = rule.get("step")
    places = -int(Decimal(str(step)).normalize().as_tuple().exponent) if step not in ("any", None) else -1
    if places < 0 and float(value).is_integer():
        return str(int(value))
    return f"{value:.{places}f}" if places >= 0 else f"{value:.10g}"


def on_grid(value: float | None, rule: dict[str, object], default: str = "") -> str:
    """The nearest number the control sends (in bounds, on its step); no number: where the control starts."""
    low, high = (None if rule.get(k) is None else float(str(rule[k])) for k in ("min", "max"))
    start = read_number(default)
    start = float(str(rule["start"])) if start is None and rule.get("start") is not None else start
    value = value if value is not None else start if start is not None else low if low is not None else 0.0
    value = min(max(value, low if low is not None else value), high if high is not None else value)
    step = rule.get("step")
    if step not in ("any", None) and float(str(step)) > 0:
        size, base = float(str(step)), float(str(rule.get("base") or 0.0))
        k = round((value - base) / size)
        k = max(k, math.ceil((low - base) / size - 1e-9)) if low is not None else k
        k = min(k, math.floor((high - base) / size + 1e-9)) if high is not None else k
        value = base + k * size
    return number_text(value, rule)


def sendable(f: FormField, value: str, rng: random.Random) -> str:
    """``value`` as the control could send it: in bounds on its step, one of its options, text of its format."""
    rule = field_rule(f)
    if rule is None or (value == "" and f.kind != "range") or rule["type"] == "annotations" or \
            (value != "" and check_field({**rule, "required": False}, value) == ""):
        return value
    if rule["type"] == "number":
        return on_grid(read_number(value), rule, f.value)
    if rule["type"] == "one":
        return rng.choice(rule["options"]) if rule["options"] else ""
    if rule["type"] == "many":
        return "|".join(o for o in rule["options"] if o in value.split("|"))
    if rule["type"] == "date":  # a picker sends none of what it does not offer
        return ""
    return fit_text(value, f, rng, [])
