"""Can any allocation reach full-overlap majority vote within half the judgements? An oracle bound (issue 66).

For each item, in the file's order: the fewest of its first judgements whose majority (a unique leader) is the
expert answer. An oracle that knew these counts would buy the cheapest right items first; with half the
file's judgements (every item at least one) the share it gets right bounds what any allocation of that file's
judgements, answered by majority vote over each item's first ones, can reach. Beside it: fixed overlap at each
count (majority vote over each item's first n, ties counted wrong) and full-overlap majority vote.

Sets: Snow et al. 2008's (bench/snow_sets.py) and synthetic crowds of the held-out shapes (bench/crowd_shapes.py).
Run: ``python -m bench.adaptive_oracle [--seed N] [--share 0.5]``.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from bench.answers_calibration import held_out_sets, public_sets


def prefix_right(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(items x judgements: is the unique leader of the item's first n+1 judgements the gold answer; each item's
    judgements), over the items with gold."""
    gold_known = frame[frame["gold"].astype(str).str.strip() != ""]
    rank = gold_known.groupby("item_id", sort=False).cumcount().to_numpy()
    items, item = np.unique(gold_known["item_id"].to_numpy(dtype=str), return_inverse=True)
    labels, label = np.unique(gold_known["label"].to_numpy(dtype=str), return_inverse=True)
    gold = np.searchsorted(labels, gold_known.drop_duplicates("item_id").set_index("item_id")["gold"]
                           .reindex(items).to_numpy(dtype=str))
    width = int(rank.max()) + 1
    votes = np.zeros((len(items), width, len(labels)))
    votes[item, rank, label] = 1.0
    counts = votes.cumsum(axis=1)  # items x prefix x labels
    top = counts.max(axis=2)
    unique = (counts == top[:, :, None]).sum(axis=2) == 1
    right = unique & (counts[np.arange(len(items)), :, np.minimum(gold, len(labels) - 1)] == top)
    right &= (gold < len(labels))[:, None]  # a gold label nobody gave is never the leader
    available = np.bincount(item, minlength=len(items))
    right &= np.arange(width)[None, :] < available[:, None]
    return right, available


def oracle(right: np.ndarray, available: np.ndarray, share: float) -> float:
    """The share of items right when the cheapest right prefixes are bought first within ``share`` of the
    judgements, every item at least one."""
    budget = share * available.sum() - len(available)
    cost = np.where(right.any(axis=1), right.argmax(axis=1), np.inf)  # extra judgements beyond the first
    cost = np.sort(cost[np.isfinite(cost)])
    return float((np.cumsum(cost) <= budget).sum() / len(available))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--share", type=float, default=0.5)
    a = parser.parse_args()
    for name, frame in public_sets() + held_out_sets(a.seed):
        right, available = prefix_right(frame)
        per = np.median(available).astype(int)
        fixed = " ".join(f"{n}:{right[:, n - 1].mean():.3f}" for n in range(1, per + 1))
        print(f"{name:26s} oracle@{a.share:.0%} {oracle(right, available, a.share):.4f}  full MV "
              f"{right[np.arange(len(right)), available - 1].mean():.4f}  fixed {fixed}")


if __name__ == "__main__":
    main()
