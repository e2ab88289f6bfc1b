"""The skill posterior of many fields at once, stacked block by block: the same sums as each field fitted alone.
Input, :class:`Stack`: integer codes per judgement, a field's judgements contiguous and in arrival order, its items and
workers contiguous in their ids' text order."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from postprocess.answers import tempering
from postprocess.answers.skill_posterior import (
    ITERATIONS,
    TOLERANCE,
    confusion_counts,
    crowd_accuracy,
    mixture_counts,
    typical_centre,
)
from postprocess.answers.skill_prior import SkillPrior


class Stack(NamedTuple):
    item: np.ndarray  # each judgement's item, 0..items-1
    worker: np.ndarray  # each judgement's worker, 0..workers-1, a field's contiguous (one worker, two fields: two)
    label: np.ndarray  # each judgement's label in its field, 0..k-1 in text order
    item_field: np.ndarray  # each item's field, 0..fields-1, non-decreasing
    k: int  # labels a field (a field with fewer: labels it never saw, which keep the prior's share)


def vote_shares(stack: Stack) -> np.ndarray:
    """Items x k: each item's label counts over its judgements (majority vote's probabilities; EM's start)."""
    n_items = len(stack.item_field)
    counts = np.bincount(stack.item * stack.k + stack.label, minlength=n_items * stack.k).reshape(n_items, stack.k)
    return counts / counts.sum(axis=1, keepdims=True)


def probabilities(stack: Stack, prior: SkillPrior) -> tuple[np.ndarray, np.ndarray]:
    """(items x k posteriors, left out and tempered; each field's median temperature), field by field's."""
    prior.check()
    fields = _Fields.of(stack, prior)
    posterior = _fitted(stack, vote_shares(stack), fields, prior)
    record = confusion_counts(posterior, stack.item, stack.worker, stack.label, fields.weak)
    counts = _worker_counts(stack, record, fields, prior, np.arange(len(fields.accuracy)))
    loglik, log_classes = _log_likelihood(stack, posterior, counts, leave_out=True)
    correlations, temperatures = _correlations(stack, loglik, log_classes)
    final = tempering.posterior(loglik, stack.item, len(posterior), log_classes[stack.item_field],
                                correlations[stack.item_field])
    return final, temperatures


class _Fields(NamedTuple):
    """Per field: its assumed crowd accuracy and workers' start; per worker, field and weak pseudo-counts."""
    accuracy: np.ndarray
    worker_bounds: np.ndarray
    worker_field: np.ndarray
    weak: np.ndarray

    @classmethod
    def of(cls, stack: Stack, prior: SkillPrior) -> _Fields:
        starts, bounds = _starts(stack.item_field), _judgement_bounds(stack)
        accuracy = np.full(len(starts), prior.accuracy)
        for field in range(len(starts) if prior.crowd_weight > 0 else 0):
            rows = slice(bounds[field], bounds[field + 1])
            accuracy[field] = crowd_accuracy(prior, stack.item[rows] - starts[field], stack.label[rows], stack.k)[0]
        worker_field = np.zeros(int(stack.worker.max(initial=-1)) + 1, dtype=np.int64)
        worker_field[stack.worker] = stack.item_field[stack.item]
        return cls(accuracy, np.searchsorted(worker_field, np.arange(len(starts) + 1)), worker_field,
                   _pseudo_counts(prior.weight, accuracy, stack.k)[worker_field])


def _pseudo_counts(weight: float, accuracy: np.ndarray, k: int) -> np.ndarray:
    """Fields x true x given: skill_posterior.prior_counts at each field's accuracy, element by element."""
    pseudo = np.empty((len(accuracy), k, k))
    pseudo[:] = (weight * (1 - accuracy) / (k - 1))[:, None, None]
    pseudo[:, np.arange(k), np.arange(k)] = (weight * accuracy)[:, None]
    return pseudo


def _worker_counts(stack: Stack, record: np.ndarray, fields: _Fields, prior: SkillPrior,
                   asked: np.ndarray) -> np.ndarray:
    """``skill_posterior._worker_counts`` of each field (the centre fitted to each field of ``asked``)."""
    if prior.typical_weight == 0:
        return record
    seen = record - fields.weak
    sizes = seen.sum(axis=(1, 2))
    centre = fields.accuracy.copy()
    for field in asked:
        workers = slice(fields.worker_bounds[field], fields.worker_bounds[field + 1])
        others = np.zeros(workers.stop - workers.start, dtype=int)  # nobody in the fast group here
        centre[field] = typical_centre(record[workers], sizes[workers], others, float(fields.accuracy[field]))
    typical = _pseudo_counts(prior.typical_weight, centre, stack.k)[fields.worker_field]
    return mixture_counts(seen, fields.weak, typical)


def _fitted(stack: Stack, posterior: np.ndarray, fields: _Fields, prior: SkillPrior) -> np.ndarray:
    """EM to convergence field by field, a converged field's posterior kept as ``_fit`` keeps it."""
    starts = _starts(stack.item_field)
    active = np.ones(len(starts), dtype=bool)
    for _ in range(ITERATIONS):
        record = confusion_counts(posterior, stack.item, stack.worker, stack.label, fields.weak)
        counts = _worker_counts(stack, record, fields, prior, np.flatnonzero(active))
        loglik, log_classes = _log_likelihood(stack, posterior, counts, leave_out=False)
        updated = tempering.posterior(loglik, stack.item, len(posterior), log_classes[stack.item_field])
        moved = np.maximum.reduceat(np.abs(updated - posterior).max(axis=1), starts)
        posterior = np.where(active[stack.item_field][:, None], updated, posterior)
        active &= ~(moved < TOLERANCE)  # NaN never converges, as in _fit
        if not active.any():
            break
    return posterior


def _log_likelihood(stack: Stack, posterior: np.ndarray, counts: np.ndarray,
                    leave_out: bool) -> tuple[np.ndarray, np.ndarray]:
    """(judgements x true labels log-probabilities, fields x labels class log prior), as per field."""
    own = posterior[stack.item] if leave_out else 0.0
    given = counts[stack.worker, :, stack.label] - own
    rows = counts.sum(axis=2)[stack.worker] - own
    return np.log(given) - np.log(rows), np.log(_class_prior(stack, posterior))


def _class_prior(stack: Stack, posterior: np.ndarray) -> np.ndarray:
    """Fields x labels: (the field's posteriors summed + 1) / (its items + k), in ``_fit``'s order."""
    k, n_fields = stack.k, int(stack.item_field[-1]) + 1
    cells = (stack.item_field[:, None] * k + np.arange(k)).ravel()
    summed = np.bincount(cells, posterior.ravel(), minlength=n_fields * k).reshape(n_fields, k)
    return (summed + 1.0) / (np.bincount(stack.item_field, minlength=n_fields)[:, None] + k)


def _correlations(stack: Stack, loglik: np.ndarray, log_classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each field's labels' correlation; its median item's temperature); 0 and 1 below MIN_ITEMS."""
    starts, bounds = _starts(stack.item_field), _judgement_bounds(stack)
    sizes = np.diff(np.append(starts, len(stack.item_field)))
    correlations, temperatures = np.zeros(len(starts)), np.ones(len(starts))
    for field in np.flatnonzero(sizes >= tempering.MIN_ITEMS):
        rows = slice(bounds[field], bounds[field + 1])
        item = stack.item[rows] - starts[field]
        correlations[field] = tempering.fit(loglik[rows], item, int(sizes[field]), log_classes[field])
        median = np.median(np.bincount(item, minlength=int(sizes[field])), keepdims=True)
        temperatures[field] = float(tempering.temperatures(median, correlations[field])[0])
    return correlations, temperatures


def _starts(item_field: np.ndarray) -> np.ndarray:
    """Each field's first item (every field has one)."""
    return np.flatnonzero(np.diff(item_field, prepend=-1))


def _judgement_bounds(stack: Stack) -> np.ndarray:
    """Where each field's judgements start, and after the last field where they end."""
    return np.searchsorted(stack.item_field[stack.item], np.arange(int(stack.item_field[-1]) + 2))
