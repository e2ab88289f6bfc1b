"""Error analysis of generated descriptions (seed 001): congruency and the Table 1 categories.
Input columns: ``item_id, worker_id, congruent, categories`` where ``congruent`` is ``congruent``/``incongruent`` and
``categories`` holds the ticked categories separated by ``|`` (empty for a congruent description)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from postprocess.bootstrap import clusters, ratio_bootstrap
from postprocess.error_categories import CATEGORY_KEYS

REQUIRED = ("item_id", "worker_id", "congruent", "categories")


def split_categories(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (judgement, category); unknown category strings are kept, not dropped."""
    if missing := [c for c in REQUIRED if c not in df.columns]:
        raise ValueError(f"missing column(s) {', '.join(missing)}; expected {', '.join(REQUIRED)}")
    cats = df.assign(category=df["categories"].fillna("").astype(str).str.split("|")).explode("category")
    cats["category"] = cats["category"].str.strip()
    return cats[cats["category"] != ""][["item_id", "worker_id", "category"]]


def error_summary(df: pd.DataFrame) -> dict[str, Any]:
    """Congruent share with its bootstrap interval, the category histogram, labels per item."""
    data = df.copy()
    data["congruent"] = data["congruent"].astype(str).str.strip().str.lower()
    cats = split_categories(data)
    counts = cats["category"].value_counts()
    ordered = [c for c in CATEGORY_KEYS if c in counts.index] + sorted(set(counts.index) - set(CATEGORY_KEYS))
    per_item = cats.groupby("item_id")["category"].agg(lambda s: sorted(set(s)))
    incongruent = data[data["congruent"] == "incongruent"]
    labels_per = cats.groupby(["item_id", "worker_id"]).size()
    return {
        "judgements": len(data), "items": int(data["item_id"].nunique()),
        "congruent_share": round(float((data["congruent"] == "congruent").mean()), 4) if len(data) else None,
        "intervals": {"congruent_share": congruent_interval(data)},
        "congruent": int((data["congruent"] == "congruent").sum()), "incongruent": len(incongruent),
        "category_counts": {c: int(counts[c]) for c in ordered},
        "unknown_categories": sorted(set(counts.index) - set(CATEGORY_KEYS)),
        "labels_per_incongruent_judgement": round(float(labels_per.mean()), 4) if len(labels_per) else 0.0,
        "labels_per_item": {str(k): v for k, v in per_item.items()},
    }


def congruent_interval(data: pd.DataFrame) -> dict[str, object]:
    """Seeded bootstrap interval of the congruent share, resampling items with all their judgements."""
    names, where = clusters(data["item_id"])
    congruent = np.bincount(where, weights=(data["congruent"] == "congruent").to_numpy(dtype=float),
                            minlength=len(names))
    return ratio_bootstrap(congruent, np.bincount(where, minlength=len(names)).astype(float), "items")
