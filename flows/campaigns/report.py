"""The campaign report: one static HTML page with its plots inlined as PNG."""

from __future__ import annotations

import base64
import io
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from flows.core.templates import render


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def plot_batches(counts: pd.DataFrame) -> str:
    fig, ax = plt.subplots(figsize=(7, 3.2))
    cols = ["assignments", "approved", "rejected", "flags", "blocked"]
    if counts.empty:
        ax.text(0.5, 0.5, "no work came in", ha="center")
    else:
        counts.set_index("batch")[cols].plot.bar(ax=ax, rot=0)
    ax.set_title("Per batch")
    ax.set_ylabel("count")
    return _png(fig)


def plot_times(times: pd.DataFrame, bands: pd.DataFrame) -> str:
    n = max(1, len(bands))
    fig, axes = plt.subplots(1, n, figsize=(3.2 * n, 2.8), sharey=True, squeeze=False)
    for ax, band in zip(axes[0], bands.itertuples(), strict=False):
        data = times.loc[times["batch"] == band.batch, "work_time_s"]
        ax.hist(data, bins=30, color="#4a78a8")
        ax.axvspan(max(band.low, 0), band.high, color="#9c9", alpha=0.3, label="mu ± 1.95σ")
        ax.set_title(f"batch {band.batch}")
        ax.set_xlabel("seconds accept→submit")
    if len(bands):
        axes[0][0].legend(fontsize=7)
    return _png(fig)


def plot_flags(flags: pd.DataFrame) -> str:
    fig, ax = plt.subplots(figsize=(7, 3))
    counts = flags["rule"].value_counts().sort_values()
    if counts.empty:
        ax.text(0.5, 0.5, "no flags", ha="center")
    else:
        counts.plot.barh(ax=ax, color="#c0504d")
    ax.set_title("Flags per rule")
    return _png(fig)


def plot_scores(scores: pd.DataFrame, threshold: float) -> str:
    """Histograms of the overall and each section's test score, with the pass mark."""
    parts = [c for c in ("score", "spelling_score", "grammar_score", "judging_score")
             if c in scores and pd.to_numeric(scores[c], errors="coerce").notna().any()]
    fig, axes = plt.subplots(1, len(parts), figsize=(3 * len(parts), 2.6), sharey=True, squeeze=False)
    for ax, col in zip(axes[0], parts, strict=True):
        ax.hist(pd.to_numeric(scores[col], errors="coerce").dropna(), bins=range(0, 105, 5), color="#4a78a8")
        ax.set_title("overall" if col == "score" else col.removesuffix("_score"))
        ax.set_xlabel("percent correct")
    axes[0][0].axvline(threshold, color="#c0504d", label=f"pass mark {threshold:g}")
    axes[0][0].set_ylabel("workers")
    axes[0][0].legend(fontsize=7)
    return _png(fig)


def _qualification_context(qual: dict[str, Any] | None) -> dict[str, Any] | None:
    if not qual:
        return None
    return {**qual["summary"], "threshold": qual["threshold"], "mode": qual["mode"],
            "correlation": qual["correlation"], "by_band": qual["by_band"].to_dict("records"),
            "plot": plot_scores(qual["scores"], qual["threshold"]) if len(qual["scores"]) else ""}


def render_report(data: dict[str, Any]) -> str:
    """``data``: name, target, counts, times, bands, flags, blocked (with samples and, optionally, each
    worker's history lines), canned,
    spelling, cost, truth (optional), qualification (optional), review (optional: per batch, a
    person's decisions against the rules', see :func:`qc.review_queue.people_vs_rules`)."""
    context = {
        "name": data["name"], "target": data["target"],
        "plot_batches": plot_batches(data["counts"]),
        "plot_times": plot_times(data["times"], data["bands"]),
        "plot_flags": plot_flags(data["flags"]),
        "counts": data["counts"].to_dict("records"),
        "blocked": [{"history": [], **b} for b in data["blocked"].to_dict("records")],
        "canned": data["canned"].to_dict("records"),
        "spelling": data["spelling"], "cost": data["cost"],
        "truth": data["truth"].to_dict("records") if data.get("truth") is not None else [],
        "qualification": _qualification_context(data.get("qualification")),
        "incomplete": data.get("incomplete", []),
        "review": data["review"].to_dict("records") if data.get("review") is not None else [],
    }
    return render("report.html.j2", context)
