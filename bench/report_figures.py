"""CPU of a campaign report's figures: the figures of reports of 1, 5, 12 and 43 batches (COCO's
size), long rule names, the answers' histograms with their reliability diagram, a gated campaign's scores and
the studies' plots, drawn the way before speed work (constrained layout, a rectangle per histogram bin, titles
placed by matplotlib, nothing kept) and this way, in one sitting. With today's layout, bars and matplotlib's titles
must give the same PNG bytes as this way (checked here too).

Two figures: a fresh draw (the memo emptied before each report: a report written once in its process) and a
report written then rewritten with the same data (a hold, a cancel, a resume, or a test running a campaign
again: the second from the memo). Target: rewritten at most HALF the CPU of before. CPU is this process's
(``time.process_time``), best of ``--repeat``; the load average is printed beside it (a busy host raises both).
Run: ``make bench-report-figures``; writes bench/results-report-figures.json."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from flows.answers import answers_step
from flows.campaigns import report
from flows.core.outputs import figures
from flows.core.outputs.figure_layout import RowLayout
from flows.studies import study_plots
from postprocess.answers.calibration import scored
from postprocess.report_data import time_bands

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.5


def _old_new_figure(width: float, height: float, ncols: int = 1, **kwargs: Any) -> tuple[Any, Any]:
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), layout="constrained", squeeze=False, **kwargs)
    if ncols > 1:
        fig.get_layout_engine().set(wspace=0.06)  # type: ignore[union-attr, call-arg]
    return fig, axes


def _titles_placed_by_matplotlib(width: float, height: float, ncols: int = 1, **kwargs: Any) -> tuple[Any, Any]:
    """Today's layout with the titles left where matplotlib puts them (``axes.titley`` unset)."""
    return plt.subplots(1, ncols, figsize=(width, height), dpi=figures.DPI, layout=RowLayout(), squeeze=False,
                        **kwargs)


def _old_histogram(ax: Any, values: Any, bins: Any, color: str | None = None) -> None:
    values = np.asarray(values, dtype=float)
    ax.hist(values[~np.isnan(values)], bins=bins, color=color)


@contextmanager
def drawn_as_before(layout: bool = True) -> Iterator[None]:
    """The report figures made as before ``ax.hist`` (a rectangle per bin), titles placed by
    matplotlib at each layout pass and draw (``axes.titley`` unset), every PNG drawn (no memo), and with
    ``layout`` matplotlib's constrained layout (the CPU reference: other pixels); without it today's
    layout (the reference the PNG bytes are held to)."""
    old = {"new_figure": _old_new_figure if layout else _titles_placed_by_matplotlib, "histogram": _old_histogram,
           "_memo": lambda builder, args, draw: draw()}
    swapped = [(m, name) for m in (figures, report, study_plots) for name in old if hasattr(m, name)]
    kept = [getattr(m, name) for m, name in swapped]
    for m, name in swapped:
        setattr(m, name, old[name])
    try:
        yield
    finally:
        for (m, name), value in zip(swapped, kept, strict=True):
            setattr(m, name, value)


def campaign_inputs(batches: int, per_batch: int = 60, seed: int = 0) -> dict[str, Any]:
    """What render_report and the answers section draw for a campaign of ``batches`` batches."""
    rng = np.random.default_rng(seed + batches)
    times = pd.DataFrame({"batch": np.repeat(np.arange(1, batches + 1), per_batch),
                          "work_time_s": rng.gamma(4, 60, per_batch * batches)})
    counts = pd.DataFrame([{"batch": b, "assignments": per_batch, "approved": per_batch - 3, "rejected": 3,
                            "flags": int(rng.integers(5, 40)), "blocked": 1} for b in range(1, batches + 1)])
    flags = pd.DataFrame({"rule": [f"rule_with_a_long_name_{i % 9}" for i in range(20 * batches)]})
    said = rng.uniform(0.4, 1, 300)
    return {"counts": counts, "times": times, "bands": time_bands(times), "flags": flags,
            "confidence": pd.Series(said), "skill": pd.Series(rng.uniform(0, 1, 40)),
            "calibration": scored(said[:120], rng.random(120) < said[:120]) if batches > 1 else None,
            "scores": pd.DataFrame({c: rng.integers(20, 100, 80) for c in ("score", "spelling_score")})}


def study_inputs() -> list[tuple[str, pd.DataFrame, dict[str, Any]]]:
    dims = {d: {"shares": {"A better": 0.4, "same": 0.2, "B better": 0.4},
                "bradley_terry": {s: {"strength": i * 0.4 - k, "ci_low": i * 0.4 - k - 0.3,
                                      "ci_high": i * 0.4 - k + 0.3} for i, s in enumerate("ABCD")}}
            for k, d in enumerate(["fluency", "relevance"])}
    severity = {"conditions": {f"error type {n}": {"mean": 20.0 + 10 * i, "sd": 8.0} for i, n in enumerate("abcde")}}
    return [("pairwise_grading", pd.DataFrame(), {"dimensions": dims}),
            ("severity_rating", pd.DataFrame(), severity),
            ("expert_rating", pd.DataFrame(), {"per_pair": {str(i): i % 4 + 1 for i in range(40)}})]


def report_pngs(data: dict[str, Any]) -> list[str]:
    """A campaign report's figures as the product draws them (through the memo)."""
    png = figures.figure_png
    return [png(report.batches_figure, data["counts"]), png(report.times_figure, data["times"], data["bands"]),
            png(report.flags_figure, data["flags"][["rule"]]), png(report.scores_figure, data["scores"], 70.0),
            png(answers_step.answers_figure, data["confidence"], data["skill"], 0.9, data["calibration"])]


def all_pngs(reports: list[dict[str, Any]]) -> list[str]:
    out = [png for data in reports for png in report_pngs(data)]
    return out + [png for kind, table, a in study_inputs() for _, png in study_plots.study_plots(kind, table, a)]


def cpu(work: Callable[[], list[str]], repeat: int) -> tuple[float, list[str]]:
    """Best CPU seconds of ``repeat`` runs of ``work`` and what it drew."""
    best, out = float("inf"), []
    for _ in range(repeat):
        start = time.process_time()
        out = work()
        best = min(best, time.process_time() - start)
    return best, out


def fresh(reports: list[dict[str, Any]]) -> list[str]:
    figures._MEMO.clear()
    return all_pngs(reports)


def rewritten(reports: list[dict[str, Any]]) -> list[str]:
    figures._MEMO.clear()
    return all_pngs(reports) + all_pngs(reports)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results-report-figures.json")
    args = parser.parse_args()
    reports = [campaign_inputs(n) for n in (1, 5, 12, 43)]
    fresh(reports)  # fonts, caches and imports warmed, untimed
    results: dict[str, Any] = {"figures": len(fresh(reports)), "load_before": os.getloadavg()[0]}
    for name, work in (("fresh", fresh), ("rewritten", rewritten)):
        with drawn_as_before():
            old, _ = cpu(lambda w=work: w(reports), args.repeat)  # type: ignore[misc]
        new, new_pngs = cpu(lambda w=work: w(reports), args.repeat)  # type: ignore[misc]
        with drawn_as_before(layout=False):
            assert new_pngs == work(reports), f"{name}: the PNGs differ from bars and matplotlib's titles"
        results[name] = {"before_s": round(old, 3), "now_s": round(new, 3), "ratio": round(new / old, 3)}
        print(f"{name:10s} before {old:6.2f} s  now {new:6.2f} s  ratio {new / old:.2f}  ({len(new_pngs)} PNGs)")
    results["load_after"] = os.getloadavg()[0]
    results["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                       text=True).stdout.strip()
    verdict = "PASS" if results["rewritten"]["ratio"] <= TARGET else "FAIL"
    print(f"load {results['load_before']:.1f} -> {results['load_after']:.1f}; rewritten report <= {TARGET:.0%} "
          f"of before: {verdict}")
    args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
