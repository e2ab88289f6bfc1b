"""The output-speed work: the report figures cost less CPU and draw the same PNG bytes. Held to the way before
in today's layout (bench.report_figures.drawn_as_before: a rectangle per histogram bin, titles placed by
matplotlib, no memo), and the per-process memo returns what a fresh draw gives, draws anew for any other input,
stays bounded."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bench.report_figures import campaign_inputs, drawn_as_before, study_inputs
from flows.answers.answers_step import answers_figure
from flows.campaigns.report import batches_figure, flags_figure, scores_figure, times_figure
from flows.core.outputs import figures
from flows.core.outputs.figures import figure_png, figures_png, to_png
from flows.studies.study_plots import study_figures
from postprocess.report_data import time_bands
from tests.unseen_figures import figures_seen  # noqa: F401  (autouse: its figures are drawn, its PNGs checked)


def _drawn(data: dict, studies: bool = True) -> list[str]:
    """A report's figures, each a fresh draw (no memo), with a NaN among the scores (left out, as before);
    ``studies``: and the four studies' (their inputs are the same whatever the campaign's)."""
    scores = data["scores"].astype(float)
    scores.iloc[0, 0] = np.nan
    pngs = [to_png(batches_figure(data["counts"])), to_png(times_figure(data["times"], data["bands"])),
            to_png(flags_figure(data["flags"])), to_png(scores_figure(scores, 70.0)),
            to_png(answers_figure(data["confidence"], data["skill"], 0.9, data["calibration"]))]
    return pngs + [to_png(fig) for kind, table, a in (study_inputs() if studies else [])
                   for _, fig in study_figures(kind, table, a)]


def _empty() -> list[str]:
    """Figures of a campaign that got no work: empty counts, times, flags."""
    times = pd.DataFrame({"batch": pd.Series(dtype=int), "work_time_s": pd.Series(dtype=float)})
    return [to_png(batches_figure(pd.DataFrame(columns=["batch", "assignments", "approved", "rejected", "flags",
                                                        "blocked"]))),
            to_png(times_figure(times, time_bands(times))), to_png(flags_figure(pd.DataFrame({"rule": []})))]


@pytest.mark.parametrize("batches", [1, 5])
def test_the_figures_are_the_same_bytes_as_before(batches: int) -> None:
    """Histograms as one filled outline and titles at the axes' top draw what the bars and matplotlib's
    own title placement drew, to the byte (one batch: no calibration panel; five: with it). The studies' figures
    once, with the first."""
    data = campaign_inputs(batches, per_batch=40)
    now = _drawn(data, studies=batches == 1)
    with drawn_as_before(layout=False):
        before = _drawn(data, studies=batches == 1)
    assert len(now) == 5 + 4 * (batches == 1) and all(now)  # 5 report figures, 4 studies
    assert [i for i, (a, b) in enumerate(zip(now, before, strict=True)) if a != b] == []


def test_empty_figures_are_the_same_bytes_as_before() -> None:
    now = _empty()
    with drawn_as_before(layout=False):
        assert _empty() == now


def test_the_memo_returns_a_fresh_draw_and_draws_anew_for_other_inputs() -> None:
    calls: list[int] = []

    def counted(flags: pd.DataFrame):
        calls.append(len(flags))
        return flags_figure(flags)

    figures._MEMO.clear()
    flags = pd.DataFrame({"rule": ["short_text", "short_text", "duplicate"]})
    first = figure_png(counted, flags)
    assert first == to_png(flags_figure(flags))  # what a fresh draw gives, byte for byte
    assert figure_png(counted, flags.copy()) == first and calls == [3]  # an equal input: not drawn again
    other = flags.assign(rule=["short_text", "duplicate", "duplicate"])  # same size, one value changed
    assert figure_png(counted, other) != first and calls == [3, 3]
    assert figure_png(flags_figure, flags) == first and calls == [3, 3]  # another builder: its own entry


def test_the_memo_is_bounded_and_keeps_the_recently_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figures, "MEMO_SIZE", 3)
    figures._MEMO.clear()
    drawn: list[str] = []

    def build(rule: str):
        drawn.append(rule)
        return flags_figure(pd.DataFrame({"rule": [rule]}))

    for rule in ("a", "b", "c", "a", "d"):  # "a" used again before "d" comes: "b" is the least recent
        figure_png(build, rule)
    assert len(figures._MEMO) == 3 and drawn == ["a", "b", "c", "d"]
    figure_png(build, "a")
    figure_png(build, "b")
    assert drawn == ["a", "b", "c", "d", "b"]


def test_an_input_that_cannot_pickle_is_drawn_each_time() -> None:
    drawn: list[int] = []

    def build(rules: dict):
        drawn.append(1)
        return flags_figure(pd.DataFrame({"rule": list(rules["names"])}))

    unpicklable = {"names": ["a", "b"], "why": lambda: None}
    assert figure_png(build, unpicklable) == figure_png(build, unpicklable)
    assert len(drawn) == 2


def test_a_studys_pngs_come_back_as_a_new_list_each_time() -> None:
    figures._MEMO.clear()
    kind, table, a = study_inputs()[0]
    first = figures_png(study_figures, kind, table, a)
    assert [c for c, _ in first] == ["Answer shares", "Bradley-Terry strengths"]
    first.clear()  # a caller changing its list does not change what the next one gets
    assert [c for c, _ in figures_png(study_figures, kind, table, a)] == ["Answer shares", "Bradley-Terry strengths"]


def test_frames_equal_in_values_but_not_in_labels_or_types_get_their_own_key() -> None:
    """The memo's key for a frame: its values, index, column names, dtypes (pandas' per-row hash and labels)."""
    base = pd.DataFrame({"batch": [1, 2], "flags": [3, 4]})
    variants = [base, base.astype({"flags": float}), base.rename(columns={"flags": "blocked"}),
                base.iloc[::-1], base.set_axis([5, 6]), base["flags"], base.assign(flags=[3, 5])]
    assert len({figures._frame_digest(v) for v in variants}) == len(variants)
    assert figures._frame_digest(base.copy()) == figures._frame_digest(base)


def test_laid_out_once_the_png_is_what_a_save_with_the_layout_engine_gives() -> None:
    """to_png runs the layout itself and saves without the engine (one draw instead of two): the same bytes."""
    import base64
    import io

    import matplotlib.pyplot as plt

    data = campaign_inputs(5, per_batch=40)
    build = [lambda: batches_figure(data["counts"]), lambda: times_figure(data["times"], data["bands"]),
             lambda: flags_figure(data["flags"]),
             lambda: answers_figure(data["confidence"], data["skill"], 0.9, data["calibration"])]
    for make in build:
        fig, buf = make(), io.BytesIO()
        assert fig.get_layout_engine() is not None
        fig.savefig(buf, format="png", dpi=figures.DPI)
        plt.close(fig)
        assert to_png(make()) == base64.b64encode(buf.getvalue()).decode("ascii")
