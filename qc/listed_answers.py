"""Answers honest to repeat: the answer a question's own words offer ('If nothing is missing, write "nothing
missing"'), where it asks for a list a short list of names ("temperature, time"), a value (a time, a date, a
number), and a few words a third of the field's workers wrote alike (a yes, a greeting). Many people, or one person
on many items, give these alike, so the rules that count the same text (qc/custom_rules.py) leave them out."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from qc.asked_limits import stated_min_words
from qc.flags import flag_frame
from qc.runner import run_rules

# 'write "none"', 'type "n/a"', 'answer "nothing missing"': the page's own answer for an item with nothing to give
OFFERED = re.compile(r"\b(?:write|type|enter|answer|put|say|use)\s+(?:just\s+|only\s+)?[\"“'‘]([^\"”'’]{1,40})[\"”'’]",
                     re.I)
ASKS_LIST = re.compile(r"\blist\b|\bseparated? (?:them )?(?:by|with) (?:a )?comm|\bcomma[- ]separated\b", re.I)
PARTS = re.compile(r"\s*(?:[,;/]|\band\b|\bor\b|\n)\s*", re.I)
NAME_WORDS = 3  # a listed thing named in a few words ("volume of solution"); a longer part is a sentence
# a value, not words: a time, a date, a number ("5:15 pm", "12/03/2026", "12 March 2026"); people who read it off
# or work it out alike write it alike
_TOKEN = r"(?:[\d,/]+|[ap]m|noon|midnight|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)"
VALUE = re.compile(rf"{_TOKEN}(?: {_TOKEN})*")
# the rules such answers stay out of: the same text counted, agreement with peers, the page's words echoed
APART_RULES = ("duplicate_text", "shared_template", "near_template", "consensus", "consensus_rate", "instruction_echo")
# A stock answer or a ring's paste is a few workers' text; independent people converge on few words (Flickr8k's
# captions repeated across images are 3-7 words), not on a sentence; fewer than three writers are no crowd; and
# fewer words than the question asks are not the form it prescribes.
CROWD_WORDS, CROWD_WRITERS = 6, 3


def fold(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s,;/]", " ", str(text).lower()).split())


def named_answers(answers: list[str], question: str) -> list[bool]:
    """Per answer: whether it is one the question offers (in its own quoted words), a short list of names where the
    question asks a list, or a value (VALUE)."""
    offered, listing = {fold(m[1]) for m in OFFERED.finditer(question or "")}, bool(ASKS_LIST.search(question or ""))
    return [fold(a) in offered or (listing and _short_list(a)) or _value(fold(a)) for a in answers]


def _value(folded: str) -> bool:
    return bool(VALUE.fullmatch(folded)) and bool(re.search(r"\d|noon|midnight", folded))


def _short_list(answer: str) -> bool:
    parts = [p for p in PARTS.split(fold(answer)) if p]
    return bool(parts) and all(len(p.split()) <= NAME_WORDS for p in parts)


def crowd_answers(frame: pd.DataFrame, least: int = 0) -> np.ndarray:
    """Per answer (``worker_id``, ``caption``): a text of ``least`` (the question's fewest) to CROWD_WORDS words,
    folded, that more than a third of the frame's workers and at least CROWD_WRITERS of them wrote."""
    texts = frame["caption"].fillna("").astype(str).map(fold)
    writers = frame.groupby(texts)["worker_id"].nunique()
    common = writers[(writers >= CROWD_WRITERS) & (3 * writers > frame["worker_id"].nunique())].index
    return (texts.isin(common) & texts.str.split().str.len().between(least, CROWD_WORDS)).to_numpy()


def run_named_apart(frame: pd.DataFrame, params: dict[str, Any], rules: tuple[str, ...], question: str) -> pd.DataFrame:
    """``run_rules`` over one field's answers (``caption``, ``worker_id``), the named ones (named_answers) and the
    crowd's (crowd_answers) left out of APART_RULES."""
    named = np.array(named_answers(frame["caption"].fillna("").astype(str).tolist(), question), dtype=bool)
    named |= crowd_answers(frame, stated_min_words(question))
    apart = tuple(r for r in rules if r in APART_RULES)
    if not named.any() or not apart:
        return run_rules(frame, params, rules)
    rest = run_rules(frame, params, tuple(r for r in rules if r not in apart))
    others = run_rules(frame[~named].reset_index(drop=True), params, apart) if (~named).any() else flag_frame([])
    frames = [f for f in (rest, others) if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else rest
