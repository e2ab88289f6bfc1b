"""Adaptive overlap's budget (issue 66): at most a share of the judgements the file holds, spent where a label is
likeliest to matter. Pure arrays, in the order of the replay's items and fields (postprocess.answers.adaptive.replay).

The rule, with ``StoppingRule.budget`` (``hitflow aggregate --adaptive``'s default: half):

1. every item gets ``min_judgements`` (fewer, at least one, where the budget cannot pay them for every item);
2. each round, every item whose answer is still uncertain (confidence under ``confidence``, and not settled) takes
   one more judgement; when the budget left cannot pay them all, the least sure answers are served first (the label
   likeliest to change an answer is one on an answer near a tie);
3. once no answer is uncertain, what the budget has left serves ``budget_confidence``: answers between
   ``confidence`` and it take more judgements, those nearest it first (the fewest judgements finish them), until
   the budget is spent or none is left under it.

Why a budget rather than a higher confidence: one target did not fit every crowd. At 0.99 Snow 2008's TEMP
stopped with 35.9% of its judgements one item short of majority vote, at 0.997 RTE needed 51.6%; crowds of
the held-out sets' shapes (bench/crowd_shapes.py) took 65-85% at 0.99. The budget keeps every crowd within half
the judgements, and the second target spends the half where the first left it unspent: RTE 0.9250 with 50.0%,
TEMP 0.9437 with 40.8%, WSD 0.9944 with 30.7%, each full majority vote's accuracy (docs/reference/outputs.md has
every figure). The two orders were compared with the others on these sets, where the others moved RTE or a
108-item synthetic crowd by one or two items: near-even answers gain most from a label while answers are
uncertain; once all are past the first target, those nearest the second are the ones a label or two finishes.
Where the budget binds, a crowd that needs more than half its labels for majority vote's accuracy gets less
accuracy, not more labels (``--budget 1`` lifts it). A live campaign's rounds have no budget (they stop at
``max_judgements``: postprocess.answers.extension_rounds).
"""

from __future__ import annotations

import math
from functools import cache
from itertools import combinations_with_replacement

import numpy as np

LOOKAHEAD = 3  # expected_gain looks up to this many judgements ahead (KG*: one label alone may not change an answer)
ROUND_SHARE = 0.25  # with a budget under the whole file, a round asks at most this share of the items


def limit(share: float | None, available: np.ndarray) -> int | None:
    """The judgements ``share`` of ``available`` (each item's in the file) allows; None: no budget."""
    return None if share is None else int(share * float(available.sum()))


def first_round(min_judgements: int, items: int, allowed: int | None) -> int:
    """Judgements every item gets first: ``min_judgements``, fewer where the budget cannot pay them for every
    item (at least one)."""
    if allowed is None or items == 0:
        return min_judgements
    return max(1, min(min_judgements, allowed // items))


def within(asks: np.ndarray, confidence: np.ndarray, left: int, nearest_first: bool = False) -> np.ndarray:
    """``asks`` cut to ``left`` of them: the lowest ``confidence`` first, or with ``nearest_first`` the highest
    (ties in order)."""
    if asks.sum() <= left:
        return asks
    out = np.zeros_like(asks)
    if left <= 0:
        return out
    asking = np.flatnonzero(asks)
    order = np.argsort(-confidence[asking] if nearest_first else confidence[asking], kind="stable")
    out[asking[order[:left]]] = True
    return out


def round_cap(items: int) -> int:
    """Judgements one round may ask with a budget: ROUND_SHARE of the items, at least one. Why a cap: a round
    asked of every uncertain item spends the budget almost evenly (four-label crowds are uncertain almost
    everywhere for several rounds); capped, each round's gains are read again before the next is spent."""
    return max(1, int(ROUND_SHARE * items))


def by_gain(asks: np.ndarray, gain: np.ndarray, left: int) -> np.ndarray:
    """``asks`` cut to ``left`` of them, the largest ``gain`` first (ties in order)."""
    if asks.sum() <= left:
        return asks
    out = np.zeros_like(asks)
    if left <= 0:
        return out
    asking = np.flatnonzero(asks)
    out[asking[np.argsort(-gain[asking], kind="stable")[:left]]] = True
    return out


def expected_gain(posterior: np.ndarray, vote_ratio: float, remaining: np.ndarray,
                  lookahead: int = LOOKAHEAD) -> np.ndarray:
    """Per item (rows of ``posterior``, items x labels, each row a distribution): how much the probability that
    its answer is right is expected to rise per judgement, over the best of 1 to ``lookahead`` more judgements
    (at most ``remaining``), each from a worker not yet known who gives the true label ``vote_ratio`` times as
    often as any one other label. After ``r`` more with counts ``n``, the answer is the label of the largest
    ``p_c P(n | c)``, so the expected probability of being right is ``sum_n max_c p_c P(n | c)``; its rise over
    ``max_c p_c``, divided by ``r`` (the knowledge gradient and its KG* form: see the module)."""
    items, k = posterior.shape
    now = posterior.max(axis=1)
    best = np.zeros(items)
    log_ratio, log_norm = np.log(vote_ratio), np.log(vote_ratio + k - 1)
    for r in range(1, lookahead + 1):
        counts, log_multinomial = outcomes(r, k)  # outcomes x labels; each outcome's log multinomial coefficient
        # log P(n | c) = log multinomial(n) + n_c log ratio - r log(ratio + k - 1): outcomes x true labels
        likelihood = np.exp(log_multinomial[:, None] + counts * log_ratio - r * log_norm)
        right = (posterior[:, None, :] * likelihood[None]).max(axis=2).sum(axis=1)
        best = np.where(remaining >= r, np.maximum(best, (right - now) / r), best)
    return best


@cache
def outcomes(r: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every count of ``r`` judgements over ``k`` labels (outcomes x labels) and the log of its multinomial
    coefficient (math.lgamma: scipy.special would load scipy into every `hitflow aggregate`)."""
    counts = np.array([np.bincount(np.array(c, dtype=int), minlength=k)
                       for c in combinations_with_replacement(range(k), r)], dtype=float)
    coefficient = [math.lgamma(r + 1) - sum(math.lgamma(n + 1) for n in row) for row in counts]
    return counts, np.array(coefficient)
