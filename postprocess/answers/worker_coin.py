"""One accuracy a worker, shrunk toward the crowd's. Pure: integer codes in, arrays out."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from postprocess.answers.tempering import normalised

SHRINK = 4.0  # judgements at the crowd's accuracy added to each worker's record
ITERATIONS = 100
TOLERANCE = 1e-6  # largest change of an item's posterior at which EM has converged
EPS = 1e-10  # floor on a probability (a log of 0 would end the fit)


class Fit(NamedTuple):
    posterior: np.ndarray  # items x labels (an item without labels: the class prior)
    confusion: np.ndarray  # workers x true x given
    prior: np.ndarray  # the class prior: the labels' shares


def fit(items: np.ndarray, workers: np.ndarray, labels: np.ndarray, n_items: int, n_workers: int, k: int) -> Fit:
    """EM over integer codes; items and workers without labels get the class prior and mean confusion."""
    votes = np.bincount(items * k + labels, minlength=n_items * k).reshape(n_items, k).astype(float)
    seen = votes.sum(axis=1) > 0
    prior = np.maximum(np.bincount(labels, minlength=k) / max(len(labels), 1), EPS)
    posterior = np.where(seen[:, None], votes / np.maximum(votes.sum(axis=1, keepdims=True), 1), prior)
    cell = ((workers[:, None] * k + np.arange(k)) * k + labels[:, None]).ravel()
    item_label = (items[:, None] * k + np.arange(k)).ravel()
    for _ in range(ITERATIONS):
        confusion = _confusion(posterior, items, cell, n_workers, k)
        log = np.log(prior) + np.bincount(item_label, np.log(confusion[workers, :, labels]).ravel(),
                                          minlength=n_items * k).reshape(n_items, k)
        updated = normalised(log)
        updated[~seen] = prior
        done = np.abs(updated - posterior).max() < TOLERANCE
        posterior = updated
        if done:
            break
    confusion = _confusion(posterior, items, cell, n_workers, k)
    counted = np.bincount(workers, minlength=n_workers) > 0
    if counted.any():
        confusion[~counted] = confusion[counted].mean(axis=0)
    return Fit(posterior, confusion, prior)


def _confusion(posterior: np.ndarray, items: np.ndarray, cell: np.ndarray, n_workers: int, k: int) -> np.ndarray:
    """Workers x true x given: each worker's shrunk accuracy on the diagonal, the crowd's slips off it."""
    counts = np.bincount(cell, posterior[items].ravel(), minlength=n_workers * k * k).reshape(n_workers, k, k)
    right, total = np.trace(counts, axis1=1, axis2=2), counts.sum(axis=(1, 2))
    accuracy = (right + SHRINK * right.sum() / max(total.sum(), EPS)) / (total + SHRINK)
    slips = counts.sum(axis=0) * (1 - np.eye(k))
    slips /= np.maximum(slips.sum(axis=1, keepdims=True), EPS)
    confusion = accuracy[:, None, None] * np.eye(k) + (1 - accuracy)[:, None, None] * slips
    return np.maximum(confusion, EPS)


def probabilities(items: np.ndarray, workers: np.ndarray, labels: pd.Series, columns: list[str]) -> pd.DataFrame:
    """``auto``'s third model as the aggregation reads it: item codes (in code order) x ``columns``."""
    present, item = np.unique(items, return_inverse=True)
    held, worker = np.unique(workers, return_inverse=True)
    fitted = fit(item, worker, pd.Index(columns).get_indexer(labels.array), len(present), len(held), len(columns))
    return pd.DataFrame(fitted.posterior, index=pd.Index(present, dtype=np.int64), columns=pd.Index(columns))


def confidence_model(probas: pd.DataFrame, skill: pd.DataFrame, method: str) -> pd.DataFrame:
    """The posterior the confidence reads: the skill posterior's, or with ``worker-coin`` the two's mean."""
    if method != "worker-coin":
        return skill
    return (skill + probas.reindex(index=skill.index, columns=skill.columns, fill_value=0.0)) / 2
