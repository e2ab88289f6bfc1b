"""Workers scored on control items (items whose answer is known, mixed into every batch) and
blocked on the rate of their wrong answers, as QC flags' rates block (:mod:`qc.worker_history`).

Input columns: ``judgements``: ``worker_id, item_id, field, value`` (every answer given so far to a
control item's field, rejected work too: a control measures the worker, not the assignment);
``controls``: ``item_id, field, answer``.
Output of :func:`control_scores`: ``worker_id, controls, correct, accuracy`` (one row per worker who
answered a control); of :func:`control_blocks`: :data:`qc.worker_history.BLOCK_COLUMNS`, ``rules``
reading ``control_accuracy 20% (1/5)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from qc.worker_history import wrong_share_blocks

SCORE_COLUMNS = ["worker_id", "controls", "correct", "accuracy"]
RULE = "control_accuracy"


@dataclass(frozen=True)
class ControlPolicy:
    """When control answers block a worker: ``min_seen`` controls answered, and the share of wrong ones
    (its Wilson lower bound at ``confidence`` z; 0: the plain share) above ``1 - block_below``."""

    min_seen: int = 4
    block_below: float = 0.5  # 0: control answers never block
    confidence: float = 1.645


def control_scores(judgements: pd.DataFrame, controls: pd.DataFrame) -> pd.DataFrame:
    """Per worker: control answers given, how many equal the known answer, the share."""
    key = controls.assign(item_id=controls["item_id"].astype(str), field=controls["field"].astype(str),
                          answer=controls["answer"].astype(str).str.strip())
    given = judgements.assign(value=judgements["value"].astype(str).str.strip())
    given = given[given["value"] != ""].merge(key[["item_id", "field", "answer"]], on=["item_id", "field"])
    if given.empty:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    given["right"] = given["value"] == given["answer"]
    out = given.groupby("worker_id", as_index=False).agg(controls=("right", "size"), correct=("right", "sum"))
    out["controls"], out["correct"] = out["controls"].astype(int), out["correct"].astype(int)
    out["accuracy"] = out["correct"] / out["controls"]
    return out[SCORE_COLUMNS].sort_values("worker_id", ignore_index=True)


def trusted_controls(judgements: pd.DataFrame, controls: pd.DataFrame, min_answers: int = 3,
                     below: float = 1 / 3) -> pd.DataFrame:
    """``controls`` without those whose known answer fewer than ``below`` of their (at least
    ``min_answers``) answers gave while more than half gave one other answer: there the file is likelier
    wrong than the crowd, and a wrong answer file must not block honest workers one by one (each batch
    below the hold's share). A control the crowd splits on (a few adversaries, a few slips) stays."""
    given = judgements.assign(value=judgements["value"].astype(str).str.strip())
    given = given[given["value"] != ""]
    if given.empty:
        return controls
    scored = given.merge(controls.assign(answer=controls["answer"].astype(str).str.strip()), on=["item_id", "field"])
    scored["agree"] = scored["value"] == scored["answer"]
    per_item = scored.groupby(["item_id", "field"]).agg(size=("agree", "size"), agree=("agree", "mean"),
                                                         top=("value", lambda v: v.value_counts().iloc[0] / len(v)),
                                                         top_value=("value", lambda v: v.value_counts().index[0]))
    answer = controls.drop_duplicates(["item_id", "field"]).set_index(["item_id", "field"])["answer"].astype(str)
    other = per_item["top_value"] != answer.reindex(per_item.index).str.strip()
    suspect = per_item[(per_item["size"] >= min_answers) & (per_item["agree"] < below) & other
                       & (per_item["top"] > 0.5)].index
    keep = ~pd.MultiIndex.from_frame(controls[["item_id", "field"]]).isin(suspect)
    return controls[keep].reset_index(drop=True)


def control_blocks(scores: pd.DataFrame, policy: ControlPolicy) -> pd.DataFrame:
    """Workers with ``min_seen`` controls whose wrong share (its lower bound) passes ``1 - block_below``."""
    return wrong_share_blocks(scores, "controls", "correct", policy.min_seen, policy.block_below, policy.confidence,
                              RULE)
