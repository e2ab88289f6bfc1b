"""Synthetic crowd label sets shaped like three real sets with expert gold that are not on this machine
(calibration without controls on crowds shaped like real sets held out from the project).

Shapes (the real sets' counts; everything else is a model of how real crowds behave, not their data):

- ``rte``: Snow et al. 2008's RTE, 800 items, 164 workers, 10 labels an item, binary, balanced;
- ``temporal``: Snow et al. 2008's Temporal, 462 items, 76 workers, 10 labels an item, binary, 56/44;
- ``adult``: Ipeirotis's AdultContent2 (bench/adult_shaped.py's counts), 11,040 items, 825 workers,
  92,721 labels of 4 ordered classes (G < P < R < X, about 3/4 G), 2,922 of them a worker's repeated
  label of an item.

The crowd: a heavy tail of label counts (a few workers label hundreds of items, most a handful); 72%
honest workers of spread accuracy (0.62-0.97 on an ordinary item), 10% careless (0.5-0.65), 8%
spammers who give one class whatever the item, 6% who answer at random, 4% adversaries who are wrong
on purpose. Items are not alike: each has a difficulty that pulls every honest worker toward chance on
it, and a share are misleading (most honest workers give the same wrong label, as on items whose expert
answer is not the obvious one): errors that are correlated across workers, which no model that assumes
independent workers can see. On the 4-class shape a slip goes to an adjacent class three times in four.
Fixed seeds: the same frame on every run.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from bench import adult_shaped


class Shape(NamedTuple):
    name: str
    items: int
    workers: int
    per_item: float  # distinct workers an item, on average
    classes: tuple[str, ...]
    prior: tuple[float, ...]  # the true classes' shares
    repeats: int = 0  # worker-item pairs labelled twice
    misleading: float = 0.05  # share of items most honest workers get wrong the same way
    ordinal: bool = False  # slips go to an adjacent class (3 in 4) rather than any other
    top_share: float = 1.0  # no worker gives more than this share of the labels (1: the tail as drawn)


SHAPES = (
    Shape("rte", 800, 164, 10, ("0", "1"), (0.5, 0.5)),
    Shape("temporal", 462, 76, 10, ("after", "before"), (0.44, 0.56), misleading=0.03),
    Shape("adult", adult_shaped.ITEMS, adult_shaped.WORKERS,
          (adult_shaped.LABELS - adult_shaped.REPEATS) / adult_shaped.ITEMS, tuple(adult_shaped.CLASSES),
          tuple(adult_shaped.PRIOR), repeats=adult_shaped.REPEATS, misleading=0.08, ordinal=True),
)
# Five held-out real sets, by their published counts alone (their labels are not on this machine): items,
# workers, labels an item and the gold's class shares; every other figure is the model of the module. Adult
# content: gold 56/18/15/11%; dog breeds and face angles: 4 balanced classes (faces 9 labels an item); product
# matching: 12% positive, 3 labels an item; birds: every worker on every item. No worker gives more than 5% of the
# labels (10% of 27 workers', 2% of the 3-labels-an-item set's): drawn uncapped, one adversary could give a third of
# a 3-labels-an-item set and majority vote read 0.40 where the real set reads 0.90.
HELD_OUT = (
    Shape("adultcontent2", adult_shaped.ITEMS, adult_shaped.WORKERS,
          (adult_shaped.LABELS - adult_shaped.REPEATS) / adult_shaped.ITEMS, tuple(adult_shaped.CLASSES),
          (0.56, 0.18, 0.15, 0.11), repeats=adult_shaped.REPEATS, misleading=0.08, ordinal=True, top_share=0.05),
    Shape("image10", 807, 109, 10, ("a", "b", "c", "d"), (0.25, 0.25, 0.25, 0.25), top_share=0.05),
    Shape("fewworkers", 584, 27, 9, ("a", "b", "c", "d"), (0.25, 0.25, 0.25, 0.25), ordinal=True, top_share=0.1),
    Shape("binary3", 8315, 176, 3, ("0", "1"), (0.88, 0.12), top_share=0.02),
    Shape("dense108", 108, 39, 39, ("no", "yes"), (0.5, 0.5)),
)
GOLD_ITEMS = {"adultcontent2": 333}  # sets whose expert gold covers only this many items (the rest: all)
KINDS = ("honest", "careless", "spammer", "random", "adversary")
KIND_SHARES = (0.72, 0.10, 0.08, 0.06, 0.04)


class Hidden(NamedTuple):
    """What :func:`shaped` draws and does not show: per item (``items``: ``item_id`` index) its ``difficulty`` and
    whether it is ``misleading``; per worker (``workers``: ``worker_id`` index) their ``kind`` and ``best``
    accuracy (honest and careless workers', on an ordinary item)."""
    items: pd.DataFrame
    workers: pd.DataFrame


def shaped(shape: Shape, seed: int = 0) -> pd.DataFrame:
    """``item_id, worker_id, label, gold`` (gold: the item's true class), one row a label."""
    return _drawn(shape, seed)[0]


def hidden(shape: Shape, seed: int = 0) -> Hidden:
    """The crowd's hidden draws behind :func:`shaped` (the same seed: the same crowd)."""
    return _drawn(shape, seed)[1]


def _drawn(shape: Shape, seed: int) -> tuple[pd.DataFrame, Hidden]:
    rng = np.random.default_rng(seed)
    k = len(shape.classes)
    truth = rng.choice(k, shape.items, p=np.asarray(shape.prior))
    decoy = _slip(rng, truth, k, shape.ordinal)  # the wrong label a misleading item draws
    difficulty = rng.beta(1.0, 3.0, shape.items)  # 0: every honest worker at their best; 1: chance
    misleading = rng.random(shape.items) < shape.misleading
    kind = rng.choice(len(KINDS), shape.workers, p=KIND_SHARES)
    best = np.where(kind == 0, rng.uniform(0.62, 0.97, shape.workers), rng.uniform(0.5, 0.65, shape.workers))
    favourite = rng.choice(k, shape.workers, p=np.asarray(shape.prior))  # a spammer's one class
    item, worker = _assign(rng, shape)
    chance = 1 / k
    # honest and careless workers: their accuracy pulled toward chance by the item's difficulty
    p_right = chance + (best[worker] - chance) * (1 - difficulty[item])
    right = rng.random(len(item)) < p_right
    fooled = misleading[item] & (rng.random(len(item)) < 0.7)  # on a misleading item most take the decoy
    label = np.where(right & ~fooled, truth[item], _slip(rng, truth[item], k, shape.ordinal))
    label = np.where(fooled, decoy[item], label)
    who = kind[worker]
    label = np.where(who == 2, favourite[worker], label)
    label = np.where(who == 3, rng.integers(0, k, len(item)), label)
    label = np.where(who == 4, _slip(rng, truth[item], k, shape.ordinal), label)
    names = np.asarray(shape.classes)
    item_ids = np.asarray([f"{shape.name}{i:05d}" for i in range(shape.items)])
    worker_ids = np.asarray([f"W{w:04d}" for w in range(shape.workers)])
    frame = pd.DataFrame({"item_id": item_ids[item], "worker_id": worker_ids[worker], "label": names[label],
                          "gold": names[truth[item]]}).sort_values("item_id", kind="stable").reset_index(drop=True)
    return frame, Hidden(
        pd.DataFrame({"difficulty": difficulty, "misleading": misleading}, index=pd.Index(item_ids, name="item_id")),
        pd.DataFrame({"kind": np.asarray(KINDS)[kind], "best": best}, index=pd.Index(worker_ids, name="worker_id")))


def _slip(rng: np.random.Generator, truth: np.ndarray, k: int, ordinal: bool) -> np.ndarray:
    """A wrong class for each true one: an adjacent class 3 times in 4 when ``ordinal``, else any other."""
    other = (truth + rng.integers(1, k, len(truth))) % k
    if not ordinal:
        return other
    step = np.where(rng.random(len(truth)) < 0.5, -1, 1)
    near = truth + step
    near = np.where((near < 0) | (near >= k), truth - step, near)
    return np.where(rng.random(len(truth)) < 0.75, near, other)


def _assign(rng: np.random.Generator, shape: Shape) -> tuple[np.ndarray, np.ndarray]:
    """(item, worker) of every label: distinct workers an item drawn by a heavy-tailed share (a few workers
    label hundreds of items, most a handful), then ``repeats`` of those pairs labelled again."""
    share = rng.pareto(0.9, shape.workers) + 0.12
    share /= share.sum()
    for _ in range(20):  # capped at top_share, the rest spread over the others in proportion
        share = np.minimum(share, shape.top_share)
        share /= share.sum()
    distinct = round(shape.items * shape.per_item)
    counts = np.diff(np.linspace(0, distinct, shape.items + 1).astype(int))
    item = np.repeat(np.arange(shape.items), counts)
    worker = np.empty(distinct, dtype=int)
    start = 0
    for count in counts:
        worker[start:start + count] = rng.choice(shape.workers, count, replace=False, p=share)
        start += count
    again = rng.choice(distinct, shape.repeats, replace=False)
    return np.concatenate([item, item[again]]), np.concatenate([worker, worker[again]])
