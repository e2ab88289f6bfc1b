"""How cheap can adaptive overlap match fixed overlap when every worker is a stranger? (issue 43)

On Prolific-sim no participant builds a record (one place a study), so an item's judgements are, to
the stopping rule, draws from one crowd: each right with the crowd's accuracy ``p``, a slip any other
of the ``k`` labels alike. Then an item's posterior depends on its vote counts only, and every rule of
the stopping family (stop once the leading label's probability reaches ``confidence``, between ``min``
and ``max`` judgements) is one of a few count rules. This computes, exactly (every sequence of votes),
each rule's accuracy and mean judgements an item against majority vote over a fixed ``n``, with and
without stopping settled items (``stop_when_settled``: when the judgements an item may still take could
at best tie its leader, e.g. a lead of one with one left, they cannot change its answer: same accuracy,
fewer judgements).

``cheapest_match``: the least any stopping policy of all (not only threshold rules) spends to be as
accurate as majority vote of 5, the bound a campaign on such a crowd can approach and not beat.

``python -m bench.adaptive_frontier [--accuracies 0.72,0.77,0.78,0.8,0.83]`` prints one JSON line a
crowd: majority vote of 5, each confidence's accuracy and share of fixed overlap's judgements, and the
cheapest match.
"""

from __future__ import annotations

import argparse
import json
import math
from functools import cache

CONFIDENCES = (0.85, 0.9, 0.95, 0.97, 0.99)


def _posterior(p: float, k: int, counts: tuple[int, ...]) -> list[float]:
    """Each label's probability given its votes, classes alike, one coin ``p`` for every judgement."""
    slip = (1 - p) / (k - 1)
    n = sum(counts)
    like = [p ** c * slip ** (n - c) for c in counts]
    return [x / sum(like) for x in like]


def _right_share(scores: list[float] | tuple[int, ...]) -> float:
    """The chance label 0 (the truth, by symmetry) is the answer: ties broken at random."""
    best = max(scores)
    ties = [i for i, s in enumerate(scores) if math.isclose(s, best, rel_tol=1e-12)]
    return 1 / len(ties) if 0 in ties else 0.0


def majority_accuracy(p: float, n: int, k: int = 3) -> float:
    """Majority vote of ``n`` judgements (ties at random): the chance it is the truth."""
    slip = (1 - p) / (k - 1)

    def spread(left: int, labels: int) -> list[tuple[int, ...]]:
        if labels == 1:
            return [(left,)]
        return [(c, *rest) for c in range(left + 1) for rest in spread(left - c, labels - 1)]

    return sum(math.factorial(n) / math.prod(math.factorial(c) for c in counts) * p ** counts[0]
               * slip ** (n - counts[0]) * _right_share(counts) for counts in spread(n, k))


def threshold_rule(p: float, confidence: float, min_judgements: int, max_judgements: int,
                   k: int = 3, settled: bool = False) -> tuple[float, float]:
    """(accuracy, mean judgements an item) of the stopping rule over strangers of accuracy ``p``;
    ``settled``: an item also stops once the judgements left could at best tie its leader."""
    slip = (1 - p) / (k - 1)

    @cache
    def go(counts: tuple[int, ...]) -> tuple[float, float]:
        n = sum(counts)
        post = _posterior(p, k, counts)
        top = sorted(counts, reverse=True)
        tie_at_best = settled and top[0] - top[1] >= max_judgements - n
        if n >= max_judgements or (n >= min_judgements and (max(post) >= confidence - 1e-12 or tie_at_best)):
            return _right_share(post), float(n)
        nexts = [go(tuple(c + (i == j) for j, c in enumerate(counts))) for i in range(k)]
        weights = [p, *([slip] * (k - 1))]
        return (sum(w * a for w, (a, _) in zip(weights, nexts, strict=True)),
                sum(w * m for w, (_, m) in zip(weights, nexts, strict=True)))

    return go((0,) * k)


def cheapest_policy(p: float, price: float, max_judgements: int, k: int = 3) -> tuple[float, float]:
    """(accuracy, mean judgements an item) of the best stopping policy of all, not only threshold rules: by
    dynamic programming over vote counts, stop where the accuracy of stopping is at least that of going on
    less ``price`` a judgement (the chance of the next label from the current posterior)."""
    slip = (1 - p) / (k - 1)

    @cache
    def go(counts: tuple[int, ...]) -> tuple[float, float, float]:  # (value, accuracy, judgements)
        post = _posterior(p, k, counts)
        stop = max(post)  # the chance the answer is right, by the posterior (the chances below are predictive)
        if sum(counts) >= max_judgements:
            return stop, stop, float(sum(counts))
        chances = [sum(post[t] * (p if t == i else slip) for t in range(k)) for i in range(k)]
        nexts = [go(tuple(c + (i == j) for j, c in enumerate(counts))) for i in range(k)]
        value = sum(w * n[0] for w, n in zip(chances, nexts, strict=True)) - price
        if stop >= value:
            return stop, stop, float(sum(counts))
        return (value, sum(w * n[1] for w, n in zip(chances, nexts, strict=True)),
                sum(w * n[2] for w, n in zip(chances, nexts, strict=True)))

    _, accuracy, mean = go((0,) * k)
    return accuracy, mean


def policy_frontier(p: float, max_judgements: int, k: int = 3) -> list[tuple[float, float]]:
    """The best policies' (accuracy, mean judgements) from cheapest to dearest: ``cheapest_policy`` at prices
    from 1e-4 to 0.5 a judgement (geometric steps of 5%) and at 0 (the most accurate policy: near-perfect
    crowds gain less than 1e-4 a judgement long before it), only those more accurate than every cheaper one."""
    prices = [0.0, *(1e-4 * 1.05 ** i for i in range(int(math.log(5000) / math.log(1.05)) + 1))]
    points = sorted({cheapest_policy(p, price, max_judgements, k) for price in prices}, key=lambda t: (t[1], -t[0]))
    kept: list[tuple[float, float]] = []
    for accuracy, mean in points:
        if not kept or accuracy > kept[-1][0]:
            kept.append((accuracy, mean))
    return kept


def matching_share(p: float, fixed: int = 5, max_judgements: int = 6, k: int = 3) -> dict[str, float]:
    """The fewest judgements (a share of ``fixed`` an item) any stopping policy needs to be as accurate as
    majority vote over ``fixed`` strangers: the cheapest single policy, and a mix of the two frontier
    policies around that accuracy (a coin per item picks which: accuracy and cost mix linearly)."""
    target = majority_accuracy(p, fixed, k)
    points = policy_frontier(p, max_judgements, k)
    best = next(((a, n) for a, n in points if a >= target - 1e-12), None)
    if best is None:
        raise ValueError(f"no stopping policy of at most {max_judgements} judgements is as accurate as majority "
                         f"vote of {fixed} at {p}")
    below = [(a, n) for a, n in points if a < target - 1e-12]
    mixed = best[1]
    if below:
        low = below[-1]
        mixed = low[1] + (target - low[0]) / (best[0] - low[0]) * (best[1] - low[1])
    return {"majority_vote": round(target, 4), "policy_accuracy": round(best[0], 4),
            "policy_share": round(best[1] / fixed, 4), "mixed_share": round(mixed / fixed, 4)}


def frontier(p: float, fixed: int = 5, min_judgements: int = 2, max_judgements: int = 6) -> dict[str, object]:
    rules = {}
    for confidence in CONFIDENCES:
        accuracy, mean = threshold_rule(p, confidence, min_judgements, max_judgements)
        settled, settled_mean = threshold_rule(p, confidence, min_judgements, max_judgements, settled=True)
        rules[str(confidence)] = {"accuracy": round(accuracy, 4), "share": round(mean / fixed, 4),
                                  "settled_accuracy": round(settled, 4),
                                  "settled_share": round(settled_mean / fixed, 4)}
    return {"crowd_accuracy": p, "fixed": fixed, "majority_vote": round(majority_accuracy(p, fixed), 4),
            "min_judgements": min_judgements, "max_judgements": max_judgements, "rules": rules,
            "cheapest_match": matching_share(p, fixed, max_judgements)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--accuracies", default="0.72,0.77,0.78,0.8,0.83", help="the crowd's accuracy per judgement")
    a = p.parse_args()
    for accuracy in (float(x) for x in a.accuracies.split(",")):
        print(json.dumps(frontier(accuracy)))


if __name__ == "__main__":
    main()
