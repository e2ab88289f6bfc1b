"""How a requester picks adaptive overlap's confidence from an old batch before spending: the share of the
file's judgements each confidence uses, and its answers against every label's and against gold."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd

from postprocess.answers.adaptive import Replay, StoppingRule
from postprocess.answers.aggregation import aggregate


def sweep_confidences(frame: pd.DataFrame, rule: StoppingRule, confidences: tuple[float, ...],
                      gold: pd.Series | None, at_rule: Replay | None = None,
                      controls: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """One row per confidence (first every label's, ``confidence`` None), as the module says; ``at_rule``: the
    replay at ``rule.confidence`` if already made."""
    from postprocess.answers.adaptive import replay, saving

    full = aggregate(frame, rule.method, controls=controls).answers.set_index(["item_id", "field"])["label"]
    rows = []
    for confidence in (None, *confidences):
        if confidence is None:
            answers, share = full.reset_index(), 1.0
        else:
            replayed = (at_rule if at_rule is not None and confidence == rule.confidence
                        else replay(frame, replace(rule, confidence=confidence), controls=controls))
            answers, share = replayed.answers, float(saving(replayed, frame)["share_used"])
        keyed = answers.set_index(["item_id", "field"])["label"]
        row: dict[str, Any] = {"confidence": confidence, "share_used": round(share, 4),
                               "same_as_all_labels": round(float((keyed == full.reindex(keyed.index)).mean()), 4)}
        if gold is not None:  # over the items with gold
            scored_items = keyed[keyed.index.get_level_values("item_id").isin(gold.index)]
            row["accuracy"] = round(float((scored_items.to_numpy() == gold.reindex(
                scored_items.index.get_level_values("item_id")).to_numpy()).mean()), 4) if len(scored_items) else None
        rows.append(row)
    return rows
