"""Workers scored on their agreement with the other workers' answer, and blocked on it: a label is judged only where the
*other* workers of the item (``min_others`` at least) hold a strict majority.
Input columns: ``judgements``: ``worker_id, item_id, field, value`` (choice fields only; blank is no label; a repeat
counts once, the last). Output of :func:`agreement_scores`: ``worker_id, judged, agreed, agreement``; of
:func:`agreement_blocks`: :data:`qc.worker_history.BLOCK_COLUMNS`, ``rules`` reading ``answer_agreement 5% (1/20)``."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pandas as pd

from qc.worker_history import wrong_share_blocks

SCORE_COLUMNS = ["worker_id", "judged", "agreed", "agreement"]
RULE = "answer_agreement"


@dataclass(frozen=True)
class AgreementPolicy:
    """When agreement blocks: ``min_items`` judged, disagreement's Wilson bound above ``1 - block_below``."""

    block_below: float = 0.0  # 0: agreement never blocks
    min_items: int = 6
    min_others: int = 3
    confidence: float = 1.645


def agreement_scores(judgements: pd.DataFrame, min_others: int) -> pd.DataFrame:
    """Per worker: labels judged against the others' strict-majority answer, and how many agree."""
    # one pass over plain lists, not merges and groupbys: the block step asks after every batch
    values = judgements["value"].astype(str).str.strip().tolist()
    latest: dict[tuple[Any, Any, Any], Any] = {}  # a worker's last label of an item and field
    for worker, item, field, value in zip(judgements["worker_id"].tolist(), judgements["item_id"].tolist(),
                                          judgements["field"].tolist(), values, strict=True):
        if value != "" and not (pd.isna(item) or pd.isna(field)):  # as groupby: no item or field, no group
            latest[(_key(worker), item, field)] = value
    counts: dict[tuple[Any, Any], Counter[Any]] = {}
    for (_, item, field), value in latest.items():
        labels = counts.setdefault((item, field), Counter())
        if not pd.isna(value):  # a missing value is judged (it agrees with no one) but counts for no label
            labels[value] += 1
    scores: dict[Any, list[int]] = {}
    for (worker, item, field), value in latest.items():
        labels = counts[(item, field)]
        n_others = sum(labels.values()) - 1
        for label, size in labels.items():
            others = size - (label == value)
            if n_others >= min_others and 2 * others > n_others and worker is not _MISSING:
                score = scores.setdefault(worker, [0, 0])
                score[0], score[1] = score[0] + 1, score[1] + (label == value)
    if not scores:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    rows = [(worker, judged, agreed, agreed / judged) for worker, (judged, agreed) in sorted(scores.items())]
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


_MISSING = object()  # a missing worker id: one key for every kind of missing, as drop_duplicates has it


def _key(worker: Any) -> Any:
    return _MISSING if pd.isna(worker) else worker


def agreement_blocks(scores: pd.DataFrame, policy: AgreementPolicy) -> pd.DataFrame:
    """Workers with ``min_items`` judged labels whose disagreeing share passes ``1 - block_below``."""
    return wrong_share_blocks(scores, "judged", "agreed", policy.min_items, policy.block_below, policy.confidence, RULE)
