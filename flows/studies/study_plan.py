"""Human-evaluation studies: their item files, units and each page's questions."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from flows.core.errors import InputFormatError
from flows.core.study_kinds import DEMOGRAPHICS
from postprocess.error_categories import CATEGORY_KEYS
from postprocess.study_frames import PAIRWISE_DIMENSIONS
from qc.judgement_spec import Question, choice, number, slider, ticks


def _grouped(rows: list[dict[str, str]], key: str) -> dict[str, list[dict[str, str]]]:
    groups: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        groups.setdefault(row[key], []).append(row)
    return groups


def study_tasks(kind: str, rows: list[dict[str, str]], pairs_per_image: int, seed: int) -> list[dict[str, Any]]:
    """One task per page question group: ``{"item_id", "url", "payload"}``, in presentation order."""
    rng = random.Random(seed)
    if kind == "crowd_selection":
        return _selection_tasks(rows, rng)
    if kind == "pairwise_grading":
        return _pairwise_tasks(rows, pairs_per_image, rng)
    text_field = "sentence" if kind == "expert_rating" else "description"
    tasks: list[dict[str, Any]] = []
    for r in rows:
        payload: dict[str, Any] = {"text": r[text_field]}
        if kind == "severity_rating":
            payload.update(reference=r["reference"], condition=r["condition"], role=r["role"])
        tasks.append({"item_id": r["item_id"], "url": r["image_url"], "payload": payload})
    if kind == "severity_rating":  # the trial phase comes first
        tasks.sort(key=lambda t: t["payload"]["role"] != "calibration")
    return tasks


def _selection_tasks(rows: list[dict[str, str]], rng: random.Random) -> list[dict[str, Any]]:
    """One task per image with its sentences in an order drawn once, in the plan."""
    tasks = []
    for image, sentences in _grouped(rows, "image_id").items():
        shuffled = sentences[:]
        rng.shuffle(shuffled)
        shown = [{"id": s["sentence_id"], "text": s["sentence"]} for s in shuffled]
        tasks.append({"item_id": image, "url": sentences[0]["image_url"], "payload": {"sentences": shown}})
    return tasks


def _pairwise_tasks(rows: list[dict[str, str]], pairs_per_image: int, rng: random.Random) -> list[dict[str, Any]]:
    """Each image with its reference twice in a row, the system shown as #1 drawn (``flipped``)."""
    tasks = []
    for image, outputs in _grouped(rows, "image_id").items():
        by_system = {r["system"]: r for r in outputs}
        pairs = list(combinations(sorted(by_system), 2))
        rng.shuffle(pairs)
        if len(pairs) < pairs_per_image:
            raise InputFormatError(f"image {image} has {len(by_system)} systems, too few for {pairs_per_image} "
                                   "different pairs; add systems or lower [study].pairs_per_image")
        for k, (a, b) in enumerate(pairs[:pairs_per_image]):
            flipped = rng.random() < 0.5
            first, second = (b, a) if flipped else (a, b)
            tasks.append({"item_id": f"{image}~{a}~{b}", "url": outputs[0]["image_url"], "payload": {
                "image": image, "reference": outputs[0]["reference"], "repeat": k, "system_a": a, "system_b": b,
                "flipped": int(flipped), "text_1": by_system[first]["description"],
                "text_2": by_system[second]["description"]}})
    return tasks


def questions(kind: str, index: int, payload: dict[str, Any]) -> list[Question]:
    """The questions of task ``index`` (field names end in ``_<index>``)."""
    if kind == "expert_rating":
        return [{**choice(f"score_{index}", ["1", "2", "3", "4"]), "ordered": True}]
    if kind == "crowd_selection":
        options = [s["id"] for s in payload["sentences"]] + ["none"]
        return [ticks(f"selected_{index}", options, 1, exclusive="none")]
    if kind == "error_analysis":
        verdict = f"congruent_{index}"
        return [choice(verdict, ["congruent", "incongruent"]),
                ticks(f"categories_{index}", list(CATEGORY_KEYS), 0,
                      needs={"name": verdict, "value": "incongruent", "min": 1},
                      forbids={"name": verdict, "value": "congruent"})]
    if kind == "pairwise_grading":
        return [{**choice(f"{dim}_{index}", ["1", "2", "3", "4", "5"]), "ordered": True} for dim in PAIRWISE_DIMENSIONS]
    if kind == "severity_rating":
        return [slider(f"score_{index}")]
    raise ValueError(f"unknown study kind {kind!r}")


def page_spec(kind: str, tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole page's submit rules (embedded as JSON, checked again on the server)."""
    qs = [q for i, t in enumerate(tasks) for q in questions(kind, i, t["payload"])]
    if kind == "severity_rating":
        qs += [number("age", 16, 120)] + [choice(name, opts) for name, opts in DEMOGRAPHICS.items()]
    return {"kind": kind, "questions": qs}
