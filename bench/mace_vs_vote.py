"""`--method mace` against `--method mv` (hitflow's majority vote: ties to the skill posterior's label) on every
crowd there is: Snow et al. 2008's WSD, RTE and Temporal (bench/snow_sets.py; an absent file is skipped) and every
shape of bench/crowd_shapes.py (SHAPES and HELD_OUT) at seeds 0-9.

Per crowd: items, accuracy of each against the gold of every item, and the items each gets right where the other
is wrong (``mace_only``, ``mv_only``: MACE is below majority vote where ``mv_only > mace_only``). On the two-class
shapes also the items each is expected to get right under bench/crowd_reference.py's posterior (that of an
aggregator that knew the workers' accuracies and the items' difficulties) and how many that posterior's own
answers get right: a crowd where even those are no better than majority vote's is one no model can be sure to
win. The answers are ``postprocess.answers.aggregation.aggregate(frame, method=...)``'s, what ``hitflow
aggregate`` writes, from the code on ``PYTHONPATH``: run it on an older tree (``git archive REV | tar -x -C DIR``;
``PYTHONPATH=DIR``, with the HITFLOW_*_LABELS variables for Snow's sets) for the figures before a change.

Run: ``python -m bench.mace_vs_vote [OUT.json] [SHAPE or SET/real ...]`` (default bench/results-mace-vs-vote.json,
every crowd; about 15 minutes on a shared core, most of it the three 8,000- to 11,000-item shapes).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from bench.crowd_reference import expected_right, reference
from bench.crowd_shapes import HELD_OUT, SHAPES, shaped
from bench.snow_sets import SETS, gold_of, path_of, read_set

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results-mace-vs-vote.json"
SEEDS = range(10)


def crowds(only: set[str]) -> Iterator[tuple[str, pd.DataFrame, pd.DataFrame | None]]:
    """(name/seed, frame, the reference posterior of a two-class shape or None) for each crowd whose name is in
    ``only`` (every crowd when empty)."""
    for snow in SETS:
        path = path_of(snow)
        if path is not None and (not only or f"{snow.name}/real" in only):
            yield f"{snow.name}/real", read_set(path), None
    for shape in (*SHAPES, *HELD_OUT):
        if not only or shape.name in only:
            for seed in SEEDS:
                yield (f"{shape.name}/{seed}", shaped(shape, seed),
                       reference(shape, seed) if len(shape.classes) == 2 else None)


def answers(frame: pd.DataFrame, method: str) -> tuple[pd.Series, float]:
    """The label per item ``hitflow aggregate --method`` gives, and the CPU seconds it took."""
    from postprocess.answers.aggregation import aggregate

    start = time.process_time()
    out = aggregate(frame[["item_id", "worker_id", "label"]], method=method).answers
    return out.set_index("item_id")["label"].astype(str), time.process_time() - start


def measure(frame: pd.DataFrame, posterior: pd.DataFrame | None = None) -> dict[str, Any]:
    gold = gold_of(frame)
    vote, vote_cpu = answers(frame, "mv")
    mace, mace_cpu = answers(frame, "mace")
    truth = gold.reindex(vote.index)
    mace = mace.reindex(vote.index)
    vote_right, mace_right = vote == truth, mace == truth
    return {"items": len(vote), "mv": int(vote_right.sum()), "mace": int(mace_right.sum()),
            "mace_only": int((mace_right & ~vote_right).sum()), "mv_only": int((vote_right & ~mace_right).sum()),
            "mv_only_items": sorted(vote.index[vote_right & ~mace_right])[:20],
            "cpu_mv_s": round(vote_cpu, 2), "cpu_mace_s": round(mace_cpu, 2),
            **({} if posterior is None else {
                "reference": int((posterior.idxmax(axis=1).reindex(vote.index) == truth).sum()),
                "expected_mv": round(expected_right(posterior, vote), 1),
                "expected_mace": round(expected_right(posterior, mace), 1)})}


def main() -> None:
    args = sys.argv[1:]
    out = Path(args.pop(0)) if args and args[0].endswith(".json") else OUT
    rows: dict[str, Any] = {}
    for key, frame, posterior in crowds(set(args)):
        rows[key] = row = measure(frame, posterior)
        expected = "" if posterior is None else (f"  expected {row['expected_mace'] - row['expected_mv']:+.1f} "
                                                 f"(reference {row['reference'] - row['mv']:+d})")
        print(f"{key:18s} items {row['items']:6d}  mv {row['mv']:6d}  mace {row['mace']:6d}  "
              f"({row['mace'] - row['mv']:+d}: mace alone {row['mace_only']}, mv alone {row['mv_only']}){expected}  "
              f"CPU {row['cpu_mace_s']:.1f} s vs {row['cpu_mv_s']:.1f} s", flush=True)
    below = {key: row["mace"] - row["mv"] for key, row in rows.items() if row["mace"] < row["mv"]}
    summary = {"crowds": len(rows), "mace_below_mv": below}
    print(json.dumps(summary), flush=True)
    out.write_text(json.dumps({"rows": rows, "summary": summary}, indent=1) + "\n")


if __name__ == "__main__":
    main()
