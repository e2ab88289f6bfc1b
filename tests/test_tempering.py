"""postprocess.answers.tempering: the skill posterior's temperature, fitted by predicting held-out labels, so
that the no-controls confidence does not claim more than an item's labels show when items are not alike.
Checked against a computation by hand, loop by loop, and against the truth of synthetic crowds."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bench.crowd_shapes import HELD_OUT, SHAPES, Shape, shaped
from postprocess.answers import tempering
from postprocess.answers.calibration import bounded
from postprocess.answers.reliability import ece
from postprocess.answers.skill_posterior import label_probabilities
from tests.crowd_labels import crowd_frame


def _random_evidence(seed: int, items: int = 60, per_item: tuple[int, ...] = (3, 4, 5), classes: int = 3,
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(loglik: judgements x classes, each a log distribution over the label given; item, in a shuffled arrival
    order; log class prior)."""
    rng = np.random.default_rng(seed)
    counts = rng.choice(per_item, items)
    item = rng.permutation(np.repeat(np.arange(items), counts))
    # labels that lean to the item's class, sharply: a tempered posterior predicts them better or worse
    truth = rng.integers(0, classes, items)
    loglik = np.log(rng.dirichlet(np.ones(classes), len(item)) * 0.3 + 0.7 * np.eye(classes)[truth[item]])
    return loglik, item, np.log(rng.dirichlet(np.ones(classes) * 5))


def _logsumexp(values: np.ndarray) -> float:
    """log(sum(exp(values))) of a few values, shifted by their largest: the loops below call it ~18,000 times a
    check, where scipy's costs several times as much a call on three values."""
    top = float(np.max(values))
    return top + math.log(float(np.sum(np.exp(values - top))))


def _by_hand(loglik: np.ndarray, item: np.ndarray, log_classes: np.ndarray, temperature: float) -> float:
    """Total log-probability of each item's first m labels (m: the 10th percentile of the items' label counts),
    each from the item's other first m, one item and one label at a time."""
    counts = np.bincount(item)
    m = int(np.sort(counts)[math.floor(0.1 * (len(counts) - 1))])
    total = 0.0
    for i in range(len(counts)):
        rows = np.flatnonzero(item == i)[:m]  # in arrival order
        if counts[i] < m:
            continue
        for j in rows:
            others = [k for k in rows if k != j]
            log_post = log_classes + sum(loglik[k] for k in others) / temperature
            log_post = log_post - _logsumexp(log_post)
            total += _logsumexp(log_post + loglik[j])
    return total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_fitted_correlation_is_the_best_of_the_grid_by_hand(seed: int) -> None:
    loglik, item, log_classes = _random_evidence(seed)
    # every item has its first 3 labels: each held-out label is predicted from 2, at a temperature of 1 + rho
    by_hand = np.array([_by_hand(loglik, item, log_classes, 1.0 + rho) for rho in tempering.GRID])
    best = int(np.argmax(by_hand))
    expected = tempering.GRID[best] if by_hand[best] - by_hand[0] >= tempering.MIN_GAIN else 0.0
    assert tempering.fit(loglik, item, int(item.max()) + 1, log_classes) == pytest.approx(expected)
    # and the fit's own score is the same sum over the first three labels of the 60 items, per label
    assert _held_out_score(*_held_out(loglik, item), log_classes, 1.7) * 180 == pytest.approx(
        _by_hand(loglik, item, log_classes, 1.7))


def _held_out_score(others: np.ndarray, own: np.ndarray, log_classes: np.ndarray, temperature: float) -> float:
    """The fit's own score (tempering._grid_scores) at one temperature."""
    return float(tempering._grid_scores(others, own, log_classes, np.array([temperature]))[0])


def _held_out(loglik: np.ndarray, item: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(others, own) of each item's first 3 labels (every item here has at least 3), by loops."""
    others, own = [], []
    for i in range(int(item.max()) + 1):
        rows = np.flatnonzero(item == i)[:3]
        for j in rows:
            others.append(sum(loglik[k] for k in rows if k != j))
            own.append(loglik[j])
    return np.array(others), np.array(own)


def test_the_tempered_posterior_is_the_prior_times_the_likelihood_to_the_power_one_over_t() -> None:
    loglik, item, log_classes = _random_evidence(3)
    got = tempering.posterior(loglik, item, int(item.max()) + 1, log_classes, 0.25)
    for i in (0, 7, 33):
        t = 1 + ((item == i).sum() - 1) * 0.25  # 1.5, 1.75 or 2 (3, 4 or 5 labels)
        log_post = log_classes + loglik[item == i].sum(axis=0) / t
        np.testing.assert_allclose(got[i], np.exp(log_post - _logsumexp(log_post)), rtol=1e-12)


def test_too_few_labels_an_item_keep_the_temperature_at_one() -> None:
    # two labels an item: one label predicted from one other tells too little (a fit there once chose 12)
    frame, _ = crowd_frame(0, items=600, per_item=2)
    assert label_probabilities(frame).attrs["temperature"] == 1.0
    loglik, item, log_classes = _random_evidence(4, per_item=(2, 2, 2, 3))
    assert tempering.fit(loglik, item, int(item.max()) + 1, log_classes) == 0.0


def test_independent_workers_on_alike_items_keep_the_temperature_at_one() -> None:
    # no item harder than another, no misleading item: the workers' records already say it all
    shape = Shape("alike", 600, 60, 6, ("a", "b"), (0.5, 0.5), misleading=0.0)
    rng = np.random.default_rng(5)
    frame = shaped(shape, seed=5)
    skill = {w: rng.uniform(0.65, 0.95) for w in frame["worker_id"].unique()}
    right = rng.random(len(frame)) < frame["worker_id"].map(skill).to_numpy()
    frame["label"] = np.where(right, frame["gold"], np.where(frame["gold"] == "a", "b", "a"))
    assert label_probabilities(frame[["item_id", "worker_id", "label"]]).attrs["temperature"] == 1.0


def _scored(frame: pd.DataFrame) -> tuple[float, float, float]:
    """(temperature, ECE, mean confidence - accuracy) of the bounded skill posterior against ``gold``."""
    truth = frame.drop_duplicates("item_id").set_index("item_id")["gold"]
    probas = label_probabilities(frame[["item_id", "worker_id", "label"]])
    right = probas.idxmax(axis=1).to_numpy() == truth.reindex(probas.index).to_numpy()
    confidence = bounded(probas.max(axis=1).to_numpy(), frame.groupby("item_id").size().reindex(probas.index), 2)
    return probas.attrs["temperature"], ece(confidence, right), float(np.mean(confidence) - np.mean(right))


def test_hard_items_are_tempered_and_the_confidence_is_nearer_the_truth(monkeypatch: pytest.MonkeyPatch) -> None:
    # RTE's shape (bench/crowd_shapes.py): items of varied difficulty, 5% misleading, 10 labels each; five crowds
    frames = [shaped(SHAPES[0], seed=seed) for seed in range(5)]
    tempered = [_scored(frame) for frame in frames]
    monkeypatch.setattr(tempering, "MIN_GAIN", math.inf)  # no gain is enough: the posterior before, T = 1
    plain = [_scored(frame) for frame in frames]
    assert all(t == 1.0 for t, _, _ in plain) and sum(t > 1.2 for t, _, _ in tempered) >= 3
    assert np.mean([e for _, e, _ in plain]) > 0.05  # over-stated untempered (confidence above accuracy) ...
    assert min(x for _, _, x in plain) > 0.04
    for (t, e, x), (_, e_plain, x_plain) in zip(tempered, plain, strict=True):
        assert e <= e_plain + 0.005 and x <= x_plain  # ... never worse tempered ...
        if t > 1.2:
            assert x < x_plain - 0.02  # ... and less over-stated wherever the held-out labels asked for it
    assert np.mean([e for _, e, _ in tempered]) < np.mean([e for _, e, _ in plain]) - 0.01


def test_an_items_temperature_grows_with_its_labels() -> None:
    # n labels correlated by rho count as n / (1 + (n - 1) rho) independent ones (Kish's design effect)
    np.testing.assert_allclose(tempering.temperatures(np.array([1, 2, 10, 39]), 0.1), [1.0, 1.1, 1.9, 4.8])
    assert tempering.temperatures(np.array([5, 40]), 0.0).tolist() == [1.0, 1.0]


def test_every_worker_on_every_item_is_tempered_past_what_ten_labels_an_item_allowed() -> None:
    # the bird set's shape (39 workers on each of 108 items, 5% misleading): a temperature held at 3, the most
    # ten labels an item were allowed, left seeds 2 and 3 reading 0.99 where 0.91 were right (ECE 0.087)
    dense = next(s for s in HELD_OUT if s.name == "dense108")
    readings = [_scored(shaped(dense, seed=seed)) for seed in (0, 1, 2, 4)]
    assert all(t > 3.0 for t, _, _ in readings)
    assert max(e for _, e, _ in readings) <= 0.08
