"""Does adaptive overlap with its defaults reach full-overlap majority vote within half the judgements, on every
set and every seed of the synthetic crowds? (the held-out calibration work's done-when) ``make bench-adaptive-seeds``.

Per set: the replay of ``hitflow aggregate --adaptive``'s defaults (postprocess.answers.adaptive.DEFAULT_RULE),
its accuracy and share of the judgements against full-overlap majority vote's accuracy, and two readings of the
same used judgements that say where a miss comes from:

- ``skill``: the used judgements answered by the skill posterior (``--method skill``), the model the budget's
  expected gain reads, in place of the rule's method (``auto``: majority vote or Dawid-Skene);
- ``knowing``, on the synthetic crowds: the used judgements answered knowing every worker's kind and skill and
  every item's difficulty (bench/adaptive_oracle.answered_knowing_the_crowd), beside the same on every judgement
  of the file. Where ``knowing`` reaches majority vote and the replay does not, the allocation bought judgements
  enough and the answers read them short (a model fitted to sparse, adaptively collected labels); where it does
  not, the allocation did.

Sets: Snow et al. 2008's RTE, TEMP and WSD (bench/snow_sets.py, where present) once, the synthetic crowds of the
held-out shapes (bench/crowd_shapes.py, bench/answers_calibration.held_out_sets: AdultContent2's with gold on 333
items) for each of ``--seeds`` (default 0 1 2). About 25 s of CPU without AdultContent2's shape (``--adult``: its
replay, ~5 s a seed more). A synthetic crowd's answers against majority vote are noisy: on the 108 x 39 shape one
item is 0.9 points, and full majority vote wins some items by one vote of 39 (seed 1: 20 to 19).
"""

from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from bench.adaptive_oracle import answered_knowing_the_crowd
from bench.answers_calibration import _gold, accuracy, held_out_sets, public_sets, replayed_against_mv
from bench.crowd_shapes import HELD_OUT
from postprocess.answers.adaptive import DEFAULT_RULE
from postprocess.answers.aggregation import aggregate

SHAPES = {shape.name: shape for shape in HELD_OUT}
NO_KNOWING = {"adultcontent2"}  # its true-likelihood table would hold 11,040 items x 825 workers x 4 x 4 cells


def measure_set(name: str, frame: pd.DataFrame, seed: int | None) -> dict[str, Any]:
    labels, gold = frame.drop(columns="gold"), _gold(frame)
    replayed, r = replayed_against_mv(labels, gold)
    row: dict[str, Any] = {"set": name, "seed": seed, "full_mv": round(r["full_mv"], 4),
                           "adaptive": round(r["adaptive"], 4), "share": round(r["share"], 4), "meets": r["meets"],
                           "method": _method(replayed.answers),
                           "skill": round(accuracy(aggregate(replayed.used, "skill").answers, gold), 4),
                           "cpu_s": round(r["cpu_s"], 2)}
    if seed is not None and name not in NO_KNOWING:
        row["knowing"] = round(answered_knowing_the_crowd(SHAPES[name], seed, replayed.used), 4)
        row["knowing_full"] = round(answered_knowing_the_crowd(SHAPES[name], seed, labels), 4)
    return row


def _method(answers: pd.DataFrame) -> str:
    """The method the answers came from (auto's choice on the used judgements), by field, joined."""
    return ",".join(sorted(set(answers["method"].astype(str)))) or DEFAULT_RULE.method


def measure(seeds: list[int], adult: bool) -> list[dict[str, Any]]:
    rows = [measure_set(name.lower(), frame, None) for name, frame in public_sets()]
    for seed in seeds:
        for name, frame in held_out_sets(seed):
            shape = name.split(" ")[0]
            if adult or shape != "adultcontent2":
                rows.append(measure_set(shape, frame, seed))
    return rows


def lines(rows: list[dict[str, Any]]) -> list[str]:
    out = [f"{'set':14s} {'seed':>4s} {'adaptive':>8s} {'share':>6s} {'full mv':>7s} {'':7s} {'auto':>11s} "
           f"{'skill':>6s} {'knowing':>7s} {'(all)':>6s} {'cpu s':>5s}"]
    for r in rows:
        seed = "-" if r["seed"] is None else str(r["seed"])
        knowing = f"{r['knowing']:7.4f} {r['knowing_full']:6.4f}" if "knowing" in r else f"{'-':>7s} {'-':>6s}"
        out.append(f"{r['set']:14s} {seed:>4s} {r['adaptive']:8.4f} {r['share']:6.1%} {r['full_mv']:7.4f} "
                   f"{'met' if r['meets'] else 'NOT met':7s} {r['method']:>11s} {r['skill']:6.4f} {knowing} "
                   f"{r['cpu_s']:5.2f}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="the synthetic crowds' seeds")
    parser.add_argument("--adult", action="store_true", help="replay AdultContent2's shape too (~5 s a seed)")
    a = parser.parse_args()
    print("\n".join(lines(measure(a.seeds, a.adult))))


if __name__ == "__main__":
    main()
