"""Workers scored on their agreement with the other workers' answer, and blocked on it: the
"majority vote" quality control of labelling platforms, beside control items (postprocess/answers/control_items.py).

A worker's label of an item is judged only where the *other* workers who labelled the item (at least
``min_others`` of them) hold a strict majority for one label: the worker agrees when they gave it.
Their own label never counts toward the answer they are judged against, so a worker is not judged
by themself, and an item the others split on judges no one (an ambiguous item, or a page that reads
two ways, says nothing about the worker).

Input columns: ``judgements``: ``worker_id, item_id, field, value`` (choice fields only: one row per
label; blank values are no label; a worker's repeated label of an item and field counts once, the last).
Output of :func:`agreement_scores`: ``worker_id, judged, agreed, agreement`` (one row per worker
judged on at least one label); of :func:`agreement_blocks`: :data:`qc.worker_history.BLOCK_COLUMNS`,
``rules`` reading ``answer_agreement 5% (1/20)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from qc.worker_history import wrong_share_blocks

SCORE_COLUMNS = ["worker_id", "judged", "agreed", "agreement"]
RULE = "answer_agreement"


@dataclass(frozen=True)
class AgreementPolicy:
    """When agreement blocks: ``min_items`` labels judged, and the share of those that disagree with
    the others' answer (its Wilson lower bound at ``confidence`` z) above ``1 - block_below``."""

    block_below: float = 0.0  # 0: agreement never blocks
    min_items: int = 6
    min_others: int = 3
    confidence: float = 1.645


def agreement_scores(judgements: pd.DataFrame, min_others: int) -> pd.DataFrame:
    """Per worker: labels judged against the others' strict-majority answer, and how many agree."""
    given = judgements.assign(value=judgements["value"].astype(str).str.strip())
    given = given[given["value"] != ""].drop_duplicates(["worker_id", "item_id", "field"], keep="last")
    if given.empty:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    keys = ["item_id", "field"]
    counts = given.groupby([*keys, "value"], as_index=False).size().rename(columns={"value": "label"})
    counts["total"] = counts.groupby(keys)["size"].transform("sum")
    # every label of the item against the judged worker's: the others' count of each label
    pairs = given[["worker_id", *keys, "value"]].merge(counts, on=keys)
    others = pairs["size"] - (pairs["label"] == pairs["value"]).astype(int)
    n_others = pairs["total"] - 1
    held = pairs[(n_others >= min_others) & (2 * others > n_others)]  # at most one label per judgement
    if held.empty:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    held = held.assign(agree=(held["label"] == held["value"]).astype(int))
    out = held.groupby("worker_id", as_index=False).agg(judged=("agree", "size"), agreed=("agree", "sum"))
    out["judged"], out["agreed"] = out["judged"].astype(int), out["agreed"].astype(int)
    out["agreement"] = out["agreed"] / out["judged"]
    return out[SCORE_COLUMNS].sort_values("worker_id", ignore_index=True)


def agreement_blocks(scores: pd.DataFrame, policy: AgreementPolicy) -> pd.DataFrame:
    """Workers with ``min_items`` judged labels whose disagreeing share (its lower bound) passes
    ``1 - block_below``."""
    return wrong_share_blocks(scores, "judged", "agreed", policy.min_items, policy.block_below, policy.confidence, RULE)
