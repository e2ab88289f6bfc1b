"""The edge-case work: every report plot is legible: once drawn, no text over text, no text over another
panel, no legend over a plot (checked on matplotlib's own bounding boxes, before saving)."""

from __future__ import annotations

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from flows.campaigns.report import batches_figure, flags_figure, scores_figure, times_figure
from flows.studies.study_plots import study_figures
from postprocess.report_data import time_bands
from tests.figure_checks import overlapping_text
from tests.unseen_figures import figures_seen  # noqa: F401  (autouse: its figures are drawn, its PNGs checked)

SYSTEMS = ["reference captions", "baseline transformer", "retrieval model", "human-in-the-loop"]


def _strengths(offset: float) -> dict[str, dict[str, float]]:
    return {s: {"strength": i * 0.4 - offset, "ci_low": i * 0.4 - offset - 0.3, "ci_high": i * 0.4 - offset + 0.3}
            for i, s in enumerate(SYSTEMS)}


def _campaign_figures() -> list[tuple[str, object]]:
    rng = np.random.default_rng(1)
    batches = range(1, 6)
    counts = pd.DataFrame([{"batch": b, "assignments": 100, "approved": 90, "rejected": 10, "flags": 30,
                            "blocked": 4} for b in batches])
    times = pd.DataFrame({"batch": np.repeat(list(batches), 100), "work_time_s": rng.gamma(4, 60, 500)})
    flags = pd.DataFrame({"rule": [f"rule_with_a_long_name_{i % 9}" for i in range(200)]})
    scores = pd.DataFrame({c: rng.integers(20, 100, 80) for c in
                           ("score", "spelling_score", "grammar_score", "judging_score")})
    return [("batches", batches_figure(counts)), ("times", times_figure(times, time_bands(times))),
            ("flags", flags_figure(flags)), ("scores", scores_figure(scores, 70))]


def _many_batches(n: int) -> list[tuple[str, object]]:
    """A campaign of ``n`` batches (43 at COCO's 330,000 images): at 10 one histogram per batch collided,
    at 43 constrained layout collapsed their axes to nothing and said so on stderr."""
    rng = np.random.default_rng(n)
    times = pd.DataFrame({"batch": np.repeat(np.arange(1, n + 1), 60), "work_time_s": rng.gamma(4, 60, 60 * n)})
    counts = pd.DataFrame([{"batch": b, "assignments": 7675, "approved": 7600, "rejected": 75, "flags": 3000,
                            "blocked": 9} for b in range(1, n + 1)])
    return [(f"times {n} batches", times_figure(times, time_bands(times))),
            (f"batches {n} batches", batches_figure(counts))]


def _study_figures() -> list[tuple[str, object]]:
    dims = {d: {"shares": {"A much better": 0.2, "A better": 0.2, "same": 0.2, "B better": 0.2,
                           "B much better": 0.2}, "bradley_terry": _strengths(k)}
            for k, d in enumerate(["fluency", "relevance", "descriptiveness"])}
    severity = {"conditions": {f"error type {name}": {"mean": 20.0 + 10 * i, "sd": 8.0}
                               for i, name in enumerate(["object", "attribute", "count", "relation", "scene",
                                                         "hallucination"])}}
    errors = {"category_counts": {f"category {i}: wrong {w}": i + 3 for i, w in
                                  enumerate(["object", "colour", "count", "action", "place", "text"])}}
    out = [(f"pairwise {c}", f) for c, f in study_figures("pairwise_grading", pd.DataFrame(), {"dimensions": dims})]
    out += [(f"severity {c}", f) for c, f in study_figures("severity_rating", pd.DataFrame(), severity)]
    out += [(f"errors {c}", f) for c, f in study_figures("error_analysis", pd.DataFrame(), errors)]
    out += [(f"rating {c}", f) for c, f in study_figures("expert_rating", pd.DataFrame(),
                                                         {"per_pair": {str(i): i % 4 + 1 for i in range(40)}})]
    return out


# Drawn in the test, not in the parametrization: every xdist worker collects every module, and drawing
# these 20 figures there cost each ~1 s of CPU for the one worker that runs them. Every figure is still
# checked, and a collision names its figure among all the set's collisions.
FIGURE_SETS = {"campaign": _campaign_figures, "12 batches": lambda: _many_batches(12),
               "43 batches": lambda: _many_batches(43), "studies": _study_figures}


@pytest.mark.parametrize("figures", FIGURE_SETS)
def test_report_figure_text_does_not_collide(figures: str) -> None:
    drawn = FIGURE_SETS[figures]()
    try:
        collisions = {name: overlapping_text(fig) for name, fig in drawn}
        assert {name: found for name, found in collisions.items() if found} == {}
        assert len(collisions) == len(drawn)  # no two figures of a set share a name, so none went unchecked
    finally:
        for _, fig in drawn:
            plt.close(fig)  # type: ignore[arg-type]


@pytest.mark.parametrize("batches", [5, 9, 43])
def test_many_batches_save_without_a_layout_warning(batches: int) -> None:
    """Saving is where matplotlib warned that constrained layout was not applied (the user saw it)."""
    from flows.core.outputs.figures import to_png

    for name, fig in _many_batches(batches):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert to_png(fig), name  # type: ignore[arg-type]
        assert [str(w.message) for w in caught] == [], name


def test_the_check_finds_what_the_old_layouts_did() -> None:
    """The Bradley-Terry panels as they were (tight side by side, a long title each, every panel
    naming the systems) and a legend left over the bars: the check reports both."""
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.2))
    for ax, dim in zip(axes, ["fluency", "relevance", "descriptiveness"], strict=True):
        ax.errorbar([0.1, 0.5, 0.9, 1.3], SYSTEMS, xerr=0.3, fmt="o")
        ax.set_title(f"{dim}: Bradley-Terry strength (95% CI)")
    bars, ax2 = plt.subplots(figsize=(7, 3))
    pd.DataFrame({"a": [5, 6], "b": [7, 8]}).plot.bar(ax=ax2)
    try:
        assert any("Bradley-Terry" in p for p in overlapping_text(fig))
        assert "a legend covers a plot" in overlapping_text(bars)
    finally:
        plt.close(fig)
        plt.close(bars)


BAND = tuple(float(v) for v in plt.matplotlib.colors.to_rgb("#9c9"))  # the band's fill in report.py


def _band_edges(fig) -> list[float]:
    """Per batch, the outlier band as drawn (lower, upper seconds, flattened), from the shaded rectangles:
    an axvspan per histogram panel, or with many batches one bar per batch over the boxes."""
    shaded = [p for ax in fig.axes for p in ax.patches if p.get_facecolor()[:3] == BAND]
    if len(fig.axes) == 1 and len(shaded) > 1:
        return [edge for p in shaded for edge in (p.get_y(), p.get_y() + p.get_height())]
    return [edge for p in shaded for edge in (p.get_x(), p.get_x() + p.get_width())]


@pytest.mark.parametrize("batches", [3, 12])
@pytest.mark.parametrize("sigmas", [3.0, 1.95, 2.5])
def test_time_band_is_drawn_and_named_at_the_configured_sigmas(batches: int, sigmas: float) -> None:
    """The band is mu +/- sigmas * sigma of each batch at the config's time_outlier_sigmas (3 in
    vizwiz_full_scale.toml), and its legend names that many sigmas: it said 1.95 whatever was drawn."""
    rng = np.random.default_rng(batches)
    times = pd.DataFrame({"batch": np.repeat(np.arange(1, batches + 1), 40),
                          "work_time_s": rng.gamma(9, 30, 40 * batches)})
    fig = times_figure(times, time_bands(times, sigmas))
    try:
        labels = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
        assert labels == [f"mu ± {sigmas:g}σ"]
        by_batch = [times.loc[times["batch"] == b, "work_time_s"].to_numpy() for b in range(1, batches + 1)]
        want = [edge for t in by_batch  # the lower edge stops at 0 s, as the figure's axis does
                for edge in (max(t.mean() - sigmas * t.std(ddof=1), 0), t.mean() + sigmas * t.std(ddof=1))]
        assert _band_edges(fig) == pytest.approx(want)
    finally:
        plt.close(fig)
