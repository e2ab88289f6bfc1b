"""Adaptive overlap's budget spent where a judgement is expected to change an answer:
postprocess.answers.adaptive_budget.expected_gain and the replay's capped rounds. What the budget buys over even
overlap on the crowds below (a figure over 120 items at two seeds) is measured by ``make bench-suite-targets``
(bench/suite_measures.py ``budget_gain``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from postprocess.answers import adaptive_budget


def _crowd(seed: int, items: int = 120, per_item: int = 10, workers: int = 24, k: int = 4) -> pd.DataFrame:
    """Four labels; workers right 0.55-0.9 of the time on an ordinary item, pulled most of the way to chance on
    the 40% of items that are hard (where ten labels still settle the answer, and two or three do not)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(k, size=items)
    hard = rng.random(items) < 0.4
    skill = rng.uniform(0.55, 0.9, workers)
    rows = []
    for i in range(items):
        for w in rng.permutation(workers)[:per_item]:
            right = 0.25 + (skill[w] - 0.25) * (0.45 if hard[i] else 1.0)
            label = truth[i] if rng.random() < right else (truth[i] + rng.integers(1, k)) % k
            rows.append((f"i{i:03d}", f"w{w:02d}", f"c{label}", f"c{truth[i]}"))
    return pd.DataFrame(rows, columns=["item_id", "worker_id", "label", "gold"])


def _right(answers: pd.DataFrame, gold: pd.Series) -> int:
    return int((answers.set_index("item_id")["label"].reindex(gold.index) == gold).sum())


def test_expected_gain_against_the_posterior_worked_by_hand() -> None:
    """A newcomer right 4 times as often as they give any one other label (binary: right 0.8): at 0.5/0.5 one
    more makes the answer right 0.8 of the time (+0.3); at 0.9/0.1 one cannot change it, three can (all three
    against it: odds 9 x 4^-3, below 1; two against and one for leave 9 x 4^-1), at 0.99 none of three can."""
    posterior = np.array([[0.5, 0.5], [0.9, 0.1], [0.99, 0.01]])
    gain = adaptive_budget.expected_gain(posterior, 4.0, np.array([3, 3, 3]))
    # at 0.9/0.1, three more: the answer flips on three against it, right then with 0.1 x 0.8^3 against 0.9 x 0.2^3
    flips = 0.1 * 0.8**3 - 0.9 * 0.2**3
    assert gain == pytest.approx([0.3, flips / 3, 0.0], abs=1e-12)
    assert adaptive_budget.expected_gain(posterior, 4.0, np.array([1, 1, 1]))[1] == pytest.approx(0.0, abs=1e-12)


def test_a_round_asks_at_most_its_cap_the_largest_gain_first() -> None:
    asks = np.array([True, True, False, True, True])
    gain = np.array([0.1, 0.3, 0.9, 0.0, 0.3])
    assert adaptive_budget.by_gain(asks, gain, 2).tolist() == [False, True, False, False, True]
    assert adaptive_budget.by_gain(asks, gain, 9).tolist() == asks.tolist()
    assert not adaptive_budget.by_gain(asks, gain, 0).any()
    assert adaptive_budget.round_cap(100) == 5 and adaptive_budget.round_cap(10) == 1


def test_the_expected_gain_of_many_labels_is_bounded_and_unchanged_for_few() -> None:
    """97 label values: three judgements ahead are 156,849 outcomes a label, 45 GB for 400 items; the lookahead
    stops where the outcomes are past counting and items go in chunks. Four labels: the same figures as before."""
    from postprocess.answers import adaptive_budget

    rng = np.random.default_rng(0)
    wide = rng.dirichlet(np.ones(97), size=400)
    gain = adaptive_budget.expected_gain(wide, 3.0, np.full(400, 3))
    assert gain.shape == (400,) and np.isfinite(gain).all()
    few = rng.dirichlet(np.ones(4), size=50)
    whole = adaptive_budget.expected_gain(few, 3.0, np.full(50, 3))  # one chunk, as the gain was computed before
    saved = adaptive_budget.CHUNK_CELLS
    try:
        adaptive_budget.CHUNK_CELLS = 100  # a few items a chunk
        chunked = adaptive_budget.expected_gain(few, 3.0, np.full(50, 3))
    finally:
        adaptive_budget.CHUNK_CELLS = saved
    np.testing.assert_allclose(chunked, whole, rtol=1e-12)
