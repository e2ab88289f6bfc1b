"""Repeated-measures statistics for severity ratings (seed 004, Tables 1-2): descriptives, a one-way
repeated-measures ANOVA with Greenhouse-Geisser, and pairwise paired t-tests (raw and Bonferroni p).
Input columns: ``participant_id, condition, score``; a participant's ratings of one condition are averaged
first; participants missing a condition are left out and reported."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
import pingouin as pg

from postprocess.bootstrap import draws, interval

REQUIRED = ("participant_id", "condition", "score")


def condition_means(df: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """One mean score per participant and condition, and the participants left out."""
    if missing := [c for c in REQUIRED if c not in df.columns]:
        raise ValueError(f"missing column(s) {', '.join(missing)}; expected {', '.join(REQUIRED)}")
    data = df[list(REQUIRED)].copy()
    data["participant_id"] = data["participant_id"].astype(str)
    data["condition"] = data["condition"].astype(str)
    data["score"] = pd.to_numeric(data["score"], errors="coerce")
    data = data.dropna(subset=["score"])
    cells = data.groupby(["participant_id", "condition"], as_index=False)["score"].mean()
    conditions = sorted(cells["condition"].unique())
    have = cells.groupby("participant_id")["condition"].nunique()
    incomplete = sorted(have[have < len(conditions)].index)
    return cells[~cells["participant_id"].isin(incomplete)].reset_index(drop=True), incomplete


def rm_anova(cells: pd.DataFrame) -> dict[str, Any]:
    """One-way repeated-measures ANOVA (pingouin), with eta squared and partial eta squared."""
    table = pg.rm_anova(data=cells, dv="score", within="condition", subject="participant_id",
                        detailed=True, correction=True)
    cond, error = table.iloc[0], table.iloc[-1]
    ss_cond, ss_error = float(cond["SS"]), float(error["SS"])
    grand = cells["score"].mean()
    subject_means = cells.groupby("participant_id")["score"].mean()
    ss_subjects = float(((subject_means - grand) ** 2).sum() * cells["condition"].nunique())
    eps = float(cond.get("eps", 1.0))
    df1, df2 = float(cond["DF"]), float(error["DF"])
    p_gg = cond.get("p_GG_corr", cond["p_unc"])  # pingouin >= 0.7 names; no correction column for 2 levels
    p_gg = cond["p_unc"] if p_gg != p_gg else p_gg
    return {"F": float(cond["F"]), "df1": df1, "df2": df2, "gg_epsilon": eps, "df1_gg": df1 * eps,
            "df2_gg": df2 * eps, "p": float(cond["p_unc"]), "p_gg": float(p_gg),
            "eta2": ss_cond / (ss_cond + ss_subjects + ss_error), "eta2_partial": ss_cond / (ss_cond + ss_error)}


def pairwise(cells: pd.DataFrame) -> list[dict[str, Any]]:
    """Paired t-tests between every two conditions; Bonferroni over all pairs."""
    wide = cells.pivot(index="participant_id", columns="condition", values="score")
    pairs = list(combinations(sorted(wide.columns), 2))
    out = []
    for a, b in pairs:
        test = pg.ttest(wide[a], wide[b], paired=True)
        p = float(test["p_val"].iloc[0])
        out.append({"a": a, "b": b, "t": float(test["T"].iloc[0]), "df": float(test["dof"].iloc[0]), "p": p,
                    "p_bonferroni": min(1.0, p * len(pairs))})
    return out


def severity(df: pd.DataFrame) -> dict[str, Any]:
    """``{"conditions", "anova", "pairs", "participants", "excluded_incomplete", "intervals"}``."""
    cells, incomplete = condition_means(df)
    if cells["condition"].nunique() < 2 or cells["participant_id"].nunique() < 2:
        raise ValueError("severity analysis needs at least two conditions and two participants with all of them")
    described = cells.groupby("condition")["score"].agg(["mean", "std", "count"])
    return {
        "conditions": {c: {"mean": float(r["mean"]), "sd": float(r["std"]), "n": int(r["count"])}
                       for c, r in described.iterrows()},
        "anova": rm_anova(cells),
        "pairs": pairwise(cells),
        "participants": int(cells["participant_id"].nunique()),
        "excluded_incomplete": incomplete,
        "intervals": severity_intervals(cells),
    }


def effect_sizes(scores: np.ndarray) -> dict[str, np.ndarray]:
    """Eta squared, partial eta squared and condition means of ``resamples x participants x conditions`` arrays."""
    people, conditions = scores.shape[1], scores.shape[2]
    grand = scores.mean(axis=(1, 2), keepdims=True)
    ss_total = ((scores - grand) ** 2).sum(axis=(1, 2))
    ss_cond = people * ((scores.mean(axis=1, keepdims=True) - grand) ** 2).sum(axis=(1, 2))
    ss_subjects = conditions * ((scores.mean(axis=2, keepdims=True) - grand) ** 2).sum(axis=(1, 2))
    ss_error = ss_total - ss_cond - ss_subjects
    with np.errstate(invalid="ignore", divide="ignore"):
        return {"eta2": ss_cond / ss_total, "eta2_partial": ss_cond / (ss_cond + ss_error),
                "means": scores.mean(axis=1)}


def severity_intervals(cells: pd.DataFrame) -> dict[str, Any]:
    """Seeded bootstrap intervals over participants of eta squared, partial eta squared, condition means."""
    wide = cells.pivot(index="participant_id", columns="condition", values="score").sort_index()
    found = effect_sizes(wide.to_numpy(dtype=float)[draws(len(wide))])
    return {"eta2": interval(found["eta2"], "participants"),
            "eta2_partial": interval(found["eta2_partial"], "participants"),
            "condition_means": {str(c): interval(found["means"][:, k], "participants")
                                for k, c in enumerate(wide.columns)}}
