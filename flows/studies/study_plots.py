"""The evaluation studies' report plots (PNG, inlined)."""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from flows.core.outputs.figures import figures_png, histogram, legend_beside, new_figure


def _bars(values: dict[str, float], title: str, xlabel: str) -> Figure:
    fig, axes = new_figure(7.5, 0.3 * len(values) + 1.2)
    ax = axes[0][0]
    pd.Series(values).plot.barh(ax=ax)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return fig


def _severity_figure(a: dict[str, Any]) -> Figure:
    """Horizontal bars: error-type names read along their own line, however long or many."""
    conds = a["conditions"]
    fig, axes = new_figure(7.5, 0.4 * len(conds) + 1.4)
    ax = axes[0][0]
    names = sorted(conds, key=lambda c: conds[c]["mean"])
    ax.barh(names, [conds[c]["mean"] for c in names], xerr=[conds[c]["sd"] for c in names], capsize=4)
    ax.set_xlim(0, 100)
    ax.set_title("Mean rating per error type (bars: SD)")
    ax.set_xlabel("0 (worst) - 100 (best)")
    return fig


def _pairwise_figure(a: dict[str, Any]) -> Figure:
    """One panel per dimension sharing the systems' axis, one title for all."""
    dims = a["dimensions"]
    fig, axes = new_figure(2.6 * len(dims) + 1.6, 0.35 * max(len(d["bradley_terry"]) for d in dims.values()) + 1.6,
                           ncols=len(dims), sharey=True)
    order = sorted(next(iter(dims.values()))["bradley_terry"],
                   key=lambda s: next(iter(dims.values()))["bradley_terry"][s]["strength"])
    for ax, (dim, d) in zip(axes[0], dims.items(), strict=True):
        bt = d["bradley_terry"]
        names = [s for s in order if s in bt]
        mid = [bt[s]["strength"] for s in names]
        err = [[m - bt[s]["ci_low"] for s, m in zip(names, mid, strict=True)],
               [bt[s]["ci_high"] - m for s, m in zip(names, mid, strict=True)]]
        ax.errorbar(mid, names, xerr=err, fmt="o", capsize=4)
        ax.axvline(0, color="#999", lw=0.8)
        ax.set_title(dim, fontsize=9)
        ax.locator_params(axis="x", nbins=4)
    fig.suptitle("Bradley-Terry strength per system (95% CI)", fontsize=10)
    return fig


def _shares_figure(a: dict[str, Any]) -> Figure:
    shares = pd.DataFrame({d: v["shares"] for d, v in a["dimensions"].items()}).T
    fig, axes = new_figure(7.5, 0.4 * len(shares) + 1.6)
    ax = axes[0][0]
    shares.plot.barh(stacked=True, ax=ax)
    ax.set_title("Answers per dimension (system A's view)")
    ax.set_xlabel("share of answers")
    legend_beside(ax)
    return fig


def study_figures(kind: str, table: pd.DataFrame, a: dict[str, Any]) -> list[tuple[str, Figure]]:
    """(caption, figure) pairs for the report."""
    if "error" in a:
        return []
    if kind in ("expert_rating", "crowd_selection"):
        means = pd.Series(a["per_pair"]).astype(float)
        fig, axes = new_figure(7.5, 3.2)
        histogram(axes[0][0], means, bins=12)
        axes[0][0].set_title("Mean score per pair" if kind == "expert_rating"
                             else "Share of judges ticking each sentence")
        axes[0][0].set_ylabel("pairs")
        return [("Per-pair means", fig)]
    if kind == "error_analysis":
        return [("Error categories", _bars(a["category_counts"], "Error categories ticked", "count"))]
    if kind == "pairwise_grading":
        return [("Answer shares", _shares_figure(a)), ("Bradley-Terry strengths", _pairwise_figure(a))]
    return [("Severity by error type", _severity_figure(a))]


def study_plots(kind: str, table: pd.DataFrame, a: dict[str, Any]) -> list[tuple[str, str]]:
    """(caption, base64 PNG) pairs for the report."""
    return figures_png(study_figures, kind, table, a)
