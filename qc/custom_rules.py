"""QC of a campaign on the user's own page: which rules run and what they decide, on frames built per kind of
field (flows/custom/custom_review.py): per response, per free-text answer, or per choice answer over a campaign."""

from __future__ import annotations

from typing import Any

import pandas as pd

from qc import (  # noqa: F401  (register item_blind, mark_agreement, page_straight_lining, invalid_answer)
    agreement_odds,
    mark_agreement,
    page_straight_lining,
    study_rules,
)
from qc.decisions import DecisionPolicy
from qc.flags import flag_frame, register
from qc.straight_lining_odds import choice_straight_lining
from qc.telemetry_rules import TELEMETRY_RULES
from qc.timing_rules import NOTHING_TICKED, SLOW_RULE
from qc.worker_values import read_json

# every free-text field's text rules by default; caption limits where the page states them or [qc.fields.<name>] sets
CUSTOM_RULES = ("invalid_answer", "empty_answer", "sentinel_answer", "time_outlier", "duplicate_text",
                "shared_template", "consensus", "choice_straight_lining", "item_blind", "page_straight_lining",
                "mark_agreement", "random_sample", "caps_lock", "instruction_echo",
                "source_copy", "short_answer", "canned_overuse", "canned_lone_use", "canned_lone_nonuse",
                "quality_words", "quality_words_rate",
                "min_words", "max_words", "one_sentence", "banned_prefix", "max_chars", *TELEMETRY_RULES)
CUSTOM_POLICY = DecisionPolicy(
    # a page at fault (a script-built answer the form never posts) empties most of a batch: the hold stops it
    reject_rules=("invalid_answer", "empty_answer", "sentinel_answer"),
    # choice_straight_lining, item_blind and page_straight_lining judge the worker's whole history: one flag
    block_min_flags={"invalid_answer": 1, "duplicate_text": 1, "shared_template": 2, "choice_straight_lining": 1,
                     "item_blind": 1, "page_straight_lining": 1, "instruction_echo": 2},
    # text arrival on a share of the campaign (a worker pasting a third of own drafts is no block); marks on most items
    block_min_rate={"paste_external": 0.8, "untyped_text": 0.8, "mark_agreement": 0.6,
                    "canned_overuse": 0.7, "canned_lone_use": 0.3, "canned_lone_nonuse": 0.4,
                    "quality_words_rate": 0.3},
    block_counts_beside_rates=True,
    block_rate_confidence=1.0,
    review_rules=("random_sample", "consensus", "time_outlier", SLOW_RULE, NOTHING_TICKED, "caps_lock", "min_words",
                  "max_words", "one_sentence", "banned_prefix", "source_copy", "short_answer", "quality_words",
                  "max_chars", "switch_then_paste", "typing_cadence", "malformed_answer"),
    reject_feedback="Your answers broke the task's rules ({rules}), which the page checks before it lets anyone "
                    "submit, so they were sent around the page.",
)


register("choice_straight_lining", "worker")(choice_straight_lining)


def has_value(answer: Any, kind: str = "") -> bool:
    """Whether an answer holds anything: not blank nor a script's blanks (``{"text": ""}``); an empty mark list is."""
    text = str(answer).strip()
    if not text:
        return False
    if text[0] not in "[{":
        return True
    try:
        data = read_json(text)
    except ValueError:
        return True
    if kind == "annotations" and isinstance(data, dict) and any(isinstance(v, list) for v in data.values()):
        return True
    return _filled(data)


def _filled(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_filled(v) for v in value.values())
    if isinstance(value, list):
        return any(_filled(v) for v in value)
    return value is not None and value != ""


@register("empty_answer", "study")
def empty_answer(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """A response with every field empty (all ticks: nothing_ticked); ``assignment_id, worker_id, answered, fields``."""
    if not {"answered", "fields"} <= set(df.columns):
        return flag_frame([])
    empty = df[(df["fields"] > 0) & (df["answered"] == 0)]
    ticks = empty["ticks"] if "ticks" in empty else pd.Series(0, index=empty.index)
    return flag_frame([{"worker_id": w, "rule": NOTHING_TICKED if t == n else "empty_answer", "value": 0,
                        "threshold": 1, "assignment_id": a, "detail": f"none of its {n} answer fields has a value"}
                       for a, w, n, t in zip(empty["assignment_id"], empty["worker_id"], empty["fields"], ticks,
                                             strict=True)])


@register("sentinel_answer", "study")
def sentinel_answer(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """A response with a field it must answer still holding the page's own value (a sentinel such as ``<END>``).
    Input columns: ``assignment_id, worker_id, sentinels`` (``field_i='<END>'``, ``; ``-joined; "" for none)."""
    if "sentinels" not in df.columns:
        return flag_frame([])
    left = df[df["sentinels"].fillna("").astype(str) != ""]
    said = "required, left blank (still the page's own value): "
    return flag_frame([{"worker_id": r.worker_id, "rule": "sentinel_answer", "value": r.sentinels.count("; ") + 1,
                        "threshold": 0, "assignment_id": r.assignment_id,
                        "detail": f"{said}{r.sentinels}"[:300]} for r in left.itertuples()])
