"""Expert 1-4 scores and crowd yes/no selections of image-sentence pairs (seed 000, sections 3-4).

Input columns: ``item_id, worker_id, label``: for expert ratings the score 1-4, for crowd
selections 1 (ticked: the sentence describes the image) or 0.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from postprocess.agreement import agreement, check_labels


def pair_means(df: pd.DataFrame) -> pd.DataFrame:
    """``item_id, mean, n`` per image-sentence pair."""
    data = check_labels(df)
    data["label"] = pd.to_numeric(data["label"], errors="coerce")
    if data["label"].isna().any():
        raise ValueError("labels must be numbers (a 1-4 score or 0/1 for a crowd selection)")
    return data.groupby("item_id")["label"].agg(["mean", "count"]).rename(columns={"count": "n"}).reset_index()


def rating_summary(df: pd.DataFrame, level: str = "ordinal") -> dict[str, Any]:
    """Mean per pair, its distribution (``mean_of_means`` None without pairs), and agreement (alpha at
    ``level``)."""
    means = pair_means(df)
    return {
        "pairs": len(means), "mean_of_means": round(float(means["mean"].mean()), 4) if len(means) else None,
        "mean_histogram": {str(k): int(v) for k, v in means["mean"].round(2).value_counts().sort_index().items()},
        "agreement": agreement(df, level),
        "per_pair": {str(r.item_id): round(float(r.mean), 4) for r in means.itertuples()},
    }
