"""postprocess.answers.worker_coin and auto's third candidate: one accuracy a worker, shrunk toward the
crowd's, checked against the M-step written out and against the hidden truth of a simulated crowd."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from postprocess.answers import worker_coin
from postprocess.answers.aggregation import aggregate


def _coins(seed: int = 0, items: int = 400, workers: int = 60, per: int = 4) -> tuple[pd.DataFrame, pd.Series]:
    """Four classes, four labels an item from 60 workers (about 27 labels each) right 0.3-0.95 of the time, a slip
    to any other class: too few labels a worker for a 4x4 confusion, enough for one accuracy."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(4, size=items)
    skill = rng.uniform(0.3, 0.95, workers)
    rows = [(f"i{i:03d}", f"w{w}", "ABCD"[truth[i] if rng.random() < skill[w] else (truth[i] + rng.integers(1, 4)) % 4])
            for i in range(items) for w in rng.choice(workers, per, replace=False)]
    return (pd.DataFrame(rows, columns=["item_id", "worker_id", "label"]),
            pd.Series(["ABCD"[t] for t in truth], index=[f"i{i:03d}" for i in range(items)]))


def _codes(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (pd.factorize(frame["item_id"], sort=True)[0], pd.factorize(frame["worker_id"], sort=True)[0],
            pd.factorize(frame["label"], sort=True)[0])


def test_the_fit_is_its_m_steps_fixed_point() -> None:
    """Each worker's accuracy, recomputed label by label from the fitted posterior, is the fit's diagonal; the
    class prior is the labels' shares; an item nobody labelled is that prior."""
    frame, _ = _coins()
    items, workers, labels = _codes(frame)
    fitted = worker_coin.fit(items, workers, labels, items.max() + 2, workers.max() + 1, 4)  # one item unlabelled
    right = np.zeros(workers.max() + 1)
    given = np.zeros(workers.max() + 1)
    for i, w, y in zip(items, workers, labels, strict=True):
        right[w] += fitted.posterior[i, y]
        given[w] += 1
    crowd = right.sum() / given.sum()
    expected = (right + worker_coin.SHRINK * crowd) / (given + worker_coin.SHRINK)
    diagonal = np.einsum("wkk->wk", fitted.confusion)
    assert diagonal == pytest.approx(np.repeat(expected[:, None], 4, axis=1), abs=1e-4)  # EM stops at 1e-6
    assert fitted.prior == pytest.approx(np.bincount(labels) / len(labels))
    assert fitted.posterior[-1] == pytest.approx(fitted.prior)
    assert fitted.confusion.sum(axis=2) == pytest.approx(np.ones((workers.max() + 1, 4)))


def test_auto_chooses_worker_coin_where_a_worker_gives_a_few_dozen_labels_of_four_classes() -> None:
    """Judged on the labels alone, auto picks worker-coin here, and the hidden truth agrees: its answers beat
    majority vote's and Dawid-Skene's (which has twelve slip cells a worker to fit from ~27 labels)."""
    frame, truth = _coins()
    right = {m: float((aggregate(frame, m).answers.set_index("item_id")["label"].reindex(truth.index) == truth).mean())
             for m in ("mv", "ds", "auto")}
    answers = aggregate(frame).answers
    assert set(answers["method"]) == {"worker-coin"}
    assert answers.attrs["method_choice"]["label"].startswith("predicts held-out labels better")
    assert right["auto"] > right["mv"] > right["ds"]

