"""How much do an item's labels say together? The temperature ``T = 1 + (n - 1) rho`` of the skill posterior.
Pure arrays: ``loglik`` is judgements x classes, ``item`` each judgement's item (0..n_items-1), ``log_classes`` the
classes' log prior."""

from __future__ import annotations

import numpy as np

MIN_LABELS = 3  # an item's labels at which one of them is predicted from the others (two at least)
MIN_ITEMS = 30  # items predicted below which the temperature stays 1
COVER = 0.9  # the labels predicted: each item's first m, m the count this share of the items reach
MIN_GAIN = 3.0  # nats of held-out log-likelihood a temperature must gain over 1 (a likelihood-ratio test, p ~ 0.015)
MAX_CORRELATION = 0.25  # ten labels never count for less than about three independent ones, any number for four
GRID = np.linspace(0.0, MAX_CORRELATION, 51)  # the correlations tried
CHUNK = 1_000_000  # numbers per block of temperatures scored together (8 MB each array)


def posterior(loglik: np.ndarray, item: np.ndarray, n_items: int, log_classes: np.ndarray,
              correlation: float | np.ndarray = 0.0) -> np.ndarray:
    """Items x classes: ``log_classes`` plus each item's ``loglik`` sum over its temperature, normalised."""
    sums = _item_sums(loglik, item, n_items)
    if np.any(correlation):
        sums = sums / temperatures(np.bincount(item, minlength=n_items), correlation)[:, None]
    return normalised(log_classes + sums)


def temperatures(counts: np.ndarray, correlation: float | np.ndarray) -> np.ndarray:
    """Each item's temperature ``1 + (n - 1) rho`` from its labels' number ``n`` (``counts``; at least 1)."""
    return 1.0 + (np.maximum(np.asarray(counts, dtype=float), 1.0) - 1.0) * correlation


def fit(loglik: np.ndarray, item: np.ndarray, n_items: int, log_classes: np.ndarray) -> float:
    """The correlation of GRID best predicting an item's first ``m`` labels from each other; else 0."""
    counts = np.bincount(item, minlength=n_items)
    first = int(np.quantile(counts, 1 - COVER, method="lower"))  # labels that 9 items in 10 have at least
    if first < MIN_LABELS or (counts >= first).sum() < MIN_ITEMS:
        return 0.0
    order = np.argsort(item, kind="stable")  # by item, each item's labels in arrival order
    rank = np.empty(len(item), dtype=int)
    rank[order] = np.arange(len(item)) - np.searchsorted(item[order], item[order])
    used = (rank < first) & (counts[item] >= first)
    summed = _item_sums(loglik[used], item[used], n_items)
    others, own = summed[item[used]] - loglik[used], loglik[used]
    scores = _grid_scores(others, own, log_classes, 1.0 + (first - 2) * GRID) * len(own)
    best = int(np.argmax(scores))
    return float(GRID[best]) if scores[best] - scores[0] >= MIN_GAIN else 0.0


def _item_sums(loglik: np.ndarray, item: np.ndarray, n_items: int) -> np.ndarray:
    """Items x classes: each item's rows of ``loglik`` summed in row order from 0."""
    k = loglik.shape[1]
    cells = (np.asarray(item)[:, None] * k + np.arange(k)).ravel()
    return np.bincount(cells, np.ascontiguousarray(loglik, dtype=float).ravel(), minlength=n_items * k).reshape(
        n_items, k)


def _grid_scores(others: np.ndarray, own: np.ndarray, log_classes: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Per temperature of ``grid``: the mean log-probability of each held-out label given its item's others."""
    top = own.max(axis=1, keepdims=True)
    likely = np.exp(own - top)
    step = max(1, CHUNK // max(own.size, 1))
    scores = []
    for start in range(0, len(grid), step):
        log = log_classes + others / grid[start:start + step, None, None]  # temperatures x labels x classes
        weights = normalised(log)
        scores.append((np.log((weights * likely).sum(axis=2)) + top[:, 0]).mean(axis=1))
    return np.concatenate(scores)


def normalised(log: np.ndarray) -> np.ndarray:
    """``log`` exponentiated and scaled to sum to 1 along its last axis, in place (callers pass a temporary)."""
    log -= log.max(axis=-1, keepdims=True)
    np.exp(log, out=log)
    log /= log.sum(axis=-1, keepdims=True)
    return log
