"""MTurk-native qualification tests on the simulator, scored from the ``AnswerKey``."""

from __future__ import annotations

import csv
import random
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from flows.core.pages.crowd_elements import FormField
from flows.core.pages.mturk_forms import NS_FORM
from flows.sim.people.crowd import Worker
from flows.sim.people.crowd_model import BankEntry
from flows.sim.people.latent_choices import as_on_a_page

NS_KEY = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/AnswerKey.xsd"
CARELESS = {"speeder", "copy_paster", "canned_abuser"}
# What the simulated crowd "knows" of English: the published test's answers.
LANGUAGE_KEY = Path(__file__).resolve().parents[3] / "config" / "qualification" / "flickr8k_qualification_key.csv"


@dataclass
class ScoredTest:
    options: dict[str, list[str]]  # question id -> selection ids offered
    scores: dict[str, dict[str, int]]  # question id -> selection id -> AnswerScore
    maximum: int


def parse_scored_test(test_xml: str, key_xml: str) -> ScoredTest:
    """Raises ValueError with the reason when either document is malformed."""
    test, key = ET.fromstring(test_xml), ET.fromstring(key_xml)
    if key.tag != f"{{{NS_KEY}}}AnswerKey":
        raise ValueError("AnswerKey root must be AnswerKey in the 2005-10-01 AnswerKey.xsd namespace")
    options = {
        (q.findtext(f"{{{NS_FORM}}}QuestionIdentifier") or ""): [
            s.text or "" for s in q.iter(f"{{{NS_FORM}}}SelectionIdentifier")]
        for q in test.iter(f"{{{NS_FORM}}}Question")}
    scores: dict[str, dict[str, int]] = {}
    for q in key.iter(f"{{{NS_KEY}}}Question"):
        qid = q.findtext(f"{{{NS_KEY}}}QuestionIdentifier") or ""
        if qid not in options:
            raise ValueError(f"AnswerKey names question {qid!r}, which the Test does not have")
        scores[qid] = {o.findtext(f"{{{NS_KEY}}}SelectionIdentifier") or "":
                       int(o.findtext(f"{{{NS_KEY}}}AnswerScore") or 0)
                       for o in q.iter(f"{{{NS_KEY}}}AnswerOption")}
    maximum = key.findtext(f".//{{{NS_KEY}}}MaximumSummedScore")
    total = int(maximum) if maximum else sum(max(s.values(), default=0) for s in scores.values())
    return ScoredTest(options, scores, max(total, 1))


def knows(worker: Worker, truth: str, offered: list[str], rng: random.Random) -> str:
    """A language question's answer: right with the worker's skill, less for careless profiles."""
    chance = 0.55 if worker.profile in CARELESS else 0.5 + worker.skill / 2
    return truth if rng.random() < chance else rng.choice([o for o in offered if o != truth] or offered)


def take(worker: Worker, test: ScoredTest, rng: random.Random) -> tuple[dict[str, str], int]:
    """The worker's selections and the percentage score MTurk would grant."""
    chosen, total = {}, 0
    language = language_truth()
    for qid, offered in test.options.items():
        weights = test.scores.get(qid, {})
        best = max(offered, key=lambda s: weights.get(s, 0)) if offered else ""
        pick = knows(worker, best, offered or [best], rng) if qid in language or not offered else \
            as_on_a_page(worker, offered, best, rng)
        chosen[qid] = pick
        total += weights.get(pick, 0)
    return chosen, round(100 * total / test.maximum)


def known_questions(worker: Worker, fields: list[FormField], bank: dict[str, BankEntry],
                    rng: random.Random) -> dict[str, str]:
    """A requester-judged test (a control quiz): each choice of an item with a known answer, answered as on a page."""
    out = {}
    for f in fields:
        entry = bank.get(f.name) if f.kind in ("radio", "select") and f.options else None
        offered = [o.strip().lower() for o in f.options]
        truth = next((f.options[offered.index(a.strip().lower())] for a in (entry.answers.values() if entry else ())
                      if a.strip().lower() in offered), None)
        if truth is not None:
            out[f.name] = as_on_a_page(worker, f.options, truth, rng)
    return out


def attempt_record(now: float, score: int) -> dict[str, Any]:
    return {"time": now, "score": score}


@lru_cache(maxsize=1)
def language_truth() -> dict[str, str]:
    with LANGUAGE_KEY.open(newline="", encoding="utf-8") as fh:
        return {row["item_id"]: row["answer"] for row in csv.DictReader(fh)}


def answer_item(worker: Worker, item_id: str, options: list[str], rng: random.Random) -> str:
    """A worker's answer to one test item on an HTML page (a guess when the item is unknown)."""
    offered = [o for o in options if o] or options
    truth = language_truth().get(item_id)
    return knows(worker, truth, offered, rng) if truth is not None and truth in offered else rng.choice(offered)
