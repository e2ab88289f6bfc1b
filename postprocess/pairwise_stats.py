"""Pairwise relative grading (seed 002): answer shares per dimension and Bradley-Terry strengths.
Input columns: ``item_id, worker_id, dimension, system_a, system_b, answer``, ``answer`` on the five-step
scale from ``system_a``'s side (1 = A much better ... 5 = B much better; :func:`undo_order` maps #1/#2)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from postprocess.bootstrap import clusters, interval, resample_counts

SCALE = {1: "A much better", 2: "A slightly better", 3: "equal", 4: "B slightly better", 5: "B much better"}
REQUIRED = ("item_id", "worker_id", "dimension", "system_a", "system_b", "answer")
# Wins credited to system A per answer: "equal" is half a win each way (the usual tie convention).
A_WINS = {1: 1.0, 2: 1.0, 3: 0.5, 4: 0.0, 5: 0.0}
BLOCK = 2_000_000  # floats of the bootstrap's fits held at once (16 MB): resamples x judgements x systems


def undo_order(df: pd.DataFrame) -> pd.DataFrame:
    """Answers turned back to ``system_a``'s view where the page showed ``system_b`` first (``flipped``)."""
    out = df.copy()
    answer = pd.to_numeric(out["answer"], errors="coerce")
    flipped = pd.to_numeric(out["flipped"], errors="coerce").fillna(0).astype(int) == 1
    out["answer"] = answer.where(~flipped, 6 - answer)
    return out


def check_pairs(df: pd.DataFrame) -> pd.DataFrame:
    if missing := [c for c in REQUIRED if c not in df.columns]:
        raise ValueError(f"missing column(s) {', '.join(missing)}; expected {', '.join(REQUIRED)}")
    out = df[list(REQUIRED)].copy()
    out["answer"] = pd.to_numeric(out["answer"], errors="coerce")
    bad = ~out["answer"].isin(list(SCALE))
    if bad.any():
        raise ValueError(f"{int(bad.sum())} answer(s) are not 1-5 (first: {df.loc[bad, 'answer'].iloc[0]!r})")
    out["answer"] = out["answer"].astype(int)
    return out


def bradley_terry(df: pd.DataFrame, confidence: float = 0.95) -> dict[str, dict[str, float]]:
    """Strength per system (log scale) with a Wald interval and a seeded bootstrap one (``boot_low``, ``boot_high``)."""
    systems = sorted(set(df["system_a"]) | set(df["system_b"]))
    if len(systems) < 2:
        raise ValueError("Bradley-Terry needs at least two systems")
    design = np.zeros((len(df), len(systems)))
    index = {s: i for i, s in enumerate(systems)}
    design[np.arange(len(df)), df["system_a"].map(index).to_numpy()] += 1
    design[np.arange(len(df)), df["system_b"].map(index).to_numpy()] -= 1
    wins = df["answer"].map(A_WINS).to_numpy()
    # here, not at the top: every config load reaches this module, and statsmodels.api costs ~0.5 s of CPU
    import statsmodels.api as sm

    fit = sm.GLM(wins, design[:, 1:], family=sm.families.Binomial()).fit()
    low, high = fit.conf_int(alpha=1 - confidence).T
    boot = strength_bootstrap(df, design[:, 1:], wins)
    out = {systems[0]: {"strength": 0.0, "ci_low": 0.0, "ci_high": 0.0, "boot_low": 0.0, "boot_high": 0.0}}
    for k, system in enumerate(systems[1:]):
        out[system] = {"strength": round(float(fit.params[k]), 4), "ci_low": round(float(low[k]), 4),
                       "ci_high": round(float(high[k]), 4), "boot_low": boot[k]["low"], "boot_high": boot[k]["high"]}
    return out


def logistic_fits(design: np.ndarray, wins: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted logistic regressions without intercept by Newton's method, one per row of ``weights`` (a weight
    per row of ``design``), all at once: ``R x design.shape[1]``, a row of NaN where its fit meets a singular
    Hessian or does not converge in 60 steps. Each fit takes its own path from 0 and stops at its own step under
    1e-10, with the arithmetic of one fit alone (why: docs/explanation/module-notes.md)."""
    chunk = max(1, BLOCK // max(1, design.size))  # fits a block: R x rows x systems floats held at once
    return np.concatenate([_newton(design, wins, weights[i:i + chunk]) for i in range(0, len(weights), chunk)]) \
        if len(weights) else np.empty((0, design.shape[1]))


def _newton(design: np.ndarray, wins: np.ndarray, weights: np.ndarray) -> np.ndarray:
    k = design.shape[1]
    beta, out = np.zeros((len(weights), k)), np.full((len(weights), k), np.nan)
    live = np.arange(len(weights))  # the fits still stepping
    for _ in range(60):
        if not len(live):
            break
        p = 1.0 / (1.0 + np.exp(-(beta[live] @ design.T)))
        w = weights[live]
        hessians = np.matmul(design.T[None], design[None] * (w * p * (1 - p))[:, :, None])
        gradients = np.matmul(design.T[None], (w * (wins - p))[:, :, None])[..., 0]
        step, solved = _solve(hessians, gradients)
        beta[live] += step
        done = solved & (np.max(np.abs(step), axis=1) < 1e-10)
        out[live[done]] = beta[live[done]]
        live = live[solved & ~done]
    return out


def _solve(hessians: np.ndarray, gradients: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each Newton step and whether its Hessian could be solved (one singular matrix fails the whole stack)."""
    try:
        return np.linalg.solve(hessians, gradients[..., None])[..., 0], np.ones(len(hessians), dtype=bool)
    except np.linalg.LinAlgError:
        steps, solved = np.zeros_like(gradients), np.ones(len(hessians), dtype=bool)
        for i, (hessian, gradient) in enumerate(zip(hessians, gradients, strict=True)):
            try:
                steps[i] = np.linalg.solve(hessian, gradient)
            except np.linalg.LinAlgError:
                solved[i] = False
        return steps, solved


def strength_bootstrap(df: pd.DataFrame, design: np.ndarray, wins: np.ndarray) -> list[dict[str, Any]]:
    """Per non-reference system, a seeded bootstrap interval of its strength over items (every resample fitted
    at once: a resample weighs each judgement by how often its item was drawn)."""
    names, where = clusters(df["item_id"])
    fits = logistic_fits(design, wins, resample_counts(len(names))[:, where].astype(float)) if len(names) > 1 \
        else np.full((1, design.shape[1]), np.nan)
    return [interval(fits[:, k], "items") for k in range(design.shape[1])]


def pairwise_summary(df: pd.DataFrame) -> dict[str, Any]:
    """``{"dimensions": {dim: {"shares", "bradley_terry"}}, "judgements"}``."""
    data = check_pairs(df)
    table = pd.crosstab(data["dimension"], data["answer"], normalize="index").reindex(columns=list(SCALE),
                                                                                        fill_value=0.0)
    shares = {str(d): {SCALE[int(a)]: round(float(v), 4) for a, v in row.items()} for d, row in table.iterrows()}
    return {"judgements": len(data),
            "dimensions": {dim: {"shares": shares[dim], "bradley_terry": bradley_terry(group)}
                           for dim, group in data.groupby("dimension")}}
