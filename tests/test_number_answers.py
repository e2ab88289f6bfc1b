"""Number and slider answers (postprocess/answers/number_answers.py) against independent computations: numpy's
median, scipy's exact order-statistic interval for the median (``scipy.stats.quantile_test``), the interval's
coverage on simulated items, and each worker's bias on a crowd whose biases are known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from postprocess.answers.number_answers import joined, median_interval, number_answers, shown


def _frame(values: dict[str, list[tuple[str, float]]], field: str = "quality") -> pd.DataFrame:
    return pd.DataFrame([(item, worker, field, v) for item, rows in values.items() for worker, v in rows],
                        columns=["item_id", "worker_id", "field", "value"])


@pytest.mark.parametrize("n", [6, 7, 9, 12, 20, 41])
def test_interval_is_scipys_exact_order_statistic_interval(n: int) -> None:
    values = np.random.default_rng(n).normal(4, 1.5, n)  # no ties: x(k) names k
    low, high, coverage = median_interval(values)
    ci = stats.quantile_test(values, q=float(np.median(values)), p=0.5).confidence_interval(0.95)
    assert (low, high) == pytest.approx((ci.low, ci.high), abs=1e-9)
    k = int(np.searchsorted(np.sort(values), low, side="left")) + 1  # low is x(k)
    assert coverage == pytest.approx(1 - 2 * stats.binom.cdf(k - 1, n, 0.5), abs=1e-12)
    assert coverage >= 0.95


@pytest.mark.parametrize(("n", "coverage"), [(1, 0.0), (2, 0.5), (3, 0.75), (5, 0.9375)])
def test_too_few_answers_give_the_range_and_say_what_it_covers(n: int, coverage: float) -> None:
    values = np.arange(1.0, n + 1)
    assert median_interval(values) == pytest.approx((1.0, float(n), coverage), abs=1e-12)


def test_the_interval_covers_the_true_median_as_often_as_it_says() -> None:
    """2,000 items of 9 answers from a skewed crowd (a slider dragged to the ends now and then)."""
    rng = np.random.default_rng(7)
    # the 1s and 100s fall on either side of the gamma's median (about 36.7) in equal shares, so the mixture's
    # median is the gamma's
    truth = stats.gamma(4, scale=10).median()
    hits, said = [], []
    for _ in range(2000):
        values = np.where(rng.random(9) < 0.15, rng.choice([1.0, 100.0], 9), rng.gamma(4, 10, 9))
        low, high, coverage = median_interval(values)
        hits.append(low <= truth <= high)
        said.append(coverage)
    assert np.mean(hits) == pytest.approx(np.mean(said), abs=0.02) and np.mean(said) >= 0.95


def test_answers_are_numpys_median_per_item_and_field() -> None:
    frame = pd.concat([_frame({"a": [("w1", 1), ("w2", 7), ("w3", 2)], "b": [("w1", 5), ("w2", 6)]}),
                       _frame({"a": [("w1", 10), ("w2", 30)]}, field="age")], ignore_index=True)
    answers = number_answers(frame).answers.set_index(["field", "item_id"])
    assert answers.loc[("quality", "a"), "label"] == "2"
    assert answers.loc[("quality", "b"), "label"] == "5.5"
    assert answers.loc[("age", "a"), ["label", "low", "high", "judgements"]].tolist() == ["20", "10", "30", 2]
    assert answers.loc[("quality", "a"), "coverage"] == 0.75


def test_a_repeated_answer_counts_once_the_last() -> None:
    answers = number_answers(_frame({"a": [("w1", 1), ("w1", 6), ("w2", 7), ("w3", 5)]})).answers
    assert answers.loc[0, "label"] == "6" and answers.loc[0, "judgements"] == 3


def test_worker_bias_recovers_known_biases_and_shrinks_the_few() -> None:
    """150 workers, 300 items, 5 answers an item (10 a worker): each worker's true bias drawn from N(0, 0.5),
    noise sd 1. The shrunk bias is nearer the truth than the raw offset, and a worker with 2 answers is pulled
    toward 0 more than one with 10."""
    rng = np.random.default_rng(3)
    workers = [f"w{k:03d}" for k in range(150)]
    truth = dict(zip(workers, rng.normal(0, 0.5, 150), strict=True))
    rows = []
    for item in range(300):
        centre = rng.uniform(2, 6)
        for w in rng.choice(workers, 5, replace=False):
            rows.append((f"i{item}", w, "quality", centre + truth[w] + rng.normal(0, 1)))
    rows += [(i, "few", "quality", np.median([r[3] for r in rows if r[0] == i]) + 2.0) for i in ("i0", "i1")]
    found = number_answers(pd.DataFrame(rows, columns=["item_id", "worker_id", "field", "value"])).workers
    found = found.set_index("worker_id")
    known = found.loc[workers]
    true = pd.Series(truth)[workers]
    # an offset is against the others' median, which carries their biases too: compare centred
    err_bias = ((known["bias"] - known["bias"].mean()) - (true - true.mean())).pow(2).mean()
    err_raw = ((known["offset"] - known["offset"].mean()) - (true - true.mean())).pow(2).mean()
    assert err_bias < 0.8 * err_raw and np.corrcoef(known["bias"], true)[0, 1] > 0.6
    few = found.loc["few", "bias"] / found.loc["few", "offset"]
    assert found.loc["few", "answers"] == 2 and 0 < few < (known["bias"] / known["offset"]).min()


def test_an_unbiased_crowd_shows_no_bias() -> None:
    rng = np.random.default_rng(5)
    rows = [(f"i{i}", f"w{w}", "q", 50 + rng.normal(0, 5)) for i in range(200) for w in rng.choice(30, 4, False)]
    found = number_answers(pd.DataFrame(rows, columns=["item_id", "worker_id", "field", "value"])).workers
    assert found["bias"].abs().max() < 0.5 * found["offset"].abs().max()


def test_joined_answers_keep_each_kinds_columns() -> None:
    choice = pd.DataFrame({"item_id": ["a"], "field": ["sentiment"], "label": ["good"], "confidence": [0.9],
                           "method": ["mv"], "judgements": [3], "posterior": [1.0], "confidence_source": ["model"],
                           "note": [""]})
    people = pd.DataFrame({"worker_id": ["w1", "w9"], "skill": [0.8, 0.7], "items": [1, 1]})
    numbers = number_answers(_frame({"a": [("w1", 1), ("w2", 3)]}))
    answers, workers = joined(choice, people, numbers)
    assert list(answers.columns) == ["item_id", "field", "label", "confidence", "low", "high", "coverage", "method",
                                     "judgements", "posterior", "confidence_source", "note"]
    assert answers["label"].tolist() == ["good", "2"] and pd.isna(answers.loc[1, "confidence"])
    assert workers["worker_id"].tolist() == ["w1", "w2", "w9"]
    assert workers.set_index("worker_id").loc["w2", "items"] == 0
    assert workers.set_index("worker_id").loc["w9", "numbers_quality"] == 0


@pytest.mark.parametrize(("value", "text"), [(4.0, "4"), (3.5, "3.5"), (-2.0, "-2"), (1 / 3, "0.333333")])
def test_numbers_are_written_as_a_person_reads_them(value: float, text: str) -> None:
    assert shown(value) == text
