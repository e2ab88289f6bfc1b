"""Submit rules of the human-evaluation pages (a JSON list of questions), enforced by ``hit_templates/judgement.js`` and
by :func:`check_answers`: ``one``; ``many`` (``min``, ``exclusive``, ``needs``/``forbids``); ``slider``; ``number``."""

from __future__ import annotations

from typing import Any

from qc.answer_values import number as read_number
from qc.answer_values import ticks as _ticks

Question = dict[str, Any]
RULE_MESSAGES = {
    "unanswered": "Please answer this question.",
    "not_an_option": "This answer is not one of the choices.",
    "none_with_others": "\u201cNo caption is correct\u201d cannot be ticked together with a sentence.",
    "categories_missing": "An incongruent description needs at least one error category.",
    "categories_with_congruent": "A congruent description has no error categories; untick them or choose incongruent.",
    "slider_not_moved": "Please move the slider to give your rating.",
    "out_of_range": "This number is outside the allowed range.",
}


def _check_one(q: Question, fields: dict[str, str]) -> str:
    value = fields.get(q["name"], "")
    kind = q["type"]
    if kind == "one":
        return "unanswered" if value == "" else ("" if value in q["options"] else "not_an_option")
    if kind == "many":
        ticks = _ticks(value)
        if not set(ticks) <= set(q["options"]):  # sets: as many ticks as 4 Mi characters hold, each once
            return "not_an_option"
        if q.get("exclusive") in ticks and len(ticks) > 1:
            return "none_with_others"
        needs, forbids = q.get("needs"), q.get("forbids")
        if needs and fields.get(needs["name"], "") == needs["value"] and len(ticks) < needs["min"]:
            return "categories_missing"
        if forbids and fields.get(forbids["name"], "") == forbids["value"] and ticks:
            return "categories_with_congruent"
        return "unanswered" if len(ticks) < q.get("min", 0) else ""
    if kind in ("slider", "number"):
        if value == "":
            return "unanswered"
        n = read_number(value)  # qc/answer_values.py: what a number or range input submits, or None
        if n is None or not q["min"] <= n <= q["max"] or (kind == "number" and n != int(n)):
            return "out_of_range"
        if kind == "slider" and fields.get(q["moved"], "") != "1":
            return "slider_not_moved"
        return ""
    raise ValueError(f"unknown question type {kind!r}")


def check_answers(spec: dict[str, Any], fields: dict[str, str]) -> list[dict[str, str]]:
    """Every broken question (never only the first): ``{"rule", "field", "detail"}``."""
    found = []
    for q in spec["questions"]:
        rule = _check_one(q, fields)
        if rule:
            found.append({"rule": rule, "field": q["name"], "detail": RULE_MESSAGES[rule]})
    return found


def choice(name: str, options: list[str]) -> Question:
    return {"name": name, "type": "one", "options": options}


def ticks(name: str, options: list[str], minimum: int = 0, **extra: Any) -> Question:
    return {"name": name, "type": "many", "options": options, "min": minimum, **extra}


def slider(name: str, low: int = 0, high: int = 100) -> Question:
    return {"name": name, "type": "slider", "min": low, "max": high, "moved": f"moved_{name}"}


def number(name: str, low: int, high: int) -> Question:
    return {"name": name, "type": "number", "min": low, "max": high}
