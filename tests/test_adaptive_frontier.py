"""bench.adaptive_frontier: the exact accuracy and cost of the stopping rule over strangers."""

from __future__ import annotations

import itertools

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


def _simulated(p: float, confidence: float, low: int, high: int, settled: bool, items: int = 200_000,
               seed: int = 7) -> tuple[float, float]:
    """Monte Carlo of the same rule with a plain vote-count posterior, an independent check: every item
    one judgement a step until its rule stops it (numpy over the items: 0.7 -> 0.2 s of CPU a call)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    slip = (1 - p) / 2
    counts = np.zeros((items, 3), dtype=np.int64)  # votes for the right label, then the two wrong ones
    going = np.ones(items, dtype=bool)
    while going.any():
        n = counts.sum(axis=1)
        like = p ** counts * slip ** (n[:, None] - counts)
        top = -np.sort(-counts, axis=1)
        sure = like.max(axis=1) / like.sum(axis=1) >= confidence - 1e-12
        going &= ~((n >= high) | ((n >= low) & (sure | (settled & (top[:, 0] - top[:, 1] >= high - n)))))
        draw = rng.random(items)
        label = np.where(draw < p, 0, np.where(draw < p + slip, 1, 2))
        asked = np.flatnonzero(going)
        counts[asked, label[asked]] += 1
    best = counts == counts.max(axis=1, keepdims=True)  # a tie is right for its share of the tied labels
    return float((best[:, 0] / best.sum(axis=1)).sum() / items), float(counts.sum() / items)


@pytest.mark.parametrize(("p", "confidence", "high"), [(0.77, 0.95, 6), (0.77, 0.97, 7), (0.85, 0.95, 5)])
def test_settled_items_stop_sooner_at_the_same_accuracy(p: float, confidence: float, high: int) -> None:
    plain, plain_mean = threshold_rule(p, confidence, 2, high)
    settled, settled_mean = threshold_rule(p, confidence, 2, high, settled=True)
    assert settled == pytest.approx(plain, abs=1e-12) and settled_mean < plain_mean
    accuracy, mean = _simulated(p, confidence, 2, high, settled=True)
    assert accuracy == pytest.approx(settled, abs=0.004) and mean == pytest.approx(settled_mean, abs=0.01)


def test_the_settled_rule_is_the_cheapest_policy_of_all_at_its_accuracy() -> None:
    """Strangers right 77% of the time, at most 6: the best policy of all (dynamic programming over vote
    counts, priced per judgement) at the settled rule's accuracy costs what the settled rule costs, and the
    rule before settling cost more for the same accuracy."""
    from bench.adaptive_frontier import cheapest_policy

    settled, settled_mean = threshold_rule(0.77, 0.95, 2, 6, settled=True)
    _, plain_mean = threshold_rule(0.77, 0.95, 2, 6)
    best = {cheapest_policy(0.77, price / 2000, 6) for price in range(1, 200)}  # the frontier's corners
    corner = [mean for accuracy, mean in best if accuracy == pytest.approx(settled, abs=1e-9)]
    assert corner and min(corner) == pytest.approx(settled_mean, abs=1e-9) and settled_mean < plain_mean - 0.05
    # no policy of all is as accurate for fewer judgements
    assert all(mean >= settled_mean - 1e-9 for accuracy, mean in best if accuracy >= settled - 1e-9)


@pytest.mark.parametrize("p", [0.75, 0.78, 0.82])
def test_the_cheapest_match_of_majority_vote_beats_every_threshold_rule(p: float) -> None:
    """No confidence of the settled rule is as accurate as majority vote of 5 for fewer judgements than
    ``matching_share``'s single policy, and a mix of two policies costs no more than that policy."""
    from bench.adaptive_frontier import matching_share

    match = matching_share(p)
    assert match["policy_accuracy"] >= match["majority_vote"] and match["mixed_share"] <= match["policy_share"]
    shares = [mean / 5 for accuracy, mean in (threshold_rule(p, c / 100, 2, 6, settled=True) for c in range(80, 100))
              if accuracy >= majority_accuracy(p, 5) - 1e-9]
    assert shares and min(shares) >= match["policy_share"] - 1e-4


def test_the_mix_lands_on_majority_votes_accuracy_by_hand() -> None:
    """The mix is the line between the two frontier policies around majority vote's accuracy."""
    from bench.adaptive_frontier import matching_share, policy_frontier

    points = policy_frontier(0.78, 6)
    assert all(a1 < a2 and n1 < n2 for (a1, n1), (a2, n2) in itertools.pairwise(points))  # cheaper is worse
    target = majority_accuracy(0.78, 5)
    (a_lo, n_lo), (a_hi, n_hi) = next((lo, hi) for lo, hi in itertools.pairwise(points) if lo[0] < target <= hi[0])
    share = (n_lo + (n_hi - n_lo) * (target - a_lo) / (a_hi - a_lo)) / 5
    assert matching_share(0.78)["mixed_share"] == pytest.approx(share, abs=1e-4)
    assert 0.5 < share < matching_share(0.78)["policy_share"]


def test_the_cheapest_match_of_a_near_perfect_crowd_and_an_impossible_one() -> None:
    """At 0.99 a judgement majority vote of 5 is reached only by policies dearer than the cheapest price
    the frontier tried (1e-4 a judgement): the most accurate policy (price 0) closes the frontier. With
    fewer judgements allowed than majority vote takes, no policy matches it: a one-line error, not
    StopIteration."""
    from bench.adaptive_frontier import matching_share

    match = matching_share(0.99)
    assert match["policy_accuracy"] >= match["majority_vote"] and match["mixed_share"] <= match["policy_share"] <= 1.2
    with pytest.raises(ValueError, match="no stopping policy of at most 3 judgements"):
        matching_share(0.78, max_judgements=3)


@pytest.mark.parametrize("price", [0.002, 0.01, 0.05])
def test_a_crowd_of_one_known_skill_is_a_crowd_of_strangers(price: float) -> None:
    """Known skills all alike say nothing a stranger's would not: the same best policy, cost and accuracy."""
    from bench.adaptive_frontier import cheapest_known, cheapest_policy

    known = cheapest_known((0.8,), (1.0,), price, 6)
    assert known == pytest.approx(cheapest_policy(0.8, price, 6), abs=1e-12)


def _weighed_by_hand(levels: tuple[float, ...], weights: tuple[float, ...], n: int) -> float:
    """Every sequence of ``n`` (worker level, label) draws, truth label 0, answered by the votes weighed by the
    known skills (log odds of right over one slip), ties shared: an independent count of cheapest_known's
    fixed-overlap accuracy."""
    import math

    share = [w / sum(weights) for w in weights]
    total = 0.0
    for draws in itertools.product(range(len(levels)), range(3), repeat=n):
        pairs = list(zip(draws[::2], draws[1::2], strict=True))
        chance = math.prod(share[j] * (levels[j] if i == 0 else (1 - levels[j]) / 2) for j, i in pairs)
        odds = [math.log(levels[j] / ((1 - levels[j]) / 2)) for j, _ in pairs]
        scores = [sum(o for o, (_, i) in zip(odds, pairs, strict=True) if i == label) for label in range(3)]
        best = [label for label in range(3) if math.isclose(scores[label], max(scores), abs_tol=1e-12)]
        total += chance * (1 / len(best) if 0 in best else 0.0)
    return total


def test_fixed_overlap_weighed_by_known_skills_by_hand() -> None:
    """A negative price never stops early: three judgements from a crowd of two known skills, weighed by them,
    are right as often as the enumeration by hand; one skill alone is majority vote."""
    from bench.adaptive_frontier import cheapest_known

    accuracy, mean = cheapest_known((0.7, 0.95), (2.0, 1.0), -1.0, 3)
    by_hand = _weighed_by_hand((0.7, 0.95), (2.0, 1.0), 3)
    assert mean == pytest.approx(3) and accuracy == pytest.approx(by_hand, abs=1e-12)
    assert cheapest_known((0.8,), (1.0,), -1.0, 5)[0] == pytest.approx(majority_accuracy(0.8, 5), abs=1e-12)


def test_knowing_who_judged_is_never_dearer_than_strangers() -> None:
    """A crowd of two skills: the best policy that knows each judgement's worker matches majority vote of 5
    for no more than the best that does not (strangers of the crowd's mean accuracy: it is one of the
    policies the known crowd could follow, on the same judgements), and matching the known-skill fixed
    overlap, which is more accurate than majority vote, costs more than matching the vote."""
    from bench.adaptive_frontier import known_match

    match = known_match((0.75, 0.95), (1.0, 1.0), max_judgements=5)
    assert match["mean_accuracy"] == pytest.approx(0.85)
    assert match["known_skill_fixed"] > match["majority_vote"]
    assert match["match_majority_vote"]["mixed_share"] <= match["strangers_match_majority_vote"]["mixed_share"] + 1e-9
    assert match["match_majority_vote"]["mixed_share"] < match["match_known_skill_fixed"]["mixed_share"]
