"""How sure is an item's answer, given what its workers are known to be worth? A Dawid-Skene model per field.
Input: ``item_id, worker_id, label`` [, ``field``] (postprocess.answers.judgements). Output of :func:`label_posterior`:
``POSTERIOR_COLUMNS``, one row per item and field."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from postprocess.answers import tempering
from postprocess.answers.judgements import judgements
from postprocess.answers.skill_prior import SkillPrior

ITERATIONS = 50
TOLERANCE = 1e-6  # largest change of an item's posterior at which EM has converged
UNSEEN = "\x00unseen"  # the placeholder second label of a field with one label seen
DEFAULT_PRIOR = SkillPrior()
TYPICAL_SHARE = 0.8  # with typical_weight: the prior odds, 4 to 1, that a worker is a typical one
POSTERIOR_COLUMNS = ["item_id", "field", "label", "confidence", "judgements", "margin", "vote_weight"]


def fast_workers(times: pd.DataFrame, share: float) -> frozenset[str]:
    """Workers whose median time is below ``share`` of the median's (``times``: ``worker_id, seconds``)."""
    if share <= 0 or times.empty:
        return frozenset()
    seconds = pd.to_numeric(times["seconds"], errors="coerce")
    known = seconds.between(0, float("inf"), inclusive="left")  # NaN, below zero and +-inf are not times
    timed = pd.DataFrame({"worker_id": times["worker_id"].astype(str), "seconds": seconds})[known]
    if timed.empty:
        return frozenset()
    typical = timed.groupby("worker_id")["seconds"].median()
    return frozenset(typical[typical < share * timed["seconds"].median()].index.astype(str))


def label_posterior(frame: pd.DataFrame, prior: SkillPrior = DEFAULT_PRIOR, fast_workers: frozenset[str] = frozenset(),
                    tables: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> pd.DataFrame:
    """Each item's most probable label and its probability, per field; ``tables`` gets each posterior."""
    prior.check()
    parts, tables = [], {} if tables is None else tables
    for field, part in judgements(frame).groupby("field", sort=True):
        rows, tables[field] = _field_posterior(part, prior, fast_workers)
        parts.append(rows.assign(field=field))
    if not parts:
        return pd.DataFrame(columns=POSTERIOR_COLUMNS)
    return pd.concat(parts, ignore_index=True)[POSTERIOR_COLUMNS]


def _field_posterior(part: pd.DataFrame, prior: SkillPrior,
                     fast_workers: frozenset[str]) -> tuple[pd.DataFrame, tuple[np.ndarray, np.ndarray]]:
    items, labels, final, (stranger, correlation), counts = _fit(part, prior, fast_workers)
    temperature = tempering.temperatures(counts, correlation)  # each item's, by its judgements
    best = final.argmax(axis=1)
    top_two = np.sort(final, axis=1)[:, -2:]
    with np.errstate(divide="ignore"):  # a runner-up of probability 0: an infinite margin
        margin = np.log(top_two[:, 1]) - np.log(top_two[:, 0])
    return pd.DataFrame({"item_id": items, "label": labels[best], "confidence": final.max(axis=1),
                         "judgements": counts, "margin": margin, "vote_weight": math.log(
                             stranger * (len(labels) - 1) / (1 - stranger)) / temperature}), (items, final)


def label_probabilities(part: pd.DataFrame, prior: SkillPrior = DEFAULT_PRIOR) -> pd.DataFrame:
    """One field's judgements (``item_id, worker_id, label``) -> items x labels posterior."""
    prior.check()
    items, labels, final, (_, correlation), counts = _fit(part, prior, frozenset())
    table = pd.DataFrame(final, index=pd.Index(items, name="item_id"), columns=labels)
    table.attrs["temperature"] = float(tempering.temperatures(np.median(counts), correlation))  # the median item's
    return table.drop(columns=[UNSEEN], errors="ignore")


def _fit(part: pd.DataFrame, prior: SkillPrior, fast_workers: frozenset[str],
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[float, float], np.ndarray]:
    """One field's (items, labels, left-out tempered posterior, (newcomer accuracy, correlation), judgements)."""
    items, item = np.unique(part["item_id"].to_numpy(dtype=str), return_inverse=True)
    workers, worker = np.unique(part["worker_id"].to_numpy(dtype=str), return_inverse=True)
    fast = np.isin(workers, list(fast_workers)).astype(int)  # each worker's group: 1 fast, 0 the others
    labels, label = np.unique(part["label"].to_numpy(dtype=str), return_inverse=True)
    if len(labels) == 1:
        labels = np.array([labels[0], UNSEEN])
    posterior = np.bincount(item * len(labels) + label, minlength=len(items) * len(labels)).reshape(
        len(items), len(labels)).astype(float)  # counts, as np.add.at of 1.0 on zeros gave them
    posterior /= posterior.sum(axis=1, keepdims=True)  # start from the vote shares
    accuracy = crowd_accuracy(prior, item, label, len(labels), fast[worker])
    weak = _group_counts(prior.weight, len(labels), accuracy, fast)
    for _ in range(ITERATIONS):
        counts = _worker_counts(confusion_counts(posterior, item, worker, label, weak), weak, fast, accuracy, prior)
        updated = _e_step(posterior, counts, item, worker, label, leave_out=False)
        converged = np.abs(updated - posterior).max() < TOLERANCE
        posterior = updated
        if converged:
            break
    record = confusion_counts(posterior, item, worker, label, weak)
    # leave-one-out, then tempered by how well the other labels of an item predict each (postprocess.answers.tempering)
    evidence = _log_likelihood(posterior, _worker_counts(record, weak, fast, accuracy, prior), item, worker, label,
                               leave_out=True)
    correlation = tempering.fit(*evidence)
    final = tempering.posterior(*evidence, correlation)
    stranger = _newcomer_accuracy(record, weak, fast, accuracy, prior)
    return items, labels, final, (stranger, correlation), np.bincount(item, minlength=len(items))


def _newcomer_accuracy(record: np.ndarray, weak: np.ndarray, fast: np.ndarray, accuracy: np.ndarray,
                       prior: SkillPrior) -> float:
    """How often a newcomer is right, for vote_weight: never below skill_prior."""
    newcomer = accuracy.astype(float)
    if prior.typical_weight > 0:
        centre = typical_centre(record, (record - weak).sum(axis=(1, 2)), fast, accuracy[0])
        newcomer[0] = TYPICAL_SHARE * centre + (1 - TYPICAL_SHARE) * accuracy[0]
    return max(float(newcomer[np.unique(fast)].max()), prior.accuracy)


def crowd_accuracy(prior: SkillPrior, item: np.ndarray, label: np.ndarray, n_labels: int,
                   groups: np.ndarray | None = None) -> np.ndarray:
    """The accuracy an unseen worker of each group is assumed to have (a one-coin fit); between chance and 0.99."""
    if prior.crowd_weight == 0:
        return np.full(2, prior.accuracy)
    groups = np.zeros(len(item), dtype=int) if groups is None else groups
    votes = np.zeros((2, int(item.max()) + 1, n_labels))  # by group, item, label
    np.add.at(votes, (groups, item, label), 1.0)
    several = votes.sum(axis=(0, 2)) >= 2
    votes = votes[:, several]
    wrong = votes.sum(axis=2, keepdims=True) - votes  # per group, item and candidate truth: judgements against it
    accuracy, classes = np.full(2, prior.accuracy), np.full(n_labels, 1 / n_labels)
    for _ in range(ITERATIONS):
        coin = accuracy[:, None, None]
        log = np.log(classes) + (votes * np.log(coin) + wrong * np.log((1 - coin) / (n_labels - 1))).sum(axis=0)
        posterior = tempering.normalised(log)
        right = (posterior * votes).sum(axis=(1, 2)) + prior.crowd_weight * prior.accuracy
        updated = np.clip(right / (votes.sum(axis=(1, 2)) + prior.crowd_weight), 1 / n_labels + 0.01, 0.99)
        classes = (posterior.sum(axis=0) + 1.0) / (len(posterior) + n_labels)
        converged = np.abs(updated - accuracy).max() < TOLERANCE
        accuracy = updated
        if converged:
            break
    return accuracy


def prior_counts(weight: float, n_labels: int, accuracy: float) -> np.ndarray:
    """Dirichlet pseudo-counts of one worker's confusion: rows of ``weight`` judgements at ``accuracy``."""
    pseudo = np.full((n_labels, n_labels), weight * (1 - accuracy) / (n_labels - 1))
    np.fill_diagonal(pseudo, weight * accuracy)
    return pseudo


def _worker_counts(record: np.ndarray, weak: np.ndarray, fast: np.ndarray, accuracy: np.ndarray,
                   prior: SkillPrior) -> np.ndarray:
    """Each worker's confusion as counts whose rows' shares are its posterior mean."""
    if prior.typical_weight == 0:
        return record
    seen = record - weak
    centre = typical_centre(record, seen.sum(axis=(1, 2)), fast, accuracy[0])
    typical = _group_counts(prior.typical_weight, record.shape[1], np.array([centre, accuracy[1]]), fast)
    return mixture_counts(seen, weak, typical)


def typical_centre(record: np.ndarray, sizes: np.ndarray, fast: np.ndarray, fallback: float) -> float:
    """How often the typical worker is right: the weighted median of the non-fast, else ``fallback``."""
    n_labels = record.shape[1]
    own = np.trace(record, axis1=1, axis2=2) / record.sum(axis=(1, 2))
    others = fast == 0
    centre = fallback
    if sizes[others].sum() > 0:
        order = np.argsort(own[others])
        cumulative = np.cumsum(sizes[others][order])
        centre = own[others][order][np.searchsorted(cumulative, cumulative[-1] / 2)]
    return float(np.clip(centre, 1 / n_labels + 0.01, 0.99))


def _group_counts(weight: float, n_labels: int, accuracy: np.ndarray, fast: np.ndarray) -> np.ndarray:
    """Dirichlet pseudo-counts a worker (workers x true x given): their group's (``fast``: 0 or 1) accuracy."""
    by_group = np.stack([prior_counts(weight, n_labels, float(a)) for a in accuracy[:2]])
    return by_group[fast]


def mixture_counts(seen: np.ndarray, weak: np.ndarray, typical: np.ndarray) -> np.ndarray:
    """Each worker's posterior mean confusion under the two-part prior, as counts."""
    log_typical = _log_evidence(typical, seen) + math.log(TYPICAL_SHARE)
    log_weak = _log_evidence(weak, seen) + math.log(1 - TYPICAL_SHARE)
    share = 1 / (1 + np.exp(np.clip(log_weak - log_typical, -700, 700)))[:, None, None]
    mean = share * _row_shares(typical + seen) + (1 - share) * _row_shares(weak + seen)
    pseudo = share * typical.sum(axis=2, keepdims=True) + (1 - share) * weak.sum(axis=2, keepdims=True)
    return mean * (seen.sum(axis=2, keepdims=True) + pseudo)


def _log_evidence(alpha: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Per worker: the Dirichlet-multinomial log probability of their counts under ``alpha``."""
    from scipy.special import gammaln  # here: only the typical prior needs it, and `hitflow aggregate` starts faster

    rows = gammaln(alpha.sum(axis=2)) - gammaln(alpha.sum(axis=2) + seen.sum(axis=2))
    return (rows + (gammaln(alpha + seen) - gammaln(alpha)).sum(axis=2)).sum(axis=1)


def _row_shares(counts: np.ndarray) -> np.ndarray:
    return counts / counts.sum(axis=2, keepdims=True)


def confusion_counts(posterior: np.ndarray, item: np.ndarray, worker: np.ndarray, label: np.ndarray,
                      pseudo: np.ndarray) -> np.ndarray:
    """Per worker: their prior's pseudo-counts plus the expected (true, given) label counts."""
    counts = pseudo.copy()  # workers x true x given
    for true in range(pseudo.shape[1]):  # counts[:, true] is a view: add.at writes into counts
        np.add.at(counts[:, true], (worker, label), posterior[item, true])
    return counts


def _e_step(posterior: np.ndarray, counts: np.ndarray, item: np.ndarray, worker: np.ndarray, label: np.ndarray,
            leave_out: bool) -> np.ndarray:
    """Items x labels: prior times likelihood; ``leave_out``: each judgement's item out of its worker's counts."""
    return tempering.posterior(*_log_likelihood(posterior, counts, item, worker, label, leave_out))


def _log_likelihood(posterior: np.ndarray, counts: np.ndarray, item: np.ndarray, worker: np.ndarray,
                    label: np.ndarray, leave_out: bool) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """(judgements x true labels log-probabilities, ``item``, items, classes' log prior)."""
    own = posterior[item] if leave_out else 0.0
    given = counts[worker, :, label] - own  # judgements x true labels
    rows = counts.sum(axis=2)[worker] - own
    classes = (posterior.sum(axis=0) + 1.0) / (len(posterior) + posterior.shape[1])
    return np.log(given) - np.log(rows), item, len(posterior), np.log(classes)
