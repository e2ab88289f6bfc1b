"""``python -m bench.item_blind_odds``: how many one-item pages ``item_blind`` (qc/agreement_odds.py) needs to flag
a constant rater and a random clicker, and the largest evidence it holds against an honest reader, on crowds in
the shape of a requester's one-item page (tests/test_item_blind.py builds them: a 1-7 slider, a three-way choice,
four topics to tick; five workers an item). Per number of pages, over 20 seeds: the constant raters and random
clickers flagged at ``item_blind_alpha`` 0.01, and the honest workers' largest ``E`` (the flag needs 100).

``--real``: its false alarms on the real crowds with expert gold in ../shared/data (bench/snow_sets.py: RTE,
TEMP, WSD; read as choices, their codes categories). Per crowd, the whole crowd in the file's order: workers
flagged, those of gold accuracy >= 0.8 among them, and the flagged workers' gold accuracy against the others';
then campaigns of ``--items`` items drawn at random (their labels in a random item order, as a campaign of that
size would judge them): the share of worker-campaigns of gold-accurate workers flagged, the measured
false-alarm rate beside the stated 0.01. Nothing here is a test; tests/test_item_blind_real.py checks the
whole-crowd figures, and docs/explanation/qc-rules.md quotes them.
"""

from __future__ import annotations

import argparse
import random
from typing import NamedTuple

import pandas as pd

from bench import snow_sets
from qc.agreement_odds import worker_evidence
from tests.test_item_blind import crowd

ACCURATE = 0.8  # gold accuracy of a worker taken as honest
ALPHA = 0.01


class RealFigures(NamedTuple):
    workers: int
    accurate: int  # workers of gold accuracy >= ACCURATE
    flagged: int
    accurate_flagged: int
    flagged_accuracy: float  # gold accuracy over the flagged workers' labels (NaN: none flagged)
    others_accuracy: float


def as_answers(frame: pd.DataFrame) -> pd.DataFrame:
    """A real crowd's labels as item_blind reads a choice field's answers, in the frame's order."""
    return pd.DataFrame({"worker_id": frame["worker_id"], "image_id": frame["item_id"], "field": "label",
                         "answer": frame["label"]})


def gold_accuracy(frame: pd.DataFrame) -> pd.Series:
    return (frame["label"] == frame["gold"]).groupby(frame["worker_id"]).mean()


def flagged(frame: pd.DataFrame) -> set[str]:
    return {w for w, (e, _) in worker_evidence(as_answers(frame), {}).items() if e >= 1 / ALPHA}


def whole_crowd(frame: pd.DataFrame) -> RealFigures:
    acc, hits = gold_accuracy(frame), flagged(frame)
    right = frame["label"] == frame["gold"]
    on = frame["worker_id"].isin(hits)
    return RealFigures(len(acc), int((acc >= ACCURATE).sum()), len(hits),
                       sum(acc[w] >= ACCURATE for w in hits),
                       float(right[on].mean()) if on.any() else float("nan"), float(right[~on].mean()))


def campaigns(frame: pd.DataFrame, items: int, runs: int, seed: int = 0, per_item: int = 0) -> tuple[int, int]:
    """(worker-campaigns of gold-accurate workers, those flagged) over ``runs`` campaigns of ``items`` items;
    ``per_item``: each item's labels cut to that many, drawn at random (0: all ten)."""
    acc, ids = gold_accuracy(frame), sorted(frame["item_id"].unique())
    honest = flagged_honest = 0
    for run in range(runs):
        rng = random.Random(f"{seed}:{run}")
        order = {item: k for k, item in enumerate(rng.sample(ids, min(items, len(ids))))}
        part = frame[frame["item_id"].isin(order)]
        if per_item:
            part = part.sample(frac=1, random_state=rng.randrange(2 ** 31))
            part = part[part.groupby("item_id").cumcount() < per_item]
        part = part.iloc[part["item_id"].map(order).argsort(kind="stable")]
        good = {w for w in part["worker_id"].unique() if acc[w] >= ACCURATE}
        honest += len(good)
        flagged_honest += len(flagged(part) & good)
    return honest, flagged_honest


def real(items: int, runs: int, per_item: int = 0) -> None:
    print(f"item_blind on real crowds with gold (alpha {ALPHA}; honest: gold accuracy >= {ACCURATE}; "
          f"{per_item or 'all'} labels an item in the campaigns)")
    print("set   workers  accurate  flagged  accurate flagged  flagged acc  others acc  "
          f"| {items}-item campaigns: honest flagged")
    for snow in snow_sets.SETS:
        path = snow_sets.path_of(snow)
        if path is None:
            print(f"{snow.name:5s} absent (../shared/data or ${snow.variable})")
            continue
        frame = snow_sets.read_set(path)
        f = whole_crowd(frame)
        honest, hit = campaigns(frame, items, runs, per_item=per_item)
        print(f"{snow.name:5s} {f.workers:7d}  {f.accurate:8d}  {f.flagged:7d}  {f.accurate_flagged:16d}  "
              f"{f.flagged_accuracy:11.3f}  {f.others_accuracy:10.3f}  | {hit} of {honest} ({hit / honest:.4f})")


def main(argv: list[str] | None = None) -> int:
    global ALPHA  # --alpha: flagged() reads it, as the review-tier test sets it
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--real", action="store_true", help="the real crowds with gold in ../shared/data")
    parser.add_argument("--items", type=int, default=30, help="--real: items a drawn campaign holds")
    parser.add_argument("--runs", type=int, default=100, help="--real: campaigns drawn per crowd")
    parser.add_argument("--per-item", type=int, default=0, help="--real: labels an item in a campaign (0: all ten; "
                                                                   "3: the pages' three workers an item)")
    parser.add_argument("--alpha", type=float, default=ALPHA, help="flag from E = 1/alpha (0.25: the review tier)")
    args = parser.parse_args(argv)
    ALPHA = args.alpha
    if args.real:
        real(args.items, args.runs, args.per_item)
        return 0
    print("pages  constant flagged  random flagged  honest largest E")
    for pages in (3, 5, 8, 12, 16, 20, 30, 40):
        constant = random_flagged = 0
        largest = 0.0
        for seed in range(args.seeds):
            evidence = worker_evidence(crowd(seed, pages), {})
            constant += evidence.get("constant", (0.0,))[0] >= 100
            random_flagged += evidence.get("random", (0.0,))[0] >= 100
            largest = max([largest, *(e for w, (e, _) in evidence.items() if w.startswith("h"))])
        print(f"{pages:5d}  {constant:7d} of {args.seeds}  {random_flagged:7d} of {args.seeds}  {largest:12.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
