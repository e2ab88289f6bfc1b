"""The answers package's CPU per call at the sizes campaigns and the test suite call it with, beside the
package as it was before the CPU pass of 2026-11-27: ``BEFORE``, its CPU per call measured beside it on this
machine on 2026-11-27 (bench/results-answers-calls.json of then; the old package itself, tests/answers_v1, was
removed by later calibration work once recorded outputs, tests/answers_recorded, took its place as the tests' oracle).

Each scenario is called in this process until it has used ``--seconds`` of CPU (at least three calls),
three rounds; the figure is the median round's CPU per call
(``time.process_time``: the machine is shared, so wall time would measure the neighbours). Sizes: the
30-label file of tests/test_fuzz_adaptive_options.py (``hitflow aggregate --adaptive`` in process), a
420-label random crowd (60 items, 7 labels each, 12 workers) with and without control items, the same as a
campaign's pooled-evidence input, Snow 2008 WSD's 1,770 labels (``ds``, ``auto``, and the starter's
adaptive replay) when ../shared/data holds it, and a 24,000-label crowd (4,000 items, 6 labels each).

Targets: the small and medium calls at most half the old CPU (``TARGET``); the 24,000-label crowd no slower
(``LARGE_TARGET``). Run: ``make bench-answers-calls``; writes bench/results-answers-calls.json.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.snow_sets import SHARED_WSD
from flows.cli.main import main
from postprocess.answers import adaptive, aggregation, control_items, worker_skill
from tests.crowd_labels import crowd_frame

ROOT = Path(__file__).resolve().parents[1]
WSD = SHARED_WSD
TARGET = 0.5
LARGE_TARGET = 1.05  # CPU figures on a shared machine wander by a few percent
# ms of CPU per call of the package before the CPU pass, by scenario (measured 2026-11-27, load average ~4)
BEFORE = {"aggregate auto, 30 labels": 12.88, "replay defaults, 30 labels": 27.28,
          "aggregate auto + controls, 420 labels": 36.82, "replay ds 0.95, 420 labels": 93.24,
          "skill_scores, 420 labels": 11.97, "trusted_controls, 420 labels": 5.4,
          "WSD aggregate ds, 1,770 labels": 16.17, "WSD aggregate auto, 1,770 labels": 23.5,
          "WSD replay 2-6 at 0.98, 1,770 labels": 162.49, "aggregate auto, 24,000 labels": 202.65,
          "aggregate mv, 24,000 labels": 170.81}
FUZZ = pd.DataFrame([(f"i{i}", f"w{w}", "yes" if (i + w) % 3 else "no") for i in range(6) for w in range(5)],
                    columns=["item_id", "worker_id", "label"])


def random_crowd(seed: int, items: int, per_item: int, workers: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        truth = rng.integers(3)
        for j in rng.permutation(workers)[:per_item]:
            rows.append((f"i{i}", f"w{j}", f"L{truth if rng.random() < 0.7 else rng.integers(3)}"))
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "label"])


def scenarios() -> dict[str, tuple[Callable[[], Any], str]]:
    """name -> (call, size class: small, medium or large)."""
    crowd = random_crowd(1, 60, 7)
    controls = pd.DataFrame({"item_id": [f"i{i}" for i in range(6)], "answer": ["L0", "L1", "L2"] * 2})
    given = crowd.rename(columns={"label": "value"}).assign(field="label", unit=[f"u{i // 10}" for i in range(420)])
    gold = controls.assign(field="label")
    out: dict[str, tuple[Callable[[], Any], str]] = {
        "aggregate auto, 30 labels": (lambda: aggregation.aggregate_scored(FUZZ, "auto"), "small"),
        "replay defaults, 30 labels": (lambda: adaptive.replay(FUZZ, adaptive.StoppingRule()), "small"),
        "aggregate auto + controls, 420 labels": (
            lambda: aggregation.aggregate_scored(crowd, "auto", controls=controls), "medium"),
        "replay ds 0.95, 420 labels": (
            lambda: adaptive.replay(crowd, adaptive.StoppingRule(2, 6, confidence=0.95, method="ds")), "medium"),
        "skill_scores, 420 labels": (lambda: worker_skill.skill_scores(given, gold, worker_skill.SkillPolicy()),
                                     "medium"),
        "trusted_controls, 420 labels": (lambda: control_items.trusted_controls(given, gold), "medium")}
    if WSD.exists():
        raw = pd.read_csv(WSD, sep="\t")
        wsd = pd.DataFrame({"item_id": raw["orig_id"], "worker_id": raw["!amt_worker_ids"],
                            "label": raw["response"].astype(str)})
        for method in ("ds", "auto"):
            out[f"WSD aggregate {method}, 1,770 labels"] = (lambda m=method: aggregation.aggregate_scored(wsd, m),
                                                           "medium")
        out["WSD replay 2-6 at 0.98, 1,770 labels"] = (
            lambda: adaptive.replay(wsd, adaptive.StoppingRule(2, 6, confidence=0.98)), "medium")
    large = crowd_frame(1, items=4000, per_item=6)[0]
    for method in ("auto", "mv"):
        out[f"aggregate {method}, 24,000 labels"] = (lambda m=method: aggregation.aggregate_scored(large, m), "large")
    return out


def cpu_per_call(call: Callable[[], Any], seconds: float) -> float:
    calls, start = 0, time.process_time()
    while calls < 3 or time.process_time() - start < seconds:
        call()
        calls += 1
    return (time.process_time() - start) / calls


def cli_30_labels(seconds: float) -> dict[str, float]:
    """``hitflow aggregate --adaptive`` on the fuzz suite's 30 labels, in process (this checkout's code only)."""
    with tempfile.TemporaryDirectory() as folder:
        labels = Path(folder) / "labels.csv"
        labels.write_text(FUZZ.to_csv(index=False))

        def call() -> None:
            with contextlib.redirect_stdout(io.StringIO()):
                main(["aggregate", str(labels), "--out", str(Path(folder) / "answers.csv"), "--adaptive"])

        call()
        return {"ms_per_call": round(cpu_per_call(call, seconds) * 1000, 2)}


def measure(seconds: float) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for name, (call, size) in scenarios().items():
        call()  # the first call loads what it imports
        ms = statistics.median(cpu_per_call(call, seconds) for _ in range(3)) * 1000
        old_ms, target = BEFORE[name], LARGE_TARGET if size == "large" else TARGET
        results[name] = {"size": size, "ms_per_call": round(ms, 2), "old_ms_per_call": old_ms,
                         "ratio": round(ms / old_ms, 3), "target_ratio": target, "met": ms / old_ms <= target}
        print(f"{name:44s} {ms:9.2f} ms  before {old_ms:9.2f} ms  ratio {ms / old_ms:5.2f} (target <= {target})",
              flush=True)
    return results


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per scenario and round")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results-answers-calls.json"))
    args = parser.parse_args()
    load = os.getloadavg()[0]
    results = {"load_average_before": round(load, 2), "measure": "CPU (process_time) per call, median of 3 rounds",
               "scenarios": measure(args.seconds), "cli_aggregate_adaptive_30_labels": cli_30_labels(args.seconds),
               "load_average_after": round(os.getloadavg()[0], 2)}
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    run()
