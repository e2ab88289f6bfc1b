"""`--method mace` against crowd-kit's MACE on the same rows as given, with majority vote beside them.

Sets: Snow et al. 2008's WSD, RTE and Temporal (bench/snow_sets.py; a set whose file is absent is skipped with
the reason) and the five held-out shapes of bench/crowd_shapes.py at seeds 0, 1 and 2, rows in the order
``shaped()`` gives them (by item). Per set and seed: accuracy against the gold of every item
(adultcontent2's shape has gold on all 11,040 here; the real set's covers 333) of

- ours: the answers of ``postprocess.answers.aggregation.aggregate(frame, method="mace")``, what
  ``hitflow aggregate --method mace`` writes, and how many two-label answers read below 0.5;
- crowd-kit 1.4.2's ``MACE(random_state=0)`` and ``MajorityVote()`` fitted here on the same rows (the
  independent computation);
- the items where ours and crowd-kit's MACE differ, and how many of them each gets right;
- CPU seconds of ``MACE().fit`` (ours, which runs its restarts under both label priors) and of crowd-kit's
  ``MACE(random_state=0).fit`` (its ten restarts, from one seed).

Run: ``make bench-mace`` (writes bench/results-mace-parity.json; about 10 minutes, most of it crowd-kit's).
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from bench.crowd_shapes import HELD_OUT, shaped
from bench.snow_sets import SETS, gold_of, path_of, read_set

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results-mace-parity.json"
SEEDS = (0, 1, 2)


def sets() -> Iterator[tuple[str, int, pd.DataFrame | str]]:
    """(name, seed, frame) for each set, or (name, 0, reason) for a real set that is absent."""
    for snow in SETS:
        path = path_of(snow)
        yield snow.name, 0, (read_set(path) if path is not None else f"{snow.variable} unset or file missing")
    for shape in HELD_OUT:
        for seed in SEEDS:
            yield shape.name, seed, shaped(shape, seed)


def _accuracy(labels: pd.Series, gold: pd.Series) -> float:
    return round(float((labels.astype(str) == gold.reindex(labels.index)).mean()), 4)


def _crowd_kit(data: pd.DataFrame) -> tuple[pd.Series, pd.Series, float]:
    """crowd-kit's MACE answers, its majority vote's, and the MACE fit's CPU seconds."""
    from crowdkit.aggregation import MACE, MajorityVote

    with warnings.catch_warnings():  # crowd-kit 1.4.2 uses pandas' deprecated inplace=
        warnings.simplefilter("ignore")
        start = time.process_time()
        mace = MACE(random_state=0).fit_predict(data)
        cpu = time.process_time() - start
        vote = MajorityVote().fit_predict(data)
    return mace, vote, cpu


def _ours(frame: pd.DataFrame, data: pd.DataFrame) -> tuple[pd.DataFrame, float]:
    """The answers `hitflow aggregate --method mace` writes, and the CPU seconds of the MACE fit alone."""
    from postprocess.answers.aggregation import aggregate
    from postprocess.answers.mace_em import MACE

    answers = aggregate(frame[["item_id", "worker_id", "label"]], method="mace").answers
    start = time.process_time()
    MACE().fit(data)
    return answers, time.process_time() - start


def measure(frame: pd.DataFrame) -> dict[str, Any]:
    data = frame.rename(columns={"item_id": "task", "worker_id": "worker"})[["task", "worker", "label"]]
    gold = gold_of(frame)
    answers, ours_cpu = _ours(frame, data)
    ours = answers.set_index("item_id")["label"]
    theirs, vote, theirs_cpu = _crowd_kit(data)
    theirs = theirs.astype(str).reindex(ours.index)
    differ = ours != theirs
    truth = gold.reindex(ours.index)
    two_labels = frame["label"].nunique() == 2
    return {"items": len(ours), "labels": len(frame), "ours": _accuracy(ours, gold),
            "crowd_kit": _accuracy(theirs, gold), "majority_vote": _accuracy(vote, gold),
            "ours_minus_crowd_kit_items": int((ours == truth).sum() - (theirs == truth).sum()),
            "differing_items": int(differ.sum()), "differing_ours_right": int((ours[differ] == truth[differ]).sum()),
            "differing_crowd_kit_right": int((theirs[differ] == truth[differ]).sum()),
            "two_label_answers_below_half": int((answers["posterior"] < 0.5).sum()) if two_labels else None,
            "cpu_ours_s": round(ours_cpu, 2), "cpu_crowd_kit_s": round(theirs_cpu, 2)}


def summary(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    measured = {key: row for key, row in rows.items() if "ours" in row}
    behind = {key: row["ours_minus_crowd_kit_items"] for key, row in measured.items()
              if row["ours_minus_crowd_kit_items"] < 0}
    return {"sets": len(measured), "at_least_crowd_kit": len(measured) - len(behind), "behind_items": behind,
            "at_least_majority_vote": sum(row["ours"] >= row["majority_vote"] for row in measured.values()),
            "cpu_ours_s": round(sum(row["cpu_ours_s"] for row in measured.values()), 1),
            "cpu_crowd_kit_s": round(sum(row["cpu_crowd_kit_s"] for row in measured.values()), 1)}


def line(key: str, row: dict[str, Any]) -> str:
    if "skipped" in row:
        return f"{key:18s} skipped: {row['skipped']}"
    return (f"{key:18s} ours {row['ours']:.4f}  crowd-kit {row['crowd_kit']:.4f}  majority vote "
            f"{row['majority_vote']:.4f}  ({row['ours_minus_crowd_kit_items']:+d} items; of {row['differing_items']} "
            f"differing, ours right on {row['differing_ours_right']}, crowd-kit's on "
            f"{row['differing_crowd_kit_right']})  CPU {row['cpu_ours_s']:.2f} s vs {row['cpu_crowd_kit_s']:.2f} s")


def main() -> None:
    rows: dict[str, dict[str, Any]] = {}
    for name, seed, frame in sets():
        key = f"{name}/{seed}"
        rows[key] = {"skipped": frame} if isinstance(frame, str) else measure(frame)
        print(line(key, rows[key]), flush=True)
    result = {"rows": rows, "summary": summary(rows)}
    print(json.dumps(result["summary"]), flush=True)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
