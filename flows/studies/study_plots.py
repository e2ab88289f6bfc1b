"""The evaluation studies' report plots (PNG, inlined): what people would rather see than read."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from flows.campaigns.report import _png


def _bars(values: dict[str, float], title: str, ylabel: str, horizontal: bool = False) -> str:
    fig, ax = plt.subplots(figsize=(7, 3.4 if not horizontal else 0.3 * len(values) + 1))
    series = pd.Series(values)
    (series.plot.barh if horizontal else series.plot.bar)(ax=ax, rot=0 if not horizontal else None)
    ax.set_title(title)
    ax.set_ylabel(ylabel if not horizontal else "")
    return _png(fig)


def _severity_plot(a: dict[str, Any]) -> str:
    conds = a["conditions"]
    fig, ax = plt.subplots(figsize=(7, 3.4))
    names = sorted(conds, key=lambda c: conds[c]["mean"])
    ax.bar(names, [conds[c]["mean"] for c in names], yerr=[conds[c]["sd"] for c in names], capsize=4)
    ax.set_ylim(0, 100)
    ax.set_title("Mean rating per error type (bars: SD)")
    ax.set_ylabel("0 (worst) - 100 (best)")
    return _png(fig)


def _pairwise_plot(a: dict[str, Any]) -> str:
    dims = a["dimensions"]
    fig, axes = plt.subplots(1, len(dims), figsize=(4 * len(dims), 3.2), squeeze=False)
    for ax, (dim, d) in zip(axes[0], dims.items(), strict=True):
        bt = d["bradley_terry"]
        names = sorted(bt, key=lambda s: bt[s]["strength"])
        mid = [bt[s]["strength"] for s in names]
        err = [[m - bt[s]["ci_low"] for s, m in zip(names, mid, strict=True)],
               [bt[s]["ci_high"] - m for s, m in zip(names, mid, strict=True)]]
        ax.errorbar(mid, names, xerr=err, fmt="o", capsize=4)
        ax.axvline(0, color="#999", lw=0.8)
        ax.set_title(f"{dim}: Bradley-Terry strength (95% CI)")
    return _png(fig)


def study_plots(kind: str, table: pd.DataFrame, a: dict[str, Any]) -> list[tuple[str, str]]:
    """(caption, base64 PNG) pairs for the report."""
    if "error" in a:
        return []
    if kind in ("expert_rating", "crowd_selection"):
        means = pd.Series(a["per_pair"]).astype(float)
        fig, ax = plt.subplots(figsize=(7, 3.2))
        means.plot.hist(ax=ax, bins=12)
        ax.set_title("Mean score per pair" if kind == "expert_rating" else "Share of judges ticking each sentence")
        return [("Per-pair means", _png(fig))]
    if kind == "error_analysis":
        return [("Error categories", _bars(a["category_counts"], "Error categories ticked", "count", True))]
    if kind == "pairwise_grading":
        shares = pd.DataFrame({d: v["shares"] for d, v in a["dimensions"].items()}).T
        fig, ax = plt.subplots(figsize=(7, 3.2))
        shares.plot.barh(stacked=True, ax=ax)
        ax.set_title("Answers per dimension (system A's view)")
        ax.legend(fontsize=7, loc="lower right")
        return [("Answer shares", _png(fig)), ("Bradley-Terry strengths", _pairwise_plot(a))]
    return [("Severity by error type", _severity_plot(a))]
