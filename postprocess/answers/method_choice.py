"""``auto``'s choice of aggregation method. Pure: integer codes in, a :class:`Choice` out."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from postprocess.answers import worker_coin
from postprocess.answers.tempering import normalised

FOLDS = 5
LARGE = 20_000  # labels past which one fold is scored, not every fold
FLOOR = 1e-6  # a held-out label's probability is floored here (log 0 would end the comparison)
EPS = 1e-10  # crowd-kit's floor on Dawid-Skene's confusion counts
SMOOTHING = 1.0  # a held-out label is read with this many pseudo-labels a confusion row, spread evenly
ITERATIONS = 100
TOLERANCE = 1e-5  # largest change of an item's posterior at which EM has converged
SEED = 0
MIN_TESTED = 100  # labels in a field under which auto runs no test (20 held out a fold)
CELLS_A_LABEL = 10.0  # a worker's confusion cells per label they gave past which auto does not test Dawid-Skene
CLEAR_BY = 2.0  # worker-coin replaces the standing choice only this many standard errors ahead (see the module)


class Choice(NamedTuple):
    method: str
    reason: str
    scores: dict[str, float]  # mean held-out log-probability per label, by model (empty without a test)


def choose(items: np.ndarray, workers: np.ndarray, labels: np.ndarray, n_labels: int,
           min_per_worker: float) -> Choice:
    """``items``, ``workers``, ``labels``: one field's judgements as integer codes (labels 0..n_labels-1)."""
    untested = settled(len(items), len(np.unique(workers)), n_labels, min_per_worker)
    if untested is not None:
        return untested
    fold = np.random.default_rng(SEED).integers(FOLDS, size=len(items))
    scored_folds = [0] if len(items) > LARGE else list(range(FOLDS))
    logs, held_items = _held_out_logs(items, workers, labels, n_labels, fold, scored_folds)
    scores = {name: float(part.mean()) for name, part in logs.items()}
    method = _pick(logs, held_items)
    others = " and ".join(f"{name}'s {scores[name]:.4f}" for name in MODELS if name != method)
    folds = f"{len(scored_folds)} of {FOLDS} folds" if len(scored_folds) < FOLDS else f"{FOLDS} folds"
    return Choice(method, f"predicts held-out labels better (mean log-probability a label {scores[method]:.4f} "
                          f"against {others}; {len(held_items):,} of {len(items):,} labels held out in "
                          f"{folds}, each model fitted without them)", {k: round(v, 4) for k, v in scores.items()})


def settled(n_judgements: int, n_workers: int, n_labels: int, min_per_worker: float) -> Choice | None:
    """Majority vote without a test, from the field's counts alone; None where the test decides."""
    per_worker = n_judgements / max(n_workers, 1)
    if n_labels < 2:
        return Choice("mv", "one label value: nothing to weigh", {})
    if per_worker < min_per_worker:
        return Choice("mv", f"{per_worker:.1f} labels a worker on average, under min_per_worker {min_per_worker:g}: "
                            "too few to estimate a worker's confusion", {})
    if n_judgements < MIN_TESTED:
        return Choice("mv", f"{n_judgements} labels, under {MIN_TESTED}: too few for a held-out test to tell "
                            "the models apart", {})
    if n_labels ** 2 > CELLS_A_LABEL * per_worker:
        return Choice("mv", f"{n_labels:,} label values: a worker's {n_labels:,}x{n_labels:,} confusion matrix is "
                            f"more than {CELLS_A_LABEL:g}x the {per_worker:.1f} labels a worker gives on average; "
                            "too few to estimate it", {})
    return None


def _held_out_logs(items: np.ndarray, workers: np.ndarray, labels: np.ndarray, n_labels: int, fold: np.ndarray,
                   scored_folds: list[int]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """(by model, each held-out label's log-probability, floored; the item of each held-out label), in one order."""
    logs: dict[str, list[np.ndarray]] = {name: [] for name in MODELS}
    for f in scored_folds:
        fit, out = fold != f, fold == f
        for name, model in MODELS.items():
            predicted = model(items[fit], workers[fit], labels[fit], n_labels, items[out], workers[out], labels[out])
            logs[name].append(np.log(np.maximum(predicted, FLOOR)))
    held_items = np.concatenate([items[fold == f] for f in scored_folds])
    return {name: np.concatenate(parts) for name, parts in logs.items()}, held_items


def _pick(logs: dict[str, np.ndarray], held_items: np.ndarray) -> str:
    """Majority vote or Dawid-Skene by score; worker-coin only where ahead by CLEAR_BY standard errors."""
    standing = "ds" if logs["ds"].mean() > logs["mv"].mean() else "mv"
    difference = logs["worker-coin"] - logs[standing]
    # labels of one item share its posterior: their differences are summed per item before the variance
    per_item = np.bincount(held_items, difference) - np.bincount(held_items) * difference.mean()
    spread = float(np.sqrt((per_item ** 2).sum()))
    return "worker-coin" if difference.sum() > CLEAR_BY * spread else standing


def _start(items: np.ndarray, labels: np.ndarray, n_items: int, k: int) -> np.ndarray:
    """Items x labels: the vote shares (an item without labels: even)."""
    votes = np.bincount(items * k + labels, minlength=n_items * k).reshape(n_items, k).astype(float)
    votes[votes.sum(axis=1) == 0] = 1.0
    return votes / votes.sum(axis=1, keepdims=True)


def _seen_mean(posterior: np.ndarray, seen: np.ndarray, all_seen: bool) -> np.ndarray:
    """The mean row of the items with labels, floored at EPS (``all_seen``: every item, no copy)."""
    rows = posterior if all_seen else posterior[seen]
    return np.maximum(rows.sum(axis=0) / len(rows), EPS)


def _one_coin(items: np.ndarray, workers: np.ndarray, labels: np.ndarray, k: int,
              at_items: np.ndarray, at_workers: np.ndarray, at_labels: np.ndarray) -> np.ndarray:
    """Majority vote's one-coin model: each held-out label's probability (``at_*``)."""
    n_items = int(max(items.max(initial=-1), at_items.max(initial=-1))) + 1
    seen = np.bincount(items, minlength=n_items) > 0
    all_seen = bool(seen.all())
    posterior = _start(items, labels, n_items, k)
    votes = np.bincount(items * k + labels, minlength=n_items * k).reshape(n_items, k)
    against = votes.sum(axis=1, keepdims=True) - votes
    given, n = items * k + labels, len(items)
    for _ in range(ITERATIONS):
        prior = _seen_mean(posterior, seen, all_seen)
        a = min(max(float(posterior.take(given).sum() / n), EPS), 1 - EPS)
        slip = (1 - a) / (k - 1)
        updated = normalised(np.log(prior) + votes * np.log(a) + against * np.log(slip))
        done = np.abs(updated - posterior).max() < TOLERANCE
        posterior = updated
        if done:
            break
    posterior[~seen] = prior
    given_at = posterior[at_items, at_labels]
    return given_at * a + (1 - given_at) * slip


def _worker_coin(items: np.ndarray, workers: np.ndarray, labels: np.ndarray, k: int,
                 at_items: np.ndarray, at_workers: np.ndarray, at_labels: np.ndarray) -> np.ndarray:
    """Worker-coin's probability of each held-out label (``at_*``), unfitted ones at the crowd's."""
    n_items = int(max(items.max(initial=-1), at_items.max(initial=-1))) + 1
    n_workers = int(max(workers.max(initial=-1), at_workers.max(initial=-1))) + 1
    fitted = worker_coin.fit(items, workers, labels, n_items, n_workers, k)
    return (fitted.posterior[at_items] * fitted.confusion[at_workers, :, at_labels]).sum(axis=1)


def _dawid_skene(items: np.ndarray, workers: np.ndarray, labels: np.ndarray, k: int,
                 at_items: np.ndarray, at_workers: np.ndarray, at_labels: np.ndarray) -> np.ndarray:
    """Dawid-Skene as crowd-kit fits it (the module). The probability of each held-out label (``at_*``)."""
    n_items = int(max(items.max(initial=-1), at_items.max(initial=-1))) + 1
    n_workers = int(max(workers.max(initial=-1), at_workers.max(initial=-1))) + 1
    seen = np.bincount(items, minlength=n_items) > 0
    codes = _codes(items, workers, labels, n_workers, k, bool(seen.all()))
    posterior = _start(items, labels, n_items, k)
    for _ in range(ITERATIONS):
        prior, confusion = _ds_m_step(posterior, seen, codes)
        # each judgement's log-probability under each true label, summed per item (one count per item and label)
        per_row = np.log(confusion[workers, :, labels])
        log = np.log(prior) + np.bincount(codes.item_label, per_row.ravel(), minlength=n_items * k).reshape(n_items, k)
        updated = normalised(log)
        done = np.abs(updated - posterior).max() < TOLERANCE
        posterior = updated
        if done:
            break
    prior, confusion = _ds_m_step(posterior, seen, codes)
    counted = np.bincount(workers, minlength=n_workers) > 0
    expected = _ds_counts(posterior, codes) + SMOOTHING / k
    read = expected / expected.sum(axis=2, keepdims=True)  # Laplace: an unseen slip is rare, not impossible
    read[~counted] = read[counted].mean(axis=0)  # a worker only in the held-out fold: the crowd's
    posterior[~seen] = prior
    return (posterior[at_items] * read[at_workers, :, at_labels]).sum(axis=1)


MODELS = {"mv": _one_coin, "ds": _dawid_skene, "worker-coin": _worker_coin}  # auto's candidates, in tie order


class _Codes(NamedTuple):
    """One fold's judgements as the flat indices its sums need, computed once for every EM step."""

    items: np.ndarray
    item_label: np.ndarray  # item * k + true label, per judgement and true label (row-major)
    cell: np.ndarray  # (worker * k + true label) * k + given label, per judgement and true label (row-major)
    n_workers: int
    k: int
    all_seen: bool  # every item has a label in the fold


def _codes(items: np.ndarray, workers: np.ndarray, labels: np.ndarray, n_workers: int, k: int,
           all_seen: bool) -> _Codes:
    true = np.arange(k)
    cell = (workers[:, None] * k + true) * k + labels[:, None]
    return _Codes(items, (items[:, None] * k + true).ravel(), cell.ravel(), n_workers, k, all_seen)


def _ds_m_step(posterior: np.ndarray, seen: np.ndarray, codes: _Codes) -> tuple[np.ndarray, np.ndarray]:
    """Class prior and workers x true x given confusion (crowd-kit's: expected counts floored, rows summing to 1)."""
    counts = np.maximum(_ds_counts(posterior, codes), EPS)
    return _seen_mean(posterior, seen, codes.all_seen), counts / counts.sum(axis=2, keepdims=True)


def _ds_counts(posterior: np.ndarray, codes: _Codes) -> np.ndarray:
    """Workers x true x given: the expected label counts under the items' posterior."""
    n, k = codes.n_workers, codes.k
    return np.bincount(codes.cell, posterior[codes.items].ravel(), minlength=n * k * k).reshape(n, k, k)
