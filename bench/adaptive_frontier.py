"""How cheap can adaptive overlap match fixed overlap when every worker is a stranger?

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

``known_match``: the same bound when every worker's skill is known exactly as their judgement arrives (a
crowd of a few skills, ``cheapest_known``), the best any estimate of skills can do, against majority vote
of 5 and against 5 judgements weighed by the known skills. On MTurk-sim's honest crowd (seed 9's 1,000-item
campaign: its honest workers' accuracy against latent truth, in three equal thirds of their judgements,
0.80, 0.87 and 0.94), knowing skills cuts the share that matches majority vote of 5 (0.9883) from 54.1% to
50.6%, and matching the known-skill fixed overlap (0.9909) takes 54.0%: no stopping policy on that crowd
is as accurate as full-overlap Dawid-Skene at knowing skills for half the judgements
(``--known 0.80,0.87,0.94``).

``python -m bench.adaptive_frontier [--accuracies 0.72,0.77,0.78,0.8,0.83]`` prints one JSON line a
crowd: majority vote of 5, each confidence's accuracy and share of fixed overlap's judgements, and the
cheapest match.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
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


def cheapest_known(levels: tuple[float, ...], weights: tuple[float, ...], price: float, max_judgements: int,
                   k: int = 3) -> tuple[float, float]:
    """``cheapest_policy`` when each judgement's worker is known as it arrives: a worker right ``levels[j]`` of the
    time (slips spread evenly) comes with probability ``weights[j]``, and the posterior weighs each vote by its
    worker's accuracy (a crowd whose records are known exactly: the best any skill estimate can do). The state
    is the votes by (level, label); one level is ``cheapest_policy`` itself. A negative ``price`` never stops
    before ``max_judgements``: the accuracy of a fixed overlap aggregated with known skills."""
    share = [w / sum(weights) for w in weights]
    odds = [math.log(p) - math.log((1 - p) / (k - 1)) for p in levels]

    def posterior(counts: tuple[int, ...]) -> list[float]:
        scores = [sum(odds[j] * counts[j * k + i] for j in range(len(levels))) for i in range(k)]
        top = max(scores)
        like = [math.exp(s - top) for s in scores]
        return [x / sum(like) for x in like]

    @cache
    def go(counts: tuple[int, ...]) -> tuple[float, float, float]:  # (value, accuracy, judgements)
        post = posterior(counts)
        stop, n = max(post), float(sum(counts))
        if n >= max_judgements:
            return stop, stop, n
        value = accuracy = mean = 0.0
        for j, p in enumerate(levels):
            slip = (1 - p) / (k - 1)
            for i in range(k):
                chance = share[j] * sum(post[t] * (p if t == i else slip) for t in range(k))
                nxt = go(tuple(c + (m == j * k + i) for m, c in enumerate(counts)))
                value, accuracy, mean = value + chance * nxt[0], accuracy + chance * nxt[1], mean + chance * nxt[2]
        if stop >= value - price:
            return stop, stop, n
        return value - price, accuracy, mean

    _, accuracy, mean = go((0,) * (len(levels) * k))
    return accuracy, mean


def policy_frontier(p: float, max_judgements: int, k: int = 3) -> list[tuple[float, float]]:
    """The best policies' (accuracy, mean judgements) from cheapest to dearest: ``cheapest_policy`` at prices
    from 1e-4 to 0.5 a judgement (geometric steps of 5%) and at 0 (the most accurate policy: near-perfect
    crowds gain less than 1e-4 a judgement long before it), only those more accurate than every cheaper one."""
    return _frontier(lambda price: cheapest_policy(p, price, max_judgements, k))


def _frontier(best: Callable[[float], tuple[float, float]]) -> list[tuple[float, float]]:
    """``best(price)``'s points over policy_frontier's prices, cheapest first, each more accurate than the cheaper."""
    prices = [0.0, *(1e-4 * 1.05 ** i for i in range(int(math.log(5000) / math.log(1.05)) + 1))]
    points = sorted({best(price) for price in prices}, key=lambda t: (t[1], -t[0]))
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
    try:
        return {"majority_vote": round(target, 4), **_match(target, policy_frontier(p, max_judgements, k), fixed)}
    except ValueError as e:
        raise ValueError(f"no stopping policy of at most {max_judgements} judgements is as accurate as majority "
                         f"vote of {fixed} at {p}") from e


def _match(target: float, points: list[tuple[float, float]], fixed: int) -> dict[str, float]:
    """The cheapest frontier point at least ``target`` accurate, and the mix of the two around it (shares of
    ``fixed``); ValueError when no point is."""
    best = next(((a, n) for a, n in points if a >= target - 1e-12), None)
    if best is None:
        raise ValueError(f"no policy reaches {target}")
    below = [(a, n) for a, n in points if a < target - 1e-12]
    mixed = best[1]
    if below:
        low = below[-1]
        mixed = low[1] + (target - low[0]) / (best[0] - low[0]) * (best[1] - low[1])
    return {"policy_accuracy": round(best[0], 4), "policy_share": round(best[1] / fixed, 4),
            "mixed_share": round(mixed / fixed, 4)}


def known_match(levels: tuple[float, ...], weights: tuple[float, ...], fixed: int = 5, max_judgements: int = 6,
                k: int = 3) -> dict[str, object]:
    """What knowing every worker's skill is worth: the cheapest policies over a crowd of known skills
    (``cheapest_known``) that match majority vote of ``fixed`` (each judgement right the crowd's mean accuracy
    of the time: the vote ignores who gave it) and ``fixed`` judgements weighed by the known skills (the best
    full-overlap aggregation can do), beside ``matching_share`` for strangers of the crowd's mean accuracy
    (a stopping rule that ignores who judged). Shares of ``fixed``."""
    mean = sum(p * w for p, w in zip(levels, weights, strict=True)) / sum(weights)
    points = _frontier(lambda price: cheapest_known(levels, weights, price, max_judgements, k))
    weighed, _ = cheapest_known(levels, weights, -1.0, fixed, k)
    vote = majority_accuracy(mean, fixed, k)
    return {"levels": list(levels), "weights": list(weights), "mean_accuracy": round(mean, 4),
            "majority_vote": round(vote, 4), "known_skill_fixed": round(weighed, 4),
            "match_majority_vote": _match(vote, points, fixed),
            "match_known_skill_fixed": _match(weighed, points, fixed),
            "strangers_match_majority_vote": matching_share(mean, fixed, max_judgements, k)}


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
    p.add_argument("--known", default="", help="a crowd of known skills, e.g. 0.80,0.87,0.94 (equal shares): "
                   "print known_match for it instead (about 2 minutes for three skills)")
    a = p.parse_args()
    if a.known:
        levels = tuple(float(x) for x in a.known.split(","))
        print(json.dumps(known_match(levels, (1.0,) * len(levels))))
        return
    for accuracy in (float(x) for x in a.accuracies.split(",")):
        print(json.dumps(frontier(accuracy)))


if __name__ == "__main__":
    main()
