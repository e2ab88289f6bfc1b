"""The campaign report: one static HTML page with its plots inlined as PNG."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from flows.campaigns.summary import met_the_campaign
from flows.core.outputs.figures import figure_png, histogram, legend_beside, new_figure
from flows.core.pages.templates import render

# One histogram per batch fits side by side up to here (10.5 in wide): past it the tick labels collide
MAX_TIME_PANELS = 8
MAX_BATCH_LABELS = 20  # past it every other (third...) batch is labelled: at 43 the numbers ran together


def batches_figure(counts: pd.DataFrame) -> Figure:
    fig, axes = new_figure(7.5 if len(counts) <= MAX_BATCH_LABELS else 10.5, 3.2)
    ax = axes[0][0]
    cols = ["assignments", "approved", "rejected", "flags", "blocked"]
    if counts.empty:
        ax.text(0.5, 0.5, "no work came in", ha="center")
    else:
        grouped_bars(ax, counts, "batch", cols)
        legend_beside(ax)
        step = -(-len(counts) // MAX_BATCH_LABELS)
        for i, label in enumerate(ax.get_xticklabels()):
            label.set_visible(i % step == 0)
    ax.set_title("Per batch")
    ax.set_ylabel("count")
    return fig


def grouped_bars(ax: Any, frame: pd.DataFrame, by: str, columns: list[str]) -> None:
    """``frame.set_index(by)[columns].plot.bar(rot=0)``'s bars by matplotlib alone (pandas' cost ~15% of CPU)."""
    place, width = np.arange(len(frame)), 0.5 / len(columns)
    for i, column in enumerate(columns):
        ax.bar(place + (i - (len(columns) - 1) / 2) * width, frame[column], width=width, label=column)
    ax.set_xticks(place, [str(v) for v in frame[by]])
    ax.set_xlim(-0.5, len(frame) - 0.5)
    ax.set_xlabel(by)


def band_label(sigmas: float) -> str:
    """The legend of the time-to-submit band: the sigmas :func:`postprocess.report_data.time_bands` drew it at."""
    return f"mu ± {sigmas:g}σ"


def times_figure(times: pd.DataFrame, bands: pd.DataFrame) -> Figure:
    """Time-to-submit per batch with its outlier band; ``bands``: :func:`postprocess.report_data.time_bands`."""
    if len(bands) > MAX_TIME_PANELS:
        return times_boxes_figure(times, bands)
    n = max(1, len(bands))
    # at most four panels a row: five batches side by side squeeze their axis labels together
    fig, axes = new_figure(min(3.2 * n, 10.5), 2.8, ncols=n, sharey=True)
    for ax, band in zip(axes[0], bands.itertuples(), strict=False):
        data = times.loc[times["batch"] == band.batch, "work_time_s"]
        histogram(ax, data, bins=30, color="#4a78a8")
        ax.axvspan(max(band.low, 0), band.high, color="#9c9", alpha=0.3, label=band_label(band.sigmas))
        ax.set_title(f"batch {band.batch}")
        ax.set_xlabel("seconds")
        ax.set_xlim(left=0)  # no time is negative; the band's lower edge may be
        ax.locator_params(axis="x", nbins=3)
    axes[0][0].set_ylabel("assignments")
    if len(bands):
        legend_beside(axes[0][-1])
    fig.suptitle("Time from accept to submit, per batch", fontsize=10)
    return fig


def times_boxes_figure(times: pd.DataFrame, bands: pd.DataFrame) -> Figure:
    """Many batches in one panel: a box per batch (middle half, whiskers at 5th/95th percentile) over its band."""
    fig, axes = new_figure(10.5, 3.2)
    ax = axes[0][0]
    low = bands["low"].clip(lower=0)  # no time is negative; the band's lower edge may be
    ax.bar(bands["batch"], bands["high"] - low, bottom=low, width=0.8, color="#9c9", alpha=0.3,
           label=band_label(bands["sigmas"].iloc[0]))  # one config, so one sigmas for every batch
    by_batch = times.groupby("batch")["work_time_s"]
    ax.boxplot([by_batch.get_group(b).to_numpy() for b in bands["batch"]], positions=list(bands["batch"]),
               widths=0.5, whis=(5, 95), showfliers=False, manage_ticks=False)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(bottom=0)
    ax.set_xlabel("batch")
    ax.set_ylabel("seconds")
    legend_beside(ax)
    fig.suptitle("Time from accept to submit, per batch", fontsize=10)
    return fig


def flags_figure(flags: pd.DataFrame) -> Figure:
    counts = flags["rule"].value_counts().sort_values()
    fig, axes = new_figure(7.5, max(2.4, 0.32 * len(counts) + 1))
    ax = axes[0][0]
    if counts.empty:
        ax.text(0.5, 0.5, "no flags", ha="center")
    else:  # as pandas' counts.plot.barh draws it, without pandas' plotting (see grouped_bars)
        place = np.arange(len(counts))
        ax.barh(place, counts.to_numpy(), height=0.5, color="#c0504d")
        ax.set_yticks(place, [str(rule) for rule in counts.index])
        ax.set_ylim(-0.5, len(counts) - 0.5)
    ax.set_ylabel("")
    ax.set_xlabel("flags")
    ax.set_title("Flags per rule")
    return fig


def scores_figure(scores: pd.DataFrame, threshold: float) -> Figure:
    """Histograms of the overall and each section's test score, with the pass mark."""
    parts = [c for c in ("score", "spelling_score", "grammar_score", "judging_score")
             if c in scores and pd.to_numeric(scores[c], errors="coerce").notna().any()]
    fig, axes = new_figure(2.6 * len(parts) + 1.2, 2.6, ncols=len(parts), sharey=True)
    for ax, col in zip(axes[0], parts, strict=True):
        histogram(ax, pd.to_numeric(scores[col], errors="coerce"), bins=range(0, 105, 5), color="#4a78a8")
        ax.set_title("overall" if col == "score" else col.removesuffix("_score"))
        ax.set_xlabel("% correct")
        ax.axvline(threshold, color="#c0504d", label=f"pass mark {threshold:g}")
    axes[0][0].set_ylabel("workers")
    legend_beside(axes[0][-1], handles=axes[0][0].get_lines()[:1])
    return fig


def _qualification_context(qual: dict[str, Any] | None) -> dict[str, Any] | None:
    if not qual:
        return None
    return {**qual["summary"], "threshold": qual["threshold"], "mode": qual["mode"],
            "correlation": qual["correlation"], "by_band": qual["by_band"].to_dict("records"),
            "plot": figure_png(scores_figure, qual["scores"], qual["threshold"]) if len(qual["scores"]) else ""}


def _telemetry_context(telemetry: dict[str, Any] | None) -> dict[str, Any] | None:
    """How the text arrived, or None when no caption carried telemetry."""
    if not telemetry or telemetry["origins"].empty:
        return None
    origins = telemetry["origins"]
    if int(origins["unknown"].sum()) == int(origins["captions"].sum()):
        return None  # pages without the recorder: nothing to say
    return {"origins": origins.to_dict("records"), "workers": telemetry["workers"].head(50).to_dict("records"),
            "more": max(0, len(telemetry["workers"]) - 50)}


def report_sections(context: dict[str, Any]) -> list[dict[str, str]]:
    """The report's sections after its summary, in reading order (optional ones when they have data)."""
    wanted = [("batches", "Batches", True), ("qualification", "Qualification test", context["qualification"]),
              ("review", "People and the rules", context["review"]), ("times", "Time to submit", True),
              ("flags", "Flags", True), ("blocked", "Blocked workers", True),
              ("answers", "Answers and worker skill", context["answers"]),
              ("telemetry", "How the text arrived", context["telemetry"]),
              ("truth", "Blocking against the simulator's ground truth", context["truth"]),
              ("canned", "Canned text per image", True), ("spelling", "Spell-correction", True),
              ("cost", "Cost", True)]
    return [{"id": key, "title": title} for key, title, shown in wanted if shown]


def render_report(data: dict[str, Any]) -> str:
    """The report's HTML from ``data`` (name, target, summary, counts, times, bands, flags, blocked, canned,
    spelling, cost; optionally truth, qualification, review and telemetry)."""
    context = {
        "name": data["name"], "target": data["target"], "summary": data["summary"],
        "plot_batches": figure_png(batches_figure, data["counts"]),
        "plot_times": figure_png(times_figure, data["times"], data["bands"]),
        # the figure counts rules: the memo's key, the rest left out
        "plot_flags": figure_png(flags_figure, data["flags"][["rule"]]),
        "counts": data["counts"].to_dict("records"),
        "blocked": [{"history": [], **b} for b in data["blocked"].to_dict("records")],
        "canned": data["canned"].to_dict("records"),
        "spelling": data["spelling"], "cost": data["cost"],
        "truth": data["truth"].to_dict("records") if met_the_campaign(data.get("truth")) else [],
        "qualification": _qualification_context(data.get("qualification")),
        "incomplete": data.get("incomplete", []),
        "review": data["review"].to_dict("records") if data.get("review") is not None else [],
        "telemetry": _telemetry_context(data.get("telemetry")),
        "answers": data.get("answers") or {},  # flows/answers/answers_step.py: text_present aggregated
    }
    return render("report.html.j2", {**context, "sections": report_sections(context)})
