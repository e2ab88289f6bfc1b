"""Adaptive overlap at 40% of the labels against full-overlap majority vote, on every crowd with gold.

Per crowd: postprocess.answers.adaptive.DEFAULT_RULE with ``budget`` at ``--share`` (default 0.4), replayed with
labels taken in the order the crowd gave them (Snow et al.'s files; ``--orders`` more runs with each file's rows
shuffled, seeds 1..N) or, on the synthetic shapes (bench/crowd_shapes.py's held-out ones), the generator's order,
seeds 0..``--seeds``-1. Beside it: full majority vote (hitflow's deterministic ties, the target; and ties counted
at random, Snow et al.'s reading), the items the replay is ahead (+) or short (-) of the target, labels used, and
the same allocation's items ahead or short had each worker's accuracy been known (:func:`known_skills`).

The rule was chosen on RTE and two shapes (CHOSEN_ON: dog, duck); TEMP, WSD and the other shapes were kept apart
and are reported apart. ``--round-share`` replays with another adaptive_budget.ROUND_SHARE (0.25: the rule before).

Run: ``python -m bench.adaptive_forty [--share 0.4] [--orders 4] [--seeds 3]`` (about 2 min of CPU, most of it the
AdultContent2 shape; writes bench/results-adaptive-forty.json, or ``--out``).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.answers_calibration import _gold, accuracy, held_out_sets, public_sets
from bench.snow_sets import majority_vote_ties_half
from postprocess.answers import adaptive_budget
from postprocess.answers.adaptive import DEFAULT_RULE, replay
from postprocess.answers.aggregation import aggregate

ROOT = Path(__file__).resolve().parents[1]
# the held-out shapes by the public sets they mimic (bench/crowd_shapes.py)
NAMES = {"adultcontent2": "adult", "image10": "dog", "fewworkers": "face", "dense108": "duck", "binary3": "product"}
CHOSEN_ON = ("rte", "dog", "duck")


def measure(frame: pd.DataFrame, share: float) -> dict[str, Any]:
    labels, gold = frame.drop(columns="gold"), _gold(frame)
    mv = accuracy(aggregate(labels, "mv").answers, gold)
    replayed = replay(labels, replace(DEFAULT_RULE, budget=share))
    adaptive = accuracy(replayed.answers, gold)
    return {"items": len(gold), "full_mv": round(mv, 4),
            "full_mv_ties_random": round(majority_vote_ties_half(frame[frame["item_id"].isin(gold.index)]), 4),
            "adaptive": round(adaptive, 4), "items_vs_mv": round((adaptive - mv) * len(gold)),
            "labels_used": len(replayed.used), "labels": len(labels),
            "share_used": round(len(replayed.used) / len(labels), 4),
            "known_skills_vs_mv": round((known_skills(frame, share) - mv) * len(gold))}


def known_skills(frame: pd.DataFrame, share: float) -> float:
    """Accuracy at ``share`` of the labels had every worker's accuracy been known (read off the gold, on all their
    labels: a cheat, the bound a better estimate of skills could approach): two labels an item, then rounds of
    ROUND_SHARE of the items, the least sure (one-coin posterior) first, answers the posterior's top label."""
    known = frame[frame["gold"].astype(str).str.strip() != ""]
    item, labels = pd.factorize(known["item_id"])[0], pd.factorize(known["label"], sort=True)
    label, k = labels[0], len(labels[1])
    gold = pd.Index(labels[1]).get_indexer(known.drop_duplicates("item_id")["gold"])
    worker = pd.factorize(known["worker_id"])[0]
    right = np.bincount(worker, label == gold[item]) + 1
    skill = np.clip(right / (np.bincount(worker) + 2), 1 / k + 0.01, 0.99)
    weight = np.log(skill * (k - 1) / (1 - skill))[worker]
    rank, available = known.groupby("item_id", sort=False).cumcount().to_numpy(), np.bincount(item)
    wanted, budget = np.minimum(available, 2), int(share * len(known))
    while True:
        score = np.zeros((len(available), k))
        np.add.at(score, (item, label), np.where(rank < wanted[item], weight, 0.0))
        sure = np.exp(score - score.max(axis=1, keepdims=True))
        sure = sure.max(axis=1) / sure.sum(axis=1)
        open_ = np.flatnonzero(wanted < available)
        left = budget - int(wanted.sum())
        if left <= 0 or not len(open_):
            return float((score.argmax(axis=1) == gold).mean())
        wanted[open_[np.argsort(sure[open_], kind="stable")][:min(left, adaptive_budget.round_cap(len(wanted)))]] += 1


def crowds(orders: int, seeds: int) -> list[tuple[str, str, pd.DataFrame]]:
    """(crowd, run, frame): each Snow set in its file's order and ``orders`` shuffles, each shape ``seeds`` draws."""
    out = []
    for name, frame in public_sets():
        out.append((name, "file order", frame))
        out += [(name, f"shuffle {s}", frame.sample(frac=1, random_state=s).reset_index(drop=True))
                for s in range(1, orders + 1)]
    for seed in range(seeds):
        out += [(NAMES[name.split()[0]], f"seed {seed}", frame) for name, frame in held_out_sets(seed)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--share", type=float, default=0.4)
    parser.add_argument("--orders", type=int, default=4)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--round-share", type=float, default=adaptive_budget.ROUND_SHARE)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results-adaptive-forty.json")
    args = parser.parse_args()
    adaptive_budget.ROUND_SHARE = args.round_share
    runs = []
    for crowd, run, frame in crowds(args.orders, args.seeds):
        runs.append({"crowd": crowd, "run": run, **measure(frame, args.share)})
        print(json.dumps(runs[-1]), flush=True)
    summary = {}
    for crowd in dict.fromkeys(r["crowd"] for r in runs):
        mine = [r for r in runs if r["crowd"] == crowd]
        summary[crowd] = {"chosen_on": crowd in CHOSEN_ON, "runs": len(mine),
                          "runs_at_or_above_mv": sum(r["items_vs_mv"] >= 0 for r in mine),
                          "items_vs_mv": [r["items_vs_mv"] for r in mine],
                          "share_used": max(r["share_used"] for r in mine)}
    result = {"share": args.share, "round_share": args.round_share, "summary": summary, "runs": runs}
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
