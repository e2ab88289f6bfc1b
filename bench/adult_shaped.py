"""A labels file the size and shape of Ipeirotis's AdultContent2 crowd labels, for the aggregation benches.

The real file (Sheng, Provost & Ipeirotis, KDD 2008; ``data/AdultContent2/labels.txt`` of the
ipeirotis/Get-Another-Label repository: ``worker<TAB>url<TAB>class``, no header) has 92,721 labels
of 11,040 web sites by 825 MTurk workers in 4 classes (G, P, R, X), 2,922 of them a worker's repeated
label of a site. It is not in ../shared/data: set ``HITFLOW_ADULT_LABELS`` to a local copy to bench on
it. Otherwise :func:`adult_shaped` writes a synthetic file of the same counts: a few workers label
thousands of sites and most a handful (the real file's long tail), each right with their own accuracy,
a fifth of them near-random, classes about 3/4 G.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

LABELS = 92_721
ITEMS = 11_040
WORKERS = 825
REPEATS = 2_922
CLASSES = np.array(["G", "P", "R", "X"])
PRIOR = np.array([0.74, 0.1, 0.08, 0.08])


def real_adult() -> Path | None:
    """``HITFLOW_ADULT_LABELS`` when it names a file, else None."""
    named = os.environ.get("HITFLOW_ADULT_LABELS", "")
    return Path(named) if named and Path(named).is_file() else None


def read_adult(path: Path) -> pd.DataFrame:
    """``item_id, worker_id, label`` from the real file's ``worker, url, class`` lines."""
    raw = pd.read_csv(path, sep="\t", header=None, names=["worker_id", "item_id", "label"], dtype=str,
                      quoting=3, keep_default_na=False)
    return raw[["item_id", "worker_id", "label"]]


def adult_shaped(seed: int = 0, labels: int = LABELS, items: int = ITEMS, workers: int = WORKERS,
                 repeats: int = REPEATS) -> pd.DataFrame:
    """``item_id, worker_id, label``: ``labels`` rows of which ``repeats`` repeat a worker-item pair."""
    rng = np.random.default_rng(seed)
    share = rng.pareto(0.9, workers) + 0.12  # a long tail: a few workers give most labels
    share /= share.sum()
    accuracy = np.where(rng.random(workers) < 0.2, rng.uniform(0.25, 0.45, workers), rng.uniform(0.6, 0.97, workers))
    truth = rng.choice(len(CLASSES), items, p=PRIOR)
    distinct = labels - repeats
    item = np.repeat(np.arange(items), np.diff(np.linspace(0, distinct, items + 1).astype(int)))
    worker = np.empty(distinct, dtype=int)
    start = 0
    for count in np.bincount(item, minlength=items):  # distinct workers on each item, drawn by their share
        worker[start:start + count] = rng.choice(workers, count, replace=False, p=share)
        start += count
    again = rng.choice(distinct, repeats, replace=False)
    item, worker = np.concatenate([item, item[again]]), np.concatenate([worker, worker[again]])
    right = rng.random(len(item)) < accuracy[worker]
    label = np.where(right, truth[item], rng.choice(len(CLASSES), len(item), p=PRIOR))
    return pd.DataFrame({"item_id": [f"site{i:05d}" for i in item], "worker_id": [f"W{w:04d}" for w in worker],
                         "label": CLASSES[label]}).sort_values("item_id", kind="stable").reset_index(drop=True)


def labels_file(folder: Path) -> tuple[Path, str]:
    """The file to bench on, written as ``item_id, worker_id, label`` CSV in ``folder``, and what it is."""
    real = real_adult()
    frame = read_adult(real) if real is not None else adult_shaped()
    path = folder / "adult_labels.csv"
    frame.to_csv(path, index=False)
    return path, (f"AdultContent2 labels.txt ({real})" if real is not None else
                  "synthetic, AdultContent2's shape (bench/adult_shaped.py, seed 0)")
