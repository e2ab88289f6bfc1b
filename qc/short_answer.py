"""``short_answer``: under half the median words the other workers wrote on the same item and field, where the crowd
writes sentences and the page's stated most words are above ``short_answer_short_box`` (docs/explanation/qc-rules.md).
Input columns: ``assignment_id, worker_id, image_id, caption`` (one row per answer of one free-text field).
``params``: ``short_answer_ratio`` (0.5), ``short_answer_min_median`` (6), ``short_answer_min_others`` (2),
``short_answer_short_box`` (30), ``max_words`` (0: none stated)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qc.caption_rules import caption_flags, clip
from qc.flags import register
from qc.submit_rules import count_words


@register("short_answer", "caption")
def short_answer(df: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """An answer under ``short_answer_ratio`` of the other workers' median words on its item."""
    ratio = float(params.get("short_answer_ratio", 0.5))
    least_median = float(params.get("short_answer_min_median", 6))
    least_others = int(params.get("short_answer_min_others", 2))
    if 0 < int(params.get("max_words") or 0) <= int(params.get("short_answer_short_box", 30)):
        return caption_flags(df, "short_answer", [])
    texts = df["caption"].fillna("").astype(str).tolist()
    counts = np.array([count_words(t) for t in texts], dtype=float)
    items, workers = df["image_id"].astype(str).tolist(), df["worker_id"].astype(str).tolist()
    on_item: dict[str, list[int]] = {}
    for k, item in enumerate(items):
        if counts[k] > 0:  # a blank optional answer is no answer to compare
            on_item.setdefault(item, []).append(k)
    hits = []
    for k, item in enumerate(items):
        others = [counts[j] for j in on_item.get(item, ()) if workers[j] != workers[k]]
        if counts[k] == 0 or len(others) < least_others:
            continue
        median = float(np.median(others))
        if median >= least_median and counts[k] < ratio * median:
            hits.append((df.index[k], int(counts[k]), round(ratio * median, 1),
                         f"{int(counts[k])} words where the {len(others)} other workers on the item wrote a median of "
                         f"{median:g}: {clip(texts[k], 100)}"))
    return caption_flags(df, "short_answer", hits)
