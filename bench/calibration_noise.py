"""How much of a calibration miss is chance? ``make bench-calibration-noise``.

The figures of bench/answers_calibration.py (ECE at 6 and 15 bins, the worst bin of at least 50 items) for
one method (default ``auto``) on more draws of the same question, each beside its noise floor
(postprocess.answers.reliability.noise_floor: what the same figure reads, at its 95th percentile, when each
answer is right with exactly its stated probability): ECE on 167 scored items reads about 0.03 for a
perfect confidence, and a bin of 54 items has a standard error near 0.067, so a figure is only a miss
by what it exceeds its floor.

- Sets: Snow et al. 2008's RTE, TEMP and WSD (bench/snow_sets.py), and the synthetic crowds of the five
  held-out shapes (bench/crowd_shapes.py) at each of ``--seeds`` (another crowd of the same shapes a seed).
- Without controls: every gold item scored.
- With controls: ``--splits`` splits of the gold items (split 0: bench/answers_calibration.py's,
  postprocess.answers.beta_calibration.fold_of of the item ids into fifths; split s: of the item ids suffixed ``/s``), a
  fifth given as controls, the rest scored. The model's confidence does not depend on which items are
  controls (their labels enter the model as any item's; only the workers' figures leave them out), so each
  split calibrates the one aggregation's answers (postprocess.answers.calibration.calibrate_answers, as
  ``aggregate_scored`` does) instead of aggregating again.

Prints one line per set, seed and split; a figure is starred where it is above its floor's 95th percentile.
Writes bench/results-calibration-noise.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.answers_calibration import CONTROL_FOLDS, held_out_sets, public_sets
from postprocess.answers.aggregation import aggregate, model_answers
from postprocess.answers.beta_calibration import fold_of
from postprocess.answers.calibration import calibrate_answers
from postprocess.answers.reliability import noise_floor, scored

RESULTS = Path(__file__).resolve().parent / "results-calibration-noise.json"
FIGURES = ("ece", "ece_15", "worst_bin")


def _gold(frame: pd.DataFrame) -> pd.Series:
    gold = frame.drop_duplicates("item_id").set_index("item_id")["gold"].astype(str)
    return gold[gold.str.strip() != ""]


def read(answers: pd.DataFrame, truth: pd.Series) -> dict[str, Any]:
    """Items, accuracy and each figure of FIGURES (``worst_bin``: its |off|, 0 without a bin of 50 items,
    ``worst_at``: where) with its noise floor's mean and 95th percentile."""
    known = answers[answers["item_id"].isin(truth.index)]
    conf = known["confidence"].to_numpy(dtype=float)
    s = scored(conf, known["label"].to_numpy() == truth.reindex(known["item_id"]).to_numpy())
    worst = s["worst_bin"]
    out = {"items": s["items"], "accuracy": s["accuracy"], "ece": s["ece"], "ece_15": s["ece_15"],
           "worst_bin": 0.0 if worst is None else abs(worst["off"]),
           "worst_at": None if worst is None else f"{worst['off']:+.3f} ({worst['items']} at {worst['bin']})"}
    return {**out, "floor": noise_floor(conf)}


def halves(items: np.ndarray, split: int) -> np.ndarray:
    """True for the items given as controls in ``split`` (the module): a fifth of them (CONTROL_FOLDS)."""
    keys = pd.Series(items if split == 0 else [f"{i}/{split}" for i in items])
    return fold_of(keys, CONTROL_FOLDS) == 0


def measure_set(frame: pd.DataFrame, method: str, splits: int) -> dict[str, Any]:
    labels, truth = frame.drop(columns="gold"), _gold(frame)
    start = time.process_time()
    plain = aggregate(labels, method).answers
    cpu = time.process_time() - start
    own = model_answers(labels, method)  # what the controls calibrate
    items = np.array(sorted(truth.index))
    with_controls = []
    for split in range(splits):
        half = halves(items, split)
        controls = pd.DataFrame({"item_id": items[half], "field": "label", "answer": truth.reindex(items[half])})
        calibrated, _ = calibrate_answers(own, controls)
        fit = calibrated.attrs.get("calibration_fit", {})
        with_controls.append({"split": split, "moved": fit.get("moved"), "b": fit.get("b"),
                              **read(calibrated, truth.reindex(items[~half]))})
    return {"cpu_s": round(cpu, 2), "without_controls": read(plain, truth), "with_controls": with_controls}


def measure(method: str = "auto", seeds: tuple[int, ...] = (0, 1, 2), splits: int = 5) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, frame in public_sets():
        out[name] = {"seed": None, **measure_set(frame, method, splits)}
    for seed in seeds:
        for name, frame in held_out_sets(seed):
            out[f"{name.split(' ')[0]} s{seed}"] = {"seed": seed, **measure_set(frame, method, splits)}
    return out


def _cell(r: dict[str, Any], figure: str) -> str:
    value, floor = r[figure], r["floor"][figure]["p95"]
    return f"{value:.3f}{'*' if value > floor else ' '}/{floor:.3f}"


def _line(label: str, r: dict[str, Any]) -> str:
    cells = " ".join(f"{_cell(r, f):>13s}" for f in FIGURES)
    return f"  {label:34s} {r['items']:5d} {r['accuracy']:.4f} {cells}  {r['worst_at'] or '-'}"


def lines(results: dict[str, Any]) -> list[str]:
    out = ["calibration against its noise floor: each figure / its floor's 95th percentile (a perfectly "
           "calibrated confidence on the same items); * above it",
           f"  {'set, controls':34s} {'items':>5s} {'acc':6s} {'ECE6':>13s} {'ECE15':>13s} {'|worst bin|':>13s}  "
           "worst bin"]
    for name, row in results.items():
        out.append(_line(f"{name} without", row["without_controls"]))
        for r in row["with_controls"]:
            fit = "moved" if r["moved"] else "kept"
            out.append(_line(f"{name} split {r['split']} ({fit})", r))
        mean = {f: np.mean([r[f] for r in row["with_controls"]]) for f in FIGURES}
        above = {f: sum(r[f] > r["floor"][f]["p95"] for r in row["with_controls"]) for f in FIGURES}
        out.append(f"  {name + ' splits mean':34s} {'':5s} {'':6s} " + " ".join(
            f"{mean[f]:.3f} ({above[f]} of {len(row['with_controls'])})".rjust(13) for f in FIGURES))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--method", default="auto")
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2], help="the synthetic crowds' seeds")
    parser.add_argument("--splits", type=int, default=5, help="control/scored splits of the gold items")
    parser.add_argument("--no-write", action="store_true", help="print only")
    a = parser.parse_args()
    results = measure(a.method, tuple(a.seeds), a.splits)
    print("\n".join(lines(results)))
    if not a.no_write:
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
