"""Expert 1-4 scores and crowd yes/no selections of image-sentence pairs (seed 000, sections 3-4).
Input columns: ``item_id, worker_id, label``: for expert ratings the score 1-4, for crowd
selections 1 (ticked: the sentence describes the image) or 0."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from postprocess.agreement import agreement, alpha_of_counts, check_labels, count_table, value_domain
from postprocess.bootstrap import bootstrap, ratio_bootstrap


def pair_means(df: pd.DataFrame) -> pd.DataFrame:
    """``item_id, mean, n`` per image-sentence pair."""
    data = check_labels(df)
    data["label"] = pd.to_numeric(data["label"], errors="coerce")
    if data["label"].isna().any():
        raise ValueError("labels must be numbers (a 1-4 score or 0/1 for a crowd selection)")
    return data.groupby("item_id")["label"].agg(["mean", "count"]).rename(columns={"count": "n"}).reset_index()


def rating_summary(df: pd.DataFrame, level: str = "ordinal") -> dict[str, Any]:
    """Mean per pair, its distribution, and alpha at ``level``; ``intervals``: bootstrap over pairs."""
    means = pair_means(df)
    return {
        "pairs": len(means), "mean_of_means": round(float(means["mean"].mean()), 4) if len(means) else None,
        "intervals": rating_intervals(df, means, level),
        "mean_histogram": {str(k): int(v) for k, v in means["mean"].round(2).value_counts().sort_index().items()},
        "agreement": agreement(df, level),
        "per_pair": {str(r.item_id): round(float(r.mean), 4) for r in means.itertuples()},
    }


def rating_intervals(df: pd.DataFrame, means: pd.DataFrame, level: str) -> dict[str, dict[str, object]]:
    """Bootstrap intervals over pairs of the mean of per-pair means and of Krippendorff's alpha."""
    table = count_table(check_labels(df), level)
    counts, domain = table.to_numpy(dtype=float), value_domain(table, level)

    def resampled_alpha(rows: np.ndarray) -> float:
        return alpha_of_counts(counts[rows], domain, level)

    return {"mean_of_means": ratio_bootstrap(means["mean"].to_numpy(dtype=float), np.ones(len(means)), "pairs"),
            "krippendorff_alpha": bootstrap(len(table), resampled_alpha, "pairs")}
