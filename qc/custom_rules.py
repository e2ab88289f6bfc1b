"""QC of a campaign on the user's own page: which rules run and what they decide. The generic rules run on frames
built per kind of field (flows/custom/custom_review.py): per response, per free-text answer (``image_id`` = the
item, ``caption`` = the text) or per choice answer over the worker's campaign; the odds rules document their
evidence in their own modules."""

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

# The text rules of every free-text field come by default (flows/custom/custom_text_qc.py); the caption
# limits (min_words, banned_prefix...) where the page states them or [qc.fields.<name>] sets them; absent
# telemetry never flags.
CUSTOM_RULES = ("invalid_answer", "empty_answer", "sentinel_answer", "time_outlier", "duplicate_text",
                "shared_template", "consensus", "choice_straight_lining", "item_blind", "page_straight_lining",
                "mark_agreement", "random_sample", "caps_lock", "instruction_echo",
                "source_copy", "short_answer", "canned_overuse", "canned_lone_use", "canned_lone_nonuse",
                "quality_words", "quality_words_rate",
                "min_words", "max_words", "one_sentence", "banned_prefix", "max_chars", *TELEMETRY_RULES)
TEXT_RULES = ("duplicate_text", "shared_template", "consensus")
CUSTOM_POLICY = DecisionPolicy(
    # empty_answer rejects a response that answers nothing, sentinel_answer one that left any field it must
    # answer at the page's own value; when either reaches most of a batch the page is at fault (a script-built
    # answer the form never posts), and the hold (hold_share) stops the batch
    reject_rules=("invalid_answer", "empty_answer", "sentinel_answer"),
    # choice_straight_lining, item_blind and page_straight_lining judge the worker's whole history: one flag
    block_min_flags={"invalid_answer": 1, "duplicate_text": 1, "shared_template": 2, "choice_straight_lining": 1,
                     "item_blind": 1, "page_straight_lining": 1, "instruction_echo": 2},
    # how the text arrived: on the share of the worker's answers over the campaign, as the caption task
    # (an honest worker who drafts a third of their answers elsewhere and pastes them is not blocked)
    # marks that miss the others' (qc/mark_agreement.py) on most of a worker's items, not on a hurried few
    # the page's canned answer (one its script offers) at the caption task's rates of the seed's canned rules
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
    """Whether an answer holds anything: not blank nor a script's shape of blanks (``{"text": ""}``); an
    annotation's own empty list is an answer."""
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
    """A response whose every field came back empty (``answered`` 0 of ``fields`` > 0); all checkbox groups:
    ``nothing_ticked``, for a person. Input columns: ``assignment_id, worker_id, answered, fields``."""
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
    """A response with a field it must answer (required, or hidden for the page's script to write) still
    holding the value the page itself wrote there (a sentinel such as ``<END>``): that field was never
    answered, whatever the response's other fields hold. Input columns: ``assignment_id, worker_id,
    sentinels`` (``field_i='<END>'``, ``; ``-joined; "" for none)."""
    if "sentinels" not in df.columns:
        return flag_frame([])
    left = df[df["sentinels"].fillna("").astype(str) != ""]
    said = "required, left blank (still the page's own value): "
    return flag_frame([{"worker_id": r.worker_id, "rule": "sentinel_answer", "value": r.sentinels.count("; ") + 1,
                        "threshold": 0, "assignment_id": r.assignment_id,
                        "detail": f"{said}{r.sentinels}"[:300]} for r in left.itertuples()])
