"""postprocess/answers/fast_ds.py against crowd-kit's own DawidSkene on the same labels: the same posteriors
bit for bit (same tasks, labels and order), after the same number of EM iterations, on random crowds of
1 to 6 labels and one to six judgements an item, their rows shuffled or sorted by task or by worker."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from postprocess.answers.crowdkit_models import _without_package_inits, model_class
from postprocess.answers.fast_ds import DawidSkene, _groups, _in_order


def _crowd(seed: int) -> pd.DataFrame:
    """Judgements as aggregation hands them to a model: item and worker codes, labels as text."""
    rng = np.random.default_rng(seed)
    items, workers, k = int(rng.integers(1, 300)), int(rng.integers(1, 40)), int(rng.integers(1, 7))
    per, names = int(rng.integers(1, 7)), [f"l{j}" for j in rng.permutation(20)[:k]]
    truth, skill = rng.integers(0, k, items), rng.uniform(0.2, 0.99, workers)
    rows = [(i, int(w), names[truth[i] if rng.random() < skill[w] else rng.integers(0, k)])
            for i in range(items) for w in rng.choice(workers, size=min(per, workers), replace=False)]
    rows = [rows[j] for j in rng.permutation(len(rows))]
    return pd.DataFrame({"task": [r[0] for r in rows], "worker": [r[1] for r in rows],
                         "label": pd.array([r[2] for r in rows], dtype="str")})


@pytest.mark.parametrize(("seed", "order"), [(0, None), (4, None), (25, None), (1000, "task"), (1002, "worker")])
def test_the_posteriors_equal_crowd_kits_to_the_last_bit(seed: int, order: str | None) -> None:
    """Rows as they come, or sorted by task (pandas then sums a task's rows by np.add.reduceat) or by worker."""
    data = _crowd(seed) if order is None else _crowd(seed).sort_values(order, kind="stable", ignore_index=True)
    crowd_kit = _without_package_inits("crowdkit.aggregation.classification.dawid_skene").DawidSkene(n_iter=100)
    with warnings.catch_warnings():  # crowd-kit 1.4.2 uses pandas' deprecated inplace=
        warnings.simplefilter("ignore")
        theirs = crowd_kit.fit(data)
    ours = model_class("ds")(n_iter=100).fit(data)
    assert list(ours.probas_.index) == list(theirs.probas_.index)
    assert list(ours.probas_.columns) == list(theirs.probas_.columns)
    assert ours.probas_.to_numpy().tobytes() == theirs.probas_.to_numpy(dtype=float).tobytes()
    assert len(ours.loss_history_) == len(theirs.loss_history_)
    assert np.allclose(ours.loss_history_, theirs.loss_history_, rtol=1e-13, atol=0)


def _small_field(rng: np.random.Generator) -> pd.DataFrame:
    """A small field's judgements: one to six items, each by one to four of eight workers, one to three labels."""
    k, names = int(rng.integers(1, 4)), ["yes", "no", "maybe"]
    rows = [(i, int(w), names[rng.integers(k)]) for i in range(int(rng.integers(1, 7)))
            for w in rng.choice(8, size=int(rng.integers(1, 5)), replace=False)]
    return pd.DataFrame({"task": [r[0] for r in rows], "worker": [r[1] for r in rows],
                         "label": pd.array([r[2] for r in rows], dtype="str")})


class _NotFitted:
    def __init__(self, **_: object) -> None:
        raise AssertionError("crowd-kit's class was fitted")


def test_small_fields_in_order_are_fitted_here_as_crowd_kit_fits_them() -> None:
    """Fields whose (worker, label) pairs come in order, none given more than twice (crowd-kit's sums of them take
    pandas' sorted path): fitted by fast_ds itself, never its fallback, to crowd-kit's posteriors bit for bit."""
    rng, tried = np.random.default_rng(8), 0
    crowd_kit = _without_package_inits("crowdkit.aggregation.classification.dawid_skene").DawidSkene
    # 20 fields (each crowd-kit fit ~40 ms of CPU): the fallback taken on all of them, or on a pair given twice (the
    # 6th, 11th and 15th), each still fails here
    while tried < 20:
        data = _small_field(rng)
        pair = _groups(pd.factorize(data["worker"])[0] * 3 + pd.factorize(data["label"])[0])[0]
        if len(pair) < 2 or not _in_order(pair) or np.bincount(pair).max() > 2:
            continue
        tried += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = crowd_kit(n_iter=100).fit(data)
        ours = DawidSkene(n_iter=100, fallback=_NotFitted).fit(data)
        assert list(ours.probas_.index) == list(theirs.probas_.index)
        assert list(ours.probas_.columns) == list(theirs.probas_.columns)
        assert ours.probas_.to_numpy().tobytes() == theirs.probas_.to_numpy(dtype=float).tobytes()
        assert len(ours.loss_history_) == len(theirs.loss_history_)
