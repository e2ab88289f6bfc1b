"""The evaluation studies' report: its plots (PNG, inlined) and its statistics as tables with a sentence each."""

from __future__ import annotations

import math
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


ALPHA = 0.05
BOOT_WORDS = "seeded percentile bootstrap, {over} resampled with all their judgements (analysis.json: intervals)."


def _ci(found: dict[str, Any] | None, digits: int = 3) -> str:
    """A bootstrap interval in words ("" when the analysis has none)."""
    if not found or found.get("low") is None:
        return ""
    return f"{found['low']:.{digits}f} to {found['high']:.{digits}f}"


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _alpha_words(alpha: float | None) -> str:
    """Krippendorff's reading of alpha (2004, p. 241): .800 to rely on, .667 for tentative conclusions."""
    if alpha is None or (isinstance(alpha, float) and math.isnan(alpha)):
        return "agreement could not be computed"
    if alpha >= 0.8:
        return "agreement high enough to rely on (alpha >= 0.800)"
    if alpha >= 0.667:
        return "agreement good enough for tentative conclusions only (0.667 <= alpha < 0.800)"
    return "agreement too low to rely on (alpha < 0.667)"


def _severity(a: dict[str, Any]) -> list[dict[str, Any]]:
    an, ci = a["anova"], a.get("intervals", {})
    differ = "the error types differ in how bad people rate them" if an["p_gg"] < ALPHA else \
        "no evidence at the 5% level that the error types differ"
    conditions = {"title": "Ratings per error type", "sentence": (
        f"Repeated-measures ANOVA over {a['participants']} participants, Greenhouse-Geisser corrected: "
        f"F({an['df1_gg']:.2f}, {an['df2_gg']:.1f}) = {an['F']:.2f}, {_p(an['p_gg'])}; eta squared "
        f"{an['eta2']:.3f} (95% bootstrap CI {_ci(ci.get('eta2'))}; partial {an['eta2_partial']:.3f}, "
        f"{_ci(ci.get('eta2_partial'))}): {differ}. Intervals: {BOOT_WORDS.format(over='participants')}"),
        "headers": ["error type", "mean (0-100)", "95% CI", "SD", "participants"],
        "rows": [[c, f"{v['mean']:.1f}", _ci(ci.get("condition_means", {}).get(c), 1), f"{v['sd']:.1f}", v["n"]]
                 for c, v in a["conditions"].items()]}
    pairs = {"title": "Pairs of error types", "sentence": (
        "Paired t-tests between every two error types, Bonferroni-corrected over all pairs; effect size "
        "d_z = t / sqrt(participants)."),
        "headers": ["pair", "t (df)", "d_z", "p", "p (Bonferroni)", "in words"],
        "rows": [[f"{r['a']} vs {r['b']}", f"{r['t']:.2f} ({r['df']:.0f})",
                  f"{r['t'] / math.sqrt(r['df'] + 1):.2f}", _p(r["p"]).removeprefix("p "),
                  _p(r["p_bonferroni"]).removeprefix("p "),
                  ("differ" if r["p_bonferroni"] < ALPHA else "not shown to differ")] for r in a["pairs"]]}
    return [conditions, pairs]


def _bt_words(v: dict[str, float]) -> str:
    if v["ci_low"] > 0:
        return "preferred over the reference system"
    if v["ci_high"] < 0:
        return "less preferred than the reference system"
    return "not distinguishable from the reference system"


def _pairwise(a: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for dim, d in a["dimensions"].items():
        bt = d["bradley_terry"]
        out.append({"title": f"{dim}: Bradley-Terry strengths", "sentence": (
            "Bradley-Terry model of the pairwise answers (log scale; the first system alphabetically is the "
            "reference, fixed at 0), with 95% Wald confidence intervals; an interval that excludes 0 means a "
            "difference from the reference at the 5% level. Bootstrap: " + BOOT_WORDS.format(over="items")),
            "headers": ["system", "strength", "95% CI (Wald)", "95% CI (bootstrap)", "in words"],
            "rows": [[s, f"{v['strength']:+.2f}", f"{v['ci_low']:+.2f} to {v['ci_high']:+.2f}",
                      f"{v['boot_low']:+.2f} to {v['boot_high']:+.2f}" if v.get("boot_low") is not None else "",
                      _bt_words(v)]
                     for s, v in sorted(bt.items(), key=lambda kv: -kv[1]["strength"])]})
    return out


def _ratings(a: dict[str, Any]) -> list[dict[str, Any]]:
    g, ci = a["agreement"], a.get("intervals", {})
    rows = [["pairs rated", a["pairs"], ""], ["mean of the per-pair means", a["mean_of_means"],
                                              _ci(ci.get("mean_of_means"))],
            ["Krippendorff's alpha", g["krippendorff_alpha"], _ci(ci.get("krippendorff_alpha"))],
            ["Fleiss' kappa", g["fleiss_kappa"], ""], ["unanimous items", f"{g['percent_unanimous']}%", ""]]
    if "cohen_kappa" in g:
        rows.append(["Cohen's kappa (two raters)", g["cohen_kappa"], ""])
    return [{"title": "Agreement between judges", "sentence": f"{g['raters']} judges on {g['items']} items: "
             f"{_alpha_words(g['krippendorff_alpha'])}. Intervals: {BOOT_WORDS.format(over='pairs')}",
             "headers": ["measure", "value", "95% CI"], "rows": rows}]


def _errors(a: dict[str, Any]) -> list[dict[str, Any]]:
    share = a["congruent_share"]
    found = a.get("intervals", {}).get("congruent_share")
    words = f"{100 * share:.1f}% of judgements found the description congruent" if share is not None else \
        "no judgements"
    if share is not None and found and found.get("low") is not None:
        words += (f" (95% bootstrap CI {100 * found['low']:.1f}%-{100 * found['high']:.1f}%, items resampled "
                  "with all their judgements)")
    return [{"title": "Error categories", "sentence": f"{a['judgements']} judgements on {a['items']} items; {words}.",
             "headers": ["category", "times ticked"], "rows": [[c, n] for c, n in a["category_counts"].items()]}]


def statistics_tables(kind: str, a: dict[str, Any]) -> list[dict[str, Any]]:
    """Tables (title, sentence, headers, rows) for the study's ``kind``; [] when the analysis failed."""
    if "error" in a:
        return []
    readers = {"expert_rating": _ratings, "crowd_selection": _ratings, "error_analysis": _errors,
               "pairwise_grading": _pairwise, "severity_rating": _severity}
    return readers.get(kind, _severity)(a)
