"""Adaptive overlap's budget (docs/explanation/adaptive-overlap.md); pure arrays."""

from __future__ import annotations

import math
from functools import cache
from itertools import combinations_with_replacement

import numpy as np

LOOKAHEAD = 3  # expected_gain looks up to this many judgements ahead (KG*: one label alone may not change an answer)
OUTCOME_CELLS = 2_000_000  # outcomes x labels past which a longer lookahead is not taken (97 labels: 3 ahead is 15M)
CHUNK_CELLS = 20_000_000  # items x outcomes x labels held at once (160 MB of floats)
# with a budget under the whole file, a round asks at most this share of the items
ROUND_SHARE = 0.05


def limit(share: float | None, available: np.ndarray) -> int | None:
    """The judgements ``share`` of ``available`` (each item's in the file) allows; None: no budget."""
    return None if share is None else int(share * float(available.sum()))


def paid(allowed: int | None, min_judgements: int, available: np.ndarray) -> int | None:
    """The budget in judgements: ``allowed``, raised to what ``min_judgements`` an item costs."""
    if allowed is None:
        return None
    return max(allowed, int(np.minimum(available, min_judgements).sum()))


def budget_said(share: float | None, allowed: int | None, spent: int, min_judgements: int, raised: bool,
                uncertain: int | None) -> dict[str, object]:
    """The summary's ``budget``: share asked, judgements allowed and spent, whether raised, items cut."""
    return {"share": share, "judgements_allowed": allowed, "judgements_spent": spent,
            "min_judgements": min_judgements, "raised_to_pay_min_judgements": raised,
            "items_cut_while_uncertain": uncertain}


def within(asks: np.ndarray, confidence: np.ndarray, left: int, nearest_first: bool = False) -> np.ndarray:
    """``asks`` cut to ``left`` of them: lowest ``confidence`` first (``nearest_first``: highest)."""
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
    """Judgements one round may ask with a budget: ROUND_SHARE of the items, at least one."""
    return max(1, int(ROUND_SHARE * items))


def by_gain(asks: np.ndarray, gain: np.ndarray, left: int) -> np.ndarray:
    """``asks`` cut to ``left`` of them, the largest ``gain`` first (ties in order)."""
    return within(asks, gain, left, nearest_first=True)


def expected_gain(posterior: np.ndarray, vote_ratio: float, remaining: np.ndarray) -> np.ndarray:
    """Per item (rows of ``posterior``): the expected rise per judgement of P(its answer is right) (KG*)."""
    items, k = posterior.shape
    now = posterior.max(axis=1)
    best = np.zeros(items)
    log_ratio, log_norm = np.log(vote_ratio), np.log(vote_ratio + k - 1)
    for r in range(1, LOOKAHEAD + 1):
        if r > 1 and math.comb(k + r - 1, r) * k > OUTCOME_CELLS:  # many labels: r outcomes are past counting
            break
        counts, log_multinomial = outcomes(r, k)  # outcomes x labels; each outcome's log multinomial coefficient
        # log P(n | c) = log multinomial(n) + n_c log ratio - r log(ratio + k - 1): outcomes x true labels
        likelihood = np.exp(log_multinomial[:, None] + counts * log_ratio - r * log_norm)
        step = max(1, CHUNK_CELLS // likelihood.size)  # items at a time: items x outcomes x labels stays bounded
        right = np.concatenate([(posterior[i:i + step, None, :] * likelihood[None]).max(axis=2).sum(axis=1)
                                for i in range(0, items, step)]) if items else np.zeros(0)
        best = np.where(remaining >= r, np.maximum(best, (right - now) / r), best)
    return best


@cache
def outcomes(r: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every count of ``r`` judgements over ``k`` labels, and the log of its multinomial coefficient."""
    counts = np.array([np.bincount(np.array(c, dtype=int), minlength=k)
                       for c in combinations_with_replacement(range(k), r)], dtype=float)
    coefficient = [math.lgamma(r + 1) - sum(math.lgamma(n + 1) for n in row) for row in counts]
    return counts, np.array(coefficient)
