"""Simulated judges: how the crowd's profiles fill the human-evaluation pages."""

from __future__ import annotations

import random

from flows.core.pages.mturk_forms import FormField
from flows.sim.people.crowd import BankEntry, Worker
from flows.sim.people.latent_choices import careful
from postprocess.error_categories import CATEGORY_KEYS

JUDGE_HINTS = ("rating", "selection", "congruency", "categories", "pairwise", "severity", "moved", "position",
               "demographic")
RANDOM_PROFILES = ("speeder", "copy_paster")


def _truth(bank: dict[str, BankEntry], key: str) -> str:
    entry = bank.get(key)
    return entry.truth if entry else ""


def rating(worker: Worker, item: str, f: FormField, bank: dict[str, BankEntry], rng: random.Random) -> str:
    truth = int(_truth(bank, item) or 3)
    if careful(worker, rng):
        return str(truth)
    return str(min(4, max(1, truth + rng.choice([-1, 1]))))


def selection(worker: Worker, item: str, f: FormField, bank: dict[str, BankEntry], rng: random.Random) -> str:
    picked = []
    for option in f.options:
        if option == "none":
            continue
        good = _truth(bank, f"{item}#{option}") == "1"
        if good == careful(worker, rng):
            picked.append(option)
    return "|".join(picked) or "none"


def verdict(worker: Worker, item: str, bank: dict[str, BankEntry], rng: random.Random) -> tuple[str, list[str]]:
    """(congruent/incongruent, categories) for one error-analysis item."""
    truth = _truth(bank, item) or "congruent"
    if careful(worker, rng):
        return ("congruent", []) if truth == "congruent" else ("incongruent", truth.split("|"))
    if truth == "congruent" or rng.random() < 0.3:
        return "incongruent", [rng.choice(CATEGORY_KEYS)]
    return "congruent", []


def pairwise(worker: Worker, item: str, flipped: bool, bank: dict[str, BankEntry], rng: random.Random) -> str:
    """One dimension's grade: the quality difference of #1 over #2, with noise, on the 5 steps."""
    image, _, systems = item.partition("~")
    a, _, b = systems.partition("~")
    first, second = (b, a) if flipped else (a, b)
    diff = float(_truth(bank, f"{image}#{first}") or 0.5) - float(_truth(bank, f"{image}#{second}") or 0.5)
    diff += rng.gauss(0, 0.08 + 0.2 * (1 - worker.skill))
    for limit, grade in ((0.35, "1"), (0.1, "2"), (-0.1, "3"), (-0.35, "4")):
        if diff > limit:
            return grade
    return "5"


def severity(worker: Worker, item: str, bank: dict[str, BankEntry], rng: random.Random) -> str:
    mean = float(_truth(bank, item) or 50)
    bias = random.Random(worker.worker_id + "bias").gauss(0, 10)  # a judge's own use of the scale
    return str(int(min(100, max(1, round(rng.gauss(mean + bias, 14))))))


def demographics(worker: Worker) -> dict[str, str]:
    own = random.Random(worker.worker_id + "demographics")
    proficiency = own.choices(["native", "fluent", "beginner"], weights=[88, 7, 5])[0]
    return {"age": str(own.randint(19, 68)), "gender": own.choice(["female", "male", "female", "male", "other"]),
            "education": own.choice(["secondary school or less", "vocational", "university", "postgraduate"]),
            "proficiency": proficiency, "colour_blind": "yes" if own.random() < 0.04 else "no"}


def _random_answer(f: FormField, rng: random.Random) -> str:
    if f.kind == "checkbox":
        real = [o for o in f.options if o != "none"]
        return "|".join(rng.sample(real, k=rng.randint(1, max(1, len(real) // 3))))
    hint = f.attrs.get("data-sim-fill", "")
    if hint == "severity":
        return str(rng.randint(0, 100))
    return rng.choice([o for o in f.options if o] or ["1"])


def _straight_line(f: FormField) -> str:
    hint = f.attrs.get("data-sim-fill", "")
    return {"rating": "4", "pairwise": "3", "severity": "50", "congruency": "congruent",
            "categories": "", "selection": (f.options or ["none"])[0]}.get(hint, "")


def judge_fields(worker: Worker, fields: list[FormField], bank: dict[str, BankEntry],
                 rng: random.Random) -> dict[str, str]:
    """Values for every judgement field of a page (other fields are left to the caller)."""
    values: dict[str, str] = {}
    by_name = {f.name: f for f in fields}
    positions = [f for f in fields if f.attrs.get("data-sim-fill") == "position"]
    slots = [f.value for f in positions]
    rng.shuffle(slots)  # what the page's script does: stimuli in a fresh order
    values.update({f.name: slot for f, slot in zip(positions, slots, strict=True)})
    for f in fields:
        hint, item = f.attrs.get("data-sim-fill", ""), f.attrs.get("data-item", "")
        if hint in ("position", "") or hint not in JUDGE_HINTS or f.name in values:
            continue
        values.update(_judge_one(worker, f, hint, item, by_name, bank, rng))
    if worker.profile == "rule_breaker" and values:  # the page would refuse this; they went around it
        for name in rng.sample(sorted(values), k=max(1, len(values) // 4)):
            values[name] = ""
    return values


def _judge_one(worker: Worker, f: FormField, hint: str, item: str, by_name: dict[str, FormField],
               bank: dict[str, BankEntry], rng: random.Random) -> dict[str, str]:
    if hint == "demographic":
        return {f.name: demographics(worker).get(f.name, "")}
    if hint == "moved":
        return {f.name: "1"}
    if hint == "categories":
        return {}  # answered with its verdict
    index = f.name.rsplit("_", 1)[-1]  # the item's fields: flipped_<i>, categories_<i>
    if worker.profile == "contrarian":
        return {f.name: _straight_line(f), **({f"categories_{index}": ""} if hint == "congruency" else {})}
    if worker.profile in RANDOM_PROFILES and hint != "congruency":
        return {f.name: _random_answer(f, rng)}
    if hint == "rating":
        return {f.name: rating(worker, item, f, bank, rng)}
    if hint == "selection":
        return {f.name: selection(worker, item, f, bank, rng)}
    if hint == "severity":
        return {f.name: severity(worker, item, bank, rng)}
    if hint == "pairwise":
        flipped = by_name.get(f"flipped_{index}", FormField("", "hidden", "0")).value == "1"
        return {f.name: pairwise(worker, item, flipped, bank, rng)}
    if worker.profile in RANDOM_PROFILES:  # congruency: the verdict and its categories together
        said, cats = rng.choice([("congruent", []), ("incongruent", [rng.choice(CATEGORY_KEYS)])])
    else:
        said, cats = verdict(worker, item, bank, rng)
    return {f.name: said, f"categories_{index}": "|".join(cats)}


def judgement_units(fields: list[FormField]) -> int:
    """Effort in caption-equivalents: about four judgements take as long as one caption."""
    tasks = {f.name.rsplit("_", 1)[-1] for f in fields
             if f.attrs.get("data-sim-fill") in ("rating", "selection", "congruency", "pairwise", "severity")}
    return -(-len(tasks) // 4)

