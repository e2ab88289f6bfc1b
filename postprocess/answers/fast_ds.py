"""crowd-kit's Dawid-Skene (1979) over integer codes, float for float, at numpy's speed (docs/speed.md).
Column contract (crowd-kit's): ``fit(data)`` reads ``task, worker, label``; ``probas_`` is a frame of tasks x labels
(both first-seen order), each row a distribution, floored at crowd-kit's 1e-10."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pandas._libs.groupby import group_sum

EPS = np.float_power(10, -10)  # crowd-kit's dawid_skene._EPS


def _groups(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Group number per row in first-seen order of ``keys`` (``groupby(sort=False)``), and the count."""
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.reshape(-1)], len(first)


def _kahan_sums(group: np.ndarray, n_groups: int, values: np.ndarray) -> np.ndarray:
    """pandas' group sum, float for float (``np.add.reduceat``, or its private Cython ``group_sum``)."""
    if _in_order(group) and not np.isnan(values).any():
        total = np.zeros((n_groups, values.shape[1]))
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        total[group[starts]] = np.add.reduceat(values, starts, axis=0)
        return total
    total = np.zeros((n_groups, values.shape[1]))
    group_sum(total, np.zeros(n_groups, dtype=np.int64), np.ascontiguousarray(values, dtype=np.float64),
              group.astype(np.intp, copy=False), None)
    return total


def _in_order(group: np.ndarray) -> bool:
    """Whether pandas' group sum over these group numbers takes its sorted path (``np.add.reduceat``)."""
    return bool((group[1:] >= group[:-1]).all())


def _block(values: np.ndarray, c_order: bool) -> np.ndarray:
    """A tasks x labels array laid out as pandas' block of the group sum that made it."""
    return np.ascontiguousarray(values.T) if c_order else values.T


class DawidSkene:
    """crowd-kit's ``DawidSkene(n_iter, tol)``; ``fallback``: crowd-kit's class, where our sums would differ."""

    def __init__(self, n_iter: int = 100, tol: float = 1e-5, fallback: Any = None) -> None:
        self.n_iter, self.tol, self.fallback = n_iter, tol, fallback
        self.loss_history_: list[float] = []

    def fit(self, data: pd.DataFrame) -> DawidSkene:
        by_task, task_names = pd.factorize(data["task"])  # first-seen order, as crowd-kit's frames hold them
        labels, label_names = pd.factorize(data["label"])
        workers = pd.factorize(data["worker"])[0]
        n_tasks, k = len(task_names), len(label_names)
        if not len(data):
            self.probas_ = pd.DataFrame()
            return self
        counts = np.zeros((n_tasks, k))
        np.add.at(counts, (by_task, labels), 1.0)
        probas = counts / counts.sum(axis=1, keepdims=True)  # majority vote's shares
        pair, n_pairs = _groups(workers * k + labels)
        pair_worker = np.empty(n_pairs, dtype=np.int64)
        pair_worker[pair] = workers
        worker_of_pair, n_workers = _groups(pair_worker)
        if self.fallback is not None and len(pair) > 1 and _in_order(pair) and np.bincount(pair).max() > 2:
            fitted = self.fallback(n_iter=self.n_iter, tol=self.tol).fit(data)
            self.probas_, self.loss_history_ = fitted.probas_, fitted.loss_history_
            return self
        priors = _block(probas, False).sum(axis=1) / n_tasks  # the majority vote's frame: F order
        c_order = _in_order(by_task)  # the sorted path's sums are laid out in C order
        text_order = np.argsort(np.asarray(label_names, dtype=object), kind="stable")
        errors = self._m_step(probas[by_task], pair, n_pairs, worker_of_pair, n_workers)
        loss = -np.inf
        self.loss_history_ = []
        for _ in range(self.n_iter):
            probas = self._e_step(pair, by_task, n_tasks, priors, errors, c_order)
            priors = _block(probas, c_order).sum(axis=1) / n_tasks
            errors = self._m_step(probas[by_task], pair, n_pairs, worker_of_pair, n_workers)
            new_loss = self._lower_bound(pair, by_task, probas, priors, errors, c_order, text_order) / len(data)
            self.loss_history_.append(new_loss)
            probas = np.clip(probas, EPS, None)
            if new_loss - loss < self.tol:
                break
            loss = new_loss
        out = pd.DataFrame(probas, index=pd.Index(task_names, name="task"),
                           columns=pd.Index(label_names, name="label", dtype=data["label"].dtype))
        self.probas_ = out
        return self

    @staticmethod
    def _m_step(per_row: np.ndarray, pair: np.ndarray, n_pairs: int, worker_of_pair: np.ndarray,
                n_workers: int) -> np.ndarray:
        """Per (worker, given label) pair, the chance of that label given each true label."""
        errors = np.clip(_kahan_sums(pair, n_pairs, per_row), EPS, None)
        return errors / _kahan_sums(worker_of_pair, n_workers, errors)[worker_of_pair]

    @staticmethod
    def _e_step(pair: np.ndarray, by_task: np.ndarray, n_tasks: int, priors: np.ndarray,
                errors: np.ndarray, c_order: bool) -> np.ndarray:
        """Tasks (first-seen order) x labels: the posterior of each true label."""
        log_likelihoods = np.log2(np.clip(priors, EPS, None)) + _kahan_sums(by_task, n_tasks, np.log2(errors)[pair])
        scaled = np.exp2(log_likelihoods - log_likelihoods.max(axis=1, keepdims=True))
        return scaled / _block(scaled, c_order).sum(axis=0)[:, None]

    @staticmethod
    def _lower_bound(pair: np.ndarray, by_task: np.ndarray, probas: np.ndarray, priors: np.ndarray,
                     errors: np.ndarray, c_order: bool, text_order: np.ndarray) -> float:
        """crowd-kit's evidence lower bound, summed in its order, plus the clipped posteriors' entropy."""
        joined = np.log(errors)[pair] + np.log(np.clip(priors, EPS, None))
        by_label = _block(probas[by_task] * joined, c_order).sum(axis=1)[text_order]
        joint = np.append(by_label, 0.0).sum()
        clipped = np.clip(probas, EPS, None)
        entropy = -_block(np.log(clipped) * clipped, c_order).sum(axis=1).sum()
        return float(joint + entropy)
