"""bench.adaptive_frontier: the exact accuracy and cost of the stopping rule over strangers (issue 43)."""

from __future__ import annotations

import pytest

from bench.adaptive_frontier import majority_accuracy, threshold_rule


def test_majority_of_three_by_hand() -> None:
    # p 0.8, a slip 0.1 each other label: two or three right, or 1-1-1 with one right broken at random
    assert majority_accuracy(0.8, 3) == pytest.approx(0.8 ** 3 + 3 * 0.8 ** 2 * 0.2 + 6 * 0.8 * 0.1 * 0.1 / 3)
    assert majority_accuracy(0.8, 1) == pytest.approx(0.8)


@pytest.mark.parametrize("p", [0.6, 0.77, 0.9])
def test_a_rule_that_never_stops_early_is_majority_vote(p: float) -> None:
    accuracy, mean = threshold_rule(p, 1.0 + 1e-9, 5, 5)
    assert mean == 5 and accuracy == pytest.approx(majority_accuracy(p, 5))


def test_two_agreeing_stop_at_a_low_confidence_by_hand() -> None:
    # at most two: both right 0.64; one right and one slip (2 x 0.8 x 0.1, either slip) a 1-1 tie, half right
    accuracy, mean = threshold_rule(0.8, 0.95, 2, 2)
    assert mean == 2 and accuracy == pytest.approx(0.64 + 0.5 * (2 * 0.8 * 0.1 * 2))
    # p 0.8: two agreeing read 0.64 / (0.64 + 2 * 0.01) = 0.97, so at 0.95 they stop and a split goes on
    _, cheaper = threshold_rule(0.8, 0.95, 2, 6)
    _, dearer = threshold_rule(0.8, 0.99, 2, 6)
    assert 2 < cheaper < dearer
