"""The qualification test in the report: scores, pass rate, and how QC flags relate to scores.
Inputs: scores ``worker_id, score, spelling_score, grammar_score, judging_score, passed`` (section scores may
be empty); captions ``worker_id, assignment_id``; flags ``worker_id, rule``; blocked ``worker_id``."""

from __future__ import annotations

from typing import Any

import pandas as pd

SECTIONS = ("spelling_score", "grammar_score", "judging_score")
SCORE_BANDS = [0, 80, 85, 90, 95, 100.01]
NOT_A_FAULT = ("random_sample",)  # sampled for review: says nothing about the worker


def score_summary(scores: pd.DataFrame) -> dict[str, Any]:
    """Takers, pass rate, and mean / quartiles of the overall and each section's score."""
    out: dict[str, Any] = {"takers": len(scores),
                           "passed": int(scores["passed"].astype(bool).sum()) if len(scores) else 0}
    out["pass_rate"] = round(out["passed"] / out["takers"], 3) if out["takers"] else 0.0
    rows = []
    for col in ("score", *SECTIONS):
        values = pd.to_numeric(scores[col], errors="coerce").dropna() if col in scores else pd.Series(dtype=float)
        if values.empty:
            continue
        part = col.removesuffix("_score") if col != "score" else "overall"
        rows.append({"part": part, "mean": round(values.mean(), 1),
                     "q1": round(values.quantile(0.25), 1), "median": round(values.median(), 1),
                     "q3": round(values.quantile(0.75), 1)})
    out["parts"] = rows
    return out


def flags_by_score(scores: pd.DataFrame, captions: pd.DataFrame, flags: pd.DataFrame,
                   blocked: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Per score band: workers, captions, fault flags per 100 captions, share blocked; and Spearman's rho."""
    # Imported here: scipy.stats costs ~1.5 s CPU and `hitflow run` imports this module even for --dry-run.
    from scipy.stats import spearmanr

    work = captions.groupby("worker_id").size().rename("captions").reset_index()
    faults = flags[~flags["rule"].isin(NOT_A_FAULT)].groupby("worker_id").size().rename("flags")
    per_worker = work.merge(scores[["worker_id", "score"]], on="worker_id", how="inner")
    per_worker["flags"] = per_worker["worker_id"].map(faults).fillna(0).astype(int)
    per_worker["blocked"] = per_worker["worker_id"].isin(set(blocked["worker_id"]))
    per_worker["band"] = pd.cut(per_worker["score"], SCORE_BANDS, right=False,
                                labels=["<80", "80-84", "85-89", "90-94", "95-100"])
    table = per_worker.groupby("band", observed=True).agg(
        workers=("worker_id", "size"), captions=("captions", "sum"), flags=("flags", "sum"),
        blocked=("blocked", "sum")).reset_index()
    table["flags_per_100_captions"] = (100 * table["flags"] / table["captions"]).round(1)
    table["share_blocked"] = (table["blocked"] / table["workers"]).round(3)
    rate = per_worker["flags"] / per_worker["captions"]
    enough = len(per_worker) >= 3 and rate.nunique() > 1 and per_worker["score"].nunique() > 1
    rho, p = spearmanr(per_worker["score"], rate) if enough else (float("nan"), float("nan"))
    return table, {"workers": len(per_worker), "rho": None if pd.isna(rho) else round(float(rho), 3),
                   "p": None if pd.isna(p) else round(float(p), 4)}
