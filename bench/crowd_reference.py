"""The reference posterior of a two-class crowd of bench/crowd_shapes.py: what an aggregator that knew every honest
and careless worker's accuracy, every item's difficulty and the generator itself (but not which items are
misleading, nor the true labels) would believe. The yardstick for MACE against majority vote on a crowd: how
many items each answer is expected to get right given the labels, where the realized count also carries the
coin flips of items whose labels leave the truth near even.

Spammers, random workers and adversaries count as uninformative (an adversary of two classes, always wrong, would
tell the truth outright: no model that reads workers as at best spamming can use that). A misleading item is a
mixture (its share of the items): most honest workers give the other label (0.7 of them, then the rest as usual).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bench.crowd_shapes import Shape, hidden, shaped

FOOLED = 0.7  # crowd_shapes: the share of workers a misleading item fools


def reference(shape: Shape, seed: int = 0) -> pd.DataFrame:
    """Items (``item_id``) x the two classes: each item's posterior of its true class."""
    if len(shape.classes) != 2:
        raise ValueError(f"{shape.name}: the reference is for two classes, not {len(shape.classes)}")
    frame, drawn = shaped(shape, seed), hidden(shape, seed)
    workers = drawn.workers.reindex(frame["worker_id"])
    items = drawn.items.reindex(frame["item_id"])
    right = 0.5 + (workers["best"].to_numpy() - 0.5) * (1 - items["difficulty"].to_numpy())
    informative = workers["kind"].isin(["honest", "careless"]).to_numpy()
    second = (frame["label"] == shape.classes[1]).to_numpy()
    log_joint = []
    for truth in (False, True):
        given = second == truth
        ordinary, fooling = (np.where(informative, np.log(np.where(given, p, 1 - p)), 0.0)
                             for p in (right, (1 - FOOLED) * right))
        by_item = [pd.Series(each).groupby(frame["item_id"].to_numpy()).sum() for each in (ordinary, fooling)]
        log_joint.append(np.logaddexp(np.log1p(-shape.misleading) + by_item[0], np.log(shape.misleading) + by_item[1])
                         + np.log(shape.prior[int(truth)]))
    second_class = 1 / (1 + np.exp(log_joint[0] - log_joint[1]))
    return pd.DataFrame({shape.classes[0]: 1 - second_class, shape.classes[1]: second_class})


def expected_right(posterior: pd.DataFrame, answers: pd.Series) -> float:
    """Items ``answers`` (by ``item_id``) is expected to get right under ``posterior``."""
    columns = posterior.columns.get_indexer(answers.reindex(posterior.index).astype(str))
    chosen = posterior.to_numpy()[np.arange(len(posterior)), np.maximum(columns, 0)]
    return float(np.where(columns >= 0, chosen, 0.0).sum())
