"""Attention checks (``[attention]``; docs/explanation/qc-rules.md): fair instructed-response items scored apart
from controls; ``attention_failed`` at :func:`failures_to_reject` failures, ``attention_missed`` below.
Input columns: ``assignment_id, worker_id`` and one per check (:func:`field_name`), the option chosen ("" for none;
a tuple, one an item, for a check of the page's own); optionally ``minutes``, the submission's own time. Params:
``attention_checks``, ``attention_reject_at``."""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

import pandas as pd

from qc.flags import flag_frame, register
from qc.instructed_items import AWAY, QUOTED, instructed_option

FAILED, MISSED = "attention_failed", "attention_missed"
FIELD_PREFIX = "hitflow_attention_"  # no trailing number: no item's field (``caption_2`` is item 2's)
SHORT_STUDY_MINUTES = 5


@dataclass(frozen=True)
class AttentionCheck:
    instruction: str  # the question itself, naming the answer to give
    options: tuple[str, ...]
    answer: str
    field: str = ""  # the page's own check (flows/custom/own_checks.py): its field's name, hitflow renders none


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


def unfair_reason(check: AttentionCheck) -> str | None:
    """Why ``check`` is no fair instructed-response item (its answer: what a careful reader picks); None when fair."""
    if check.answer not in check.options:
        return f"its answer {check.answer!r} is not one of its options"
    if len({o.casefold().strip() for o in check.options}) != len(check.options):
        return "its options repeat"
    unquoted = QUOTED.sub(" ", check.instruction)
    if "?" in unquoted:
        return "it asks a question: a fair check instructs (\"choose 'Blue'\"), never tests knowledge or memory"
    if AWAY.search(unquoted):
        return "it words the instruction with a negation or a condition (a trap a careful reader may fall into)"
    if instructed_option(check.instruction, check.options) != check.answer or \
            check.answer not in [m[1] for m in QUOTED.finditer(check.instruction)]:
        return (f"its instruction does not name the answer {check.answer!r} alone among its options, quoted as "
                "written, after its verb (\"choose 'Blue'\"): a fair check says exactly what to choose")
    return None


def failures_to_reject(study_minutes: float) -> int:
    """Failed checks that may reject one submission: 1 under 5 minutes, 2 from 5 minutes on."""
    return 1 if study_minutes < SHORT_STUDY_MINUTES else 2


def _failed(row: Any, checks: list[AttentionCheck]) -> tuple[list[str], int]:
    """(each failure, the checks shown): a page's own check once on every item of the page."""
    out, shown = [], 0
    for i, check in enumerate(checks):
        given = getattr(row, field_name(i), "")
        for chosen in given if isinstance(given, tuple) else (given,):
            chosen, shown = str(chosen or ""), shown + 1
            name = f"the page's check {check.field!r}" if check.field else f"check {i + 1}"
            if chosen != check.answer:
                out.append(f"{name} asked for {check.answer!r}, "
                           + (f"answered {chosen[:40]!r}" if chosen else "left unanswered"))
    return out, shown


@register(FAILED, "study")
def attention_failed(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Submissions failing at least ``attention_reject_at`` checks (``attention_missed``: fewer, but some)."""
    checks: list[AttentionCheck] = list(params.get("attention_checks") or [])
    if not checks or df.empty:
        return flag_frame([])
    study_at = int(params.get("attention_reject_at", 1))
    rows = []
    for r in df.itertuples():
        failed, shown = _failed(r, checks)
        # Prolific's "a study of 5 minutes or longer" read both ways: one that took this worker 5 minutes or more needs
        # two failures too, whatever the estimate said
        reject_at = max(study_at, failures_to_reject(float(getattr(r, "minutes", 0) or 0)))
        if failed:
            rows.append({"worker_id": str(r.worker_id), "rule": FAILED if len(failed) >= reject_at else MISSED,
                         "value": len(failed), "threshold": reject_at, "assignment_id": str(r.assignment_id),
                         "detail": f"{len(failed)} of {shown} attention checks failed ({'; '.join(failed)}); "
                                   f"{reject_at} may reject on a study of this length"[:300]})
    return flag_frame(rows)


@register(MISSED, "study")
def attention_missed(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Registered for its name (a policy may list it); :func:`attention_failed` raises these flags."""
    return flag_frame([])
