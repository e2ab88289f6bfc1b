"""``skipped_required``: a response that left a question the page requires unanswered (posted around the page): the part
of ``invalid_answer`` Prolific counts as a ground to reject (flows/platforms/prolific/grounds.py).
Input columns: ``assignment_id, worker_id, problems`` (``field: rule`` per broken rule, ``; ``-joined; a rule may carry
words after it: "required, left blank")."""

from __future__ import annotations

from typing import Any

import pandas as pd

from qc.flags import flag_frame, register

RULE = "skipped_required"
PART_OF = "invalid_answer"  # the rule that raises it, beside its own flag on the same response
# the page-rule names of a required answer left blank: custom pages (qc/form_constraints.py), evaluation pages
# (qc/judgement_spec.py)
BLANK_RULES = ("required", "not_moved", "unanswered", "slider_not_moved")


def blank_fields(problems: str) -> list[str]:
    """The fields ``problems`` says were required and left blank."""
    found = []
    for part in str(problems or "").split("; "):
        field, _, rule = part.partition(": ")
        if rule.split(",")[0].split(" ")[0].strip() in BLANK_RULES:
            found.append(field)
    return found


def skipped_required_flags(df: pd.DataFrame) -> pd.DataFrame:
    """One flag per response whose problems name a required question left blank (``invalid_answer`` raises
    them beside its own, as ``time_outlier`` raises ``time_outlier_slow``)."""
    if "problems" not in df.columns:
        return flag_frame([])
    rows = []
    for r in df.itertuples():
        blank = blank_fields(str(r.problems))
        if blank:
            rows.append({"worker_id": str(r.worker_id), "rule": RULE, "value": len(blank), "threshold": 0,
                         "assignment_id": str(r.assignment_id),
                         "detail": f"required, left blank: {', '.join(blank)}"[:300]})
    return flag_frame(rows)


@register(RULE, "study")
def skipped_required(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Registered for its name (a policy may list it); ``invalid_answer`` raises these flags."""
    return flag_frame([])
