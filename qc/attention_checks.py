"""Attention checks (``[attention]``; docs/explanation/qc-rules.md): fair instructed-response items
(:func:`unfair_reason`), scored apart from controls; ``attention_failed`` at :func:`failures_to_reject`
failures, ``attention_missed`` below.

Input columns: ``assignment_id, worker_id`` and one column per check (:func:`field_name`), the option chosen
("" when none). Params: ``attention_checks`` and ``attention_reject_at``.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Any

import pandas as pd

from qc.flags import flag_frame, register

FAILED, MISSED = "attention_failed", "attention_missed"
FIELD_PREFIX = "hitflow_attention_"  # no trailing number: no item's field (``caption_2`` is item 2's)
SHORT_STUDY_MINUTES = 5


@dataclass(frozen=True)
class AttentionCheck:
    instruction: str  # the question itself, naming the answer to give
    options: tuple[str, ...]
    answer: str


# hitflow's own checks, for ``[attention] count`` without checks of one's own: each names its answer
BUILT_IN = (
    AttentionCheck("For this question, choose \u201cStrongly disagree\u201d.",
                   ("Strongly agree", "Agree", "Disagree", "Strongly disagree"), "Strongly disagree"),
    AttentionCheck("Please select \u201cBlue\u201d as your answer to this question.",
                   ("Red", "Green", "Blue", "Yellow"), "Blue"),
    AttentionCheck("To show that you read this question, choose \u201cNever\u201d.",
                   ("Always", "Often", "Sometimes", "Never"), "Never"),
    AttentionCheck("For this question, select \u201cAgree\u201d.",
                   ("Strongly agree", "Agree", "Disagree", "Strongly disagree"), "Agree"),
)


def field_name(index: int) -> str:
    """The form field of the check at ``index``: ``hitflow_attention_a``, ``_b``..."""
    return FIELD_PREFIX + string.ascii_lowercase[index]


# an option named as the instruction's answer: quoted, within three words of an instructing verb
_QUOTED = re.compile(r"[\"'\u2018\u201c\u00ab]([^\"'\u2019\u201d\u00bb]{1,200})[\"'\u2019\u201d\u00bb]")
_VERB = re.compile(r"\b(?:choose|select|pick|click|tick|mark|check|answer(?:\s+with)?)(?:\s+\w+){0,3}\s*$", re.I)
_NEGATION = re.compile(r"\b(?:not|never|no|none|nor|neither|avoid|except|unless|instead|without|other\s+than|"
                       r"anything\s+but)\b|n[\u2019']t\b", re.I)


def named_option(instruction: str, options: tuple[str, ...] | list[str]) -> str | None:
    """The one option ``instruction`` tells the worker to choose (quoted right after its verb, written as the
    option is); None when it names none, or more than one option anywhere: what a person reading it would pick."""
    quoted = [(m.group(1), m.start()) for m in _QUOTED.finditer(instruction)]
    named = {text for text, _ in quoted if text in options}
    told = [text for text, at in quoted if text in options and _VERB.search(instruction[:at])]
    return told[0] if len(named) == 1 and len(told) == 1 else None


def unfair_reason(check: AttentionCheck) -> str | None:
    """Why ``check`` is not a fair instructed-response item; None when it is."""
    if check.answer not in check.options:
        return f"its answer {check.answer!r} is not one of its options"
    if len({o.casefold().strip() for o in check.options}) != len(check.options):
        return "its options repeat"
    unquoted = _QUOTED.sub(" ", check.instruction)
    if "?" in unquoted:
        return "it asks a question: a fair check instructs (\"choose 'Blue'\"), never tests knowledge or memory"
    if _NEGATION.search(unquoted):
        return "it words the instruction with a negation (a trap a careful reader may fall into)"
    if named_option(check.instruction, check.options) != check.answer:
        return (f"its instruction does not name the answer {check.answer!r} alone among its options, quoted as "
                "written, after its verb (\"choose 'Blue'\"): a fair check says exactly what to choose")
    return None


def failures_to_reject(study_minutes: float) -> int:
    """Failed checks that may reject one submission: 1 under 5 minutes, 2 from 5 minutes on."""
    return 1 if study_minutes < SHORT_STUDY_MINUTES else 2


def _failed(row: Any, checks: list[AttentionCheck]) -> list[str]:
    out = []
    for i, check in enumerate(checks):
        chosen = str(getattr(row, field_name(i), "") or "")
        if chosen != check.answer:
            out.append(f"check {i + 1} asked for {check.answer!r}, answered {chosen[:40]!r}" if chosen
                       else f"check {i + 1} asked for {check.answer!r}, left unanswered")
    return out


@register(FAILED, "study")
def attention_failed(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Submissions failing at least ``attention_reject_at`` checks (``attention_missed``: fewer, but some)."""
    checks: list[AttentionCheck] = list(params.get("attention_checks") or [])
    if not checks or df.empty:
        return flag_frame([])
    reject_at = int(params.get("attention_reject_at", 1))
    rows = []
    for r in df.itertuples():
        failed = _failed(r, checks)
        if failed:
            rows.append({"worker_id": str(r.worker_id), "rule": FAILED if len(failed) >= reject_at else MISSED,
                         "value": len(failed), "threshold": reject_at, "assignment_id": str(r.assignment_id),
                         "detail": f"{len(failed)} of {len(checks)} attention checks failed ({'; '.join(failed)}); "
                                   f"{reject_at} may reject on a study of this length"[:300]})
    return flag_frame(rows)


@register(MISSED, "study")
def attention_missed(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Registered for its name (a policy may list it); :func:`attention_failed` raises these flags."""
    return flag_frame([])
