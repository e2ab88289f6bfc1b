"""Inter-annotator agreement: percent unanimous, Fleiss' kappa, Krippendorff's alpha, Cohen's kappa for two.
Input columns: ``item_id, worker_id, label`` (repeats kept); labels compared as text (nominal) or numbers
(ordinal/interval)."""

from __future__ import annotations

from typing import Any

import krippendorff
import numpy as np
import pandas as pd
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa

LEVELS = ("nominal", "ordinal", "interval")
REQUIRED = ("item_id", "worker_id", "label")


def check_labels(df: pd.DataFrame) -> pd.DataFrame:
    """The column contract, with blank labels dropped (an unanswered question is no judgement)."""
    if missing := [c for c in REQUIRED if c not in df.columns]:
        raise ValueError(f"missing column(s) {', '.join(missing)}; expected {', '.join(REQUIRED)}")
    out = df[list(REQUIRED)].astype(str)
    out = out[out["label"].str.strip() != ""].copy()
    out["label"] = out["label"].str.strip()
    return out


def count_table(df: pd.DataFrame, level: str = "nominal") -> pd.DataFrame:
    """Items x categories, each cell the number of judgements with that label."""
    labels = _ordered_labels(df["label"], level)
    return pd.crosstab(df["item_id"], df["label"]).reindex(columns=labels, fill_value=0)


def _ordered_labels(labels: pd.Series, level: str) -> list[str]:
    values = sorted(set(labels))
    if level == "nominal":
        return values
    try:
        return sorted(values, key=float)
    except ValueError as exc:
        raise ValueError(f"--level {level} needs numeric labels; found {values[:5]}") from exc


def fleiss(table: pd.DataFrame) -> float:
    """Fleiss' kappa over items with two or more judgements, each item's own rater count."""
    counts = table.to_numpy(dtype=float)
    n = counts.sum(axis=1)
    counts, n = counts[n >= 2], n[n >= 2]
    if len(counts) == 0:
        return float("nan")
    if np.all(n == n[0]):
        return float(fleiss_kappa(counts, method="fleiss"))
    p_item = ((counts * (counts - 1)).sum(axis=1)) / (n * (n - 1))
    p_cat = counts.sum(axis=0) / counts.sum()
    expected = float((p_cat**2).sum())
    return float((p_item.mean() - expected) / (1 - expected)) if expected < 1 else float("nan")


def alpha(table: pd.DataFrame, level: str = "nominal") -> float:
    """Krippendorff's alpha from the count table (raters need not be identified)."""
    return alpha_of_counts(table.to_numpy(dtype=float), value_domain(table, level), level)


def value_domain(table: pd.DataFrame, level: str) -> list[float] | list[int]:
    """The count table's categories as krippendorff wants them: numbers unless nominal."""
    return [float(c) for c in table.columns] if level != "nominal" else list(range(table.shape[1]))


def alpha_of_counts(counts: np.ndarray, domain: list[float] | list[int], level: str) -> float:
    """Krippendorff's alpha of an items x categories count array (NaN where undefined)."""
    if counts.shape[1] < 2 or not (counts.sum(axis=1) >= 2).any():  # krippendorff raises: "at least two coders"
        return float("nan")
    return float(krippendorff.alpha(value_counts=counts, value_domain=domain,
                                    level_of_measurement=level))  # type: ignore[arg-type]


def cohen(df: pd.DataFrame) -> float:
    """Cohen's kappa between the two raters, over the items both labelled."""
    raters = sorted(df["worker_id"].unique())
    wide = df.drop_duplicates(["item_id", "worker_id"]).pivot(index="item_id", columns="worker_id", values="label")
    both = wide.dropna()
    if both.empty:  # no item both labelled: no agreement to measure
        return float("nan")
    labels = sorted(set(both[raters[0]]) | set(both[raters[1]]))
    table = pd.crosstab(both[raters[0]], both[raters[1]]).reindex(index=labels, columns=labels, fill_value=0)
    return float(cohens_kappa(table.to_numpy(dtype=float), return_results=False))


def agreement(df: pd.DataFrame, level: str = "nominal") -> dict[str, Any]:
    """``items, raters, percent_unanimous, fleiss_kappa, krippendorff_alpha`` (and ``cohen_kappa`` for two raters)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)} (got {level!r})")
    labels = check_labels(df)
    table = count_table(labels, level)
    judged = table[table.sum(axis=1) >= 2]
    unanimous = (judged.gt(0).sum(axis=1) == 1).mean() * 100 if len(judged) else float("nan")
    out: dict[str, Any] = {
        "items": int(labels["item_id"].nunique()), "raters": int(labels["worker_id"].nunique()),
        "percent_unanimous": _round(unanimous), "fleiss_kappa": _round(fleiss(table)),
        "krippendorff_alpha": _round(alpha(table, level)),
    }
    if out["raters"] == 2:
        out["cohen_kappa"] = _round(cohen(labels))
    if out["krippendorff_alpha"] is None:
        out["note"] = "too little data for agreement: no item was judged by two or more raters"
    return out


def _round(value: float) -> float | None:
    return None if value != value else round(float(value), 4)
