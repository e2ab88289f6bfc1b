"""crowd-kit's Dawid-Skene (1979) over integer codes, float for float: the same sums in the same order,
so the same ``probas_`` to the last bit at numpy's speed (crowd-kit 1.4.2 writes each EM step as pandas
joins and group-bys over one row per judgement: ~2/3 of an adaptive replay's CPU, ~0.14 s a fit there).

What keeps the floats equal: pandas' group sums are Kahan-compensated, in row order within a group
(:func:`_kahan_sums` does the same updates, one rank of every group at a time); its means and row sums
reduce numpy arrays laid out as pandas' blocks are (:func:`_block`: the group sum's layout depends on the
keys, so it is asked of pandas once a fit); groups, tasks and labels come in first-seen order, as
``groupby(sort=False)`` and crowd-kit's majority-vote start give them. The loss (the evidence lower bound)
sums across labels in text order as pandas' column alignment does. Checked on 140 random crowds (1-6
labels, 1-6 judgements an item, one to 300 items): posteriors and EM iterations equal in all, the loss in
139 (one last-bit difference); tests/test_fast_ds.py keeps four of them.

Column contract (crowd-kit's): ``fit(data)`` reads ``task, worker, label``; ``probas_`` is a frame of
tasks x labels (both first-seen order), each row a distribution, floored at crowd-kit's 1e-10.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

EPS = np.float_power(10, -10)  # crowd-kit's dawid_skene._EPS


def _groups(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Group number per row in first-seen order of ``keys`` (``groupby(sort=False)``), and the count."""
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.reshape(-1)], len(first)


def _kahan_sums(group: np.ndarray, n_groups: int, values: np.ndarray) -> np.ndarray:
    """pandas' ``group_sum``: per group and column, the Kahan-compensated sum of ``values``' rows in
    row order. Rows are taken one rank within their group at a time, every group at once."""
    order = np.argsort(group, kind="stable")
    sorted_groups = group[order]
    starts = np.searchsorted(sorted_groups, np.arange(n_groups))
    rank = np.arange(len(group)) - starts[sorted_groups]
    total = np.zeros((n_groups, values.shape[1]))
    compensation = np.zeros_like(total)
    for r in range(int(rank.max()) + 1 if len(rank) else 0):
        rows = order[rank == r]
        g = group[rows]
        y = values[rows] - compensation[g]
        t = total[g] + y
        c = t - total[g] - y
        compensation[g] = np.where(np.isnan(c), 0.0, c)
        total[g] = t
    return total


def _block(values: np.ndarray, c_order: bool) -> np.ndarray:
    """A tasks x labels array as pandas holds it in a frame's block: labels x tasks, laid out as the group sum
    that made it (``c_order``: each label's tasks contiguous; else each task's labels), so numpy reduces it
    in pandas' order."""
    return np.ascontiguousarray(values.T) if c_order else values.T


def _c_order_sums(tasks: pd.Series, k: int) -> bool:
    """Whether ``groupby("task", sort=False).sum()`` of ``k`` float columns lays its block out in C order:
    it depends on the keys (whether pandas reorders the groups), not on the values, so asked once."""
    frame = pd.DataFrame(np.zeros((len(tasks), k)), index=tasks.index).assign(task=tasks.to_numpy())
    return bool(frame.groupby("task", sort=False).sum()._mgr.blocks[0].values.flags["C_CONTIGUOUS"])


class DawidSkene:
    """crowd-kit's ``DawidSkene(n_iter, tol)`` without initial errors or true labels (what hitflow asks)."""

    def __init__(self, n_iter: int = 100, tol: float = 1e-5) -> None:
        self.n_iter, self.tol = n_iter, tol

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
        priors = _block(probas, False).sum(axis=1) / n_tasks  # the majority vote's frame: F order
        c_order = _c_order_sums(data["task"], k)
        text_order = np.argsort(np.asarray(label_names, dtype=object), kind="stable")
        errors = self._m_step(probas[by_task], pair, n_pairs, worker_of_pair, n_workers)
        loss = -np.inf
        self.loss_history_: list[float] = []
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
        """crowd-kit's evidence lower bound: the expected joint log-likelihood, summed per label down the
        judgements and then across the labels in text order (pandas aligns the two frames' columns so,
        the label column's empty sum last), plus the entropy of the clipped posteriors."""
        joined = np.log(errors)[pair] + np.log(np.clip(priors, EPS, None))
        by_label = _block(probas[by_task] * joined, c_order).sum(axis=1)[text_order]
        joint = np.append(by_label, 0.0).sum()
        clipped = np.clip(probas, EPS, None)
        entropy = -_block(np.log(clipped) * clipped, c_order).sum(axis=1).sum()
        return float(joint + entropy)
