"""Can any allocation reach full-overlap majority vote within half the judgements? An oracle bound.

For each item, in the file's order: the fewest of its first judgements whose majority (a unique leader) is the
expert answer. An oracle that knew these counts would buy the cheapest right items first; with half the
file's judgements (every item at least one) the share it gets right bounds what any allocation of that file's
judgements, answered by majority vote over each item's first ones, can reach. Beside it: fixed overlap at each
count (majority vote over each item's first n, ties counted wrong) and full-overlap majority vote.

That bound is loose (it buys the prefixes that happen to end right). A tighter reference for the synthetic
crowds, ``skill_oracle``: the allocation of postprocess.answers.adaptive_budget.expected_gain (rounds of ROUND_SHARE
of the items, two judgements each first or what the budget pays) with every worker's true kind and skill and every
item's difficulty known (the generator's own draws, bench/crowd_shapes.py), each label read by its true likelihood
and the answer the posterior's top label: what the rule's allocation could reach if it did not have to estimate
the crowd. A reference, not a bound: its lookahead is myopic (``--lookahead``; on the 108 x 39 binary shape, seed 0,
three ahead reads 0.9259 and twenty 0.9722), and misleading items are left out of the likelihood (a model with
them would know the decoy, which depends on the truth).

Sets: Snow et al. 2008's (bench/snow_sets.py) and synthetic crowds of the held-out shapes (bench/crowd_shapes.py).
Run: ``python -m bench.adaptive_oracle [--seed N] [--share 0.5] [--lookahead 3]`` (a few seconds).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from bench.crowd_shapes import HELD_OUT, KIND_SHARES, KINDS, Shape, _slip, shaped
from postprocess.answers.adaptive_budget import outcomes, round_cap


def prefix_right(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(items x judgements: is the unique leader of the item's first n+1 judgements the gold answer; each item's
    judgements), over the items with gold."""
    gold_known = frame[frame["gold"].astype(str).str.strip() != ""]
    rank = gold_known.groupby("item_id", sort=False).cumcount().to_numpy()
    items, item = np.unique(gold_known["item_id"].to_numpy(dtype=str), return_inverse=True)
    labels, label = np.unique(gold_known["label"].to_numpy(dtype=str), return_inverse=True)
    gold = np.searchsorted(labels, gold_known.drop_duplicates("item_id").set_index("item_id")["gold"]
                           .reindex(items).to_numpy(dtype=str))
    width = int(rank.max()) + 1
    votes = np.zeros((len(items), width, len(labels)))
    votes[item, rank, label] = 1.0
    counts = votes.cumsum(axis=1)  # items x prefix x labels
    top = counts.max(axis=2)
    unique = (counts == top[:, :, None]).sum(axis=2) == 1
    right = unique & (counts[np.arange(len(items)), :, np.minimum(gold, len(labels) - 1)] == top)
    right &= (gold < len(labels))[:, None]  # a gold label nobody gave is never the leader
    available = np.bincount(item, minlength=len(items))
    right &= np.arange(width)[None, :] < available[:, None]
    return right, available


def oracle(right: np.ndarray, available: np.ndarray, share: float) -> float:
    """The share of items right when the cheapest right prefixes are bought first within ``share`` of the
    judgements, every item at least one."""
    budget = share * available.sum() - len(available)
    cost = np.where(right.any(axis=1), right.argmax(axis=1), np.inf)  # extra judgements beyond the first
    cost = np.sort(cost[np.isfinite(cost)])
    return float((np.cumsum(cost) <= budget).sum() / len(available))


def _latents(shape: Shape, seed: int) -> tuple[np.ndarray, ...]:
    """(truth, difficulty, kind, best, favourite): bench.crowd_shapes.shaped's first draws, in its order."""
    rng = np.random.default_rng(seed)
    k = len(shape.classes)
    truth = rng.choice(k, shape.items, p=np.asarray(shape.prior))
    _slip(rng, truth, k, shape.ordinal)  # the decoys
    difficulty = rng.beta(1.0, 3.0, shape.items)
    rng.random(shape.items)  # which items mislead
    kind = rng.choice(len(KINDS), shape.workers, p=KIND_SHARES)
    best = np.where(kind == 0, rng.uniform(0.62, 0.97, shape.workers), rng.uniform(0.5, 0.65, shape.workers))
    favourite = rng.choice(k, shape.workers, p=np.asarray(shape.prior))
    return truth, difficulty, kind, best, favourite


def _slips(k: int, ordinal: bool) -> np.ndarray:
    """P(slip y | truth c), k x k: crowd_shapes._slip's (an adjacent class 3 times in 4 when ordinal)."""
    other = (1 - np.eye(k)) / (k - 1)
    if not ordinal:
        return other
    near = np.zeros((k, k))
    for t in range(k):
        for step in (-1, 1):
            near[t, t + step if 0 <= t + step < k else t - step] += 0.5
    return 0.75 * near + 0.25 * other


def _likelihoods(shape: Shape, kind: np.ndarray, best: np.ndarray, favourite: np.ndarray,
                 difficulty: np.ndarray) -> np.ndarray:
    """workers x items x truth x label: P(label | truth) for each worker on each item (by their kind)."""
    k = len(shape.classes)
    slips = _slips(k, shape.ordinal)
    right = 1 / k + (best[:, None] - 1 / k) * (1 - difficulty[None, :])  # workers x items
    out = right[..., None, None] * np.eye(k) + (1 - right)[..., None, None] * slips
    out[kind == 2] = np.eye(k)[favourite[kind == 2]][:, None, None, :]  # a spammer's one class, whatever the truth
    out[kind == 3] = 1 / k
    out[kind == 4] = slips
    return out


def answered_knowing_the_crowd(shape: Shape, seed: int, used: pd.DataFrame) -> float:
    """The share of ``shape``'s items (seed ``seed``) right when ``used`` (some of its judgements: ``item_id,
    worker_id, label``) are read by their true likelihoods (every worker's kind and skill and every item's
    difficulty known, as :func:`skill_oracle` reads them) and each item answered by the top label of that
    posterior: how far any allocation's answers are from what its labels could give (an item without labels:
    the class prior's top)."""
    truth, difficulty, kind, best, favourite = _latents(shape, seed)
    likelihood = _likelihoods(shape, kind, best, favourite, difficulty)
    item = used["item_id"].str[len(shape.name):].astype(int).to_numpy()
    worker = used["worker_id"].str[1:].astype(int).to_numpy()
    label = pd.Series(range(len(shape.classes)), index=list(shape.classes)).reindex(used["label"]).to_numpy()
    log = np.tile(np.log(np.asarray(shape.prior)), (shape.items, 1))
    np.add.at(log, item, np.log(np.clip(likelihood[worker, item, :, label], 1e-12, None)))
    return float((log.argmax(axis=1) == truth).mean())


def skill_oracle(shape: Shape, seed: int, share: float = 0.5, lookahead: int = 3) -> tuple[float, float]:
    """(accuracy, share of the judgements used) of the expected-gain allocation that knows the crowd (module)."""
    frame = shaped(shape, seed)
    truth, difficulty, kind, best, favourite = _latents(shape, seed)
    names = list(shape.classes)
    item = frame["item_id"].str[len(shape.name):].astype(int).to_numpy()
    if not (np.asarray(names)[truth[item]] == frame["gold"].to_numpy()).all():
        raise RuntimeError("bench.crowd_shapes.shaped draws differently now: update _latents")
    worker = frame["worker_id"].str[1:].astype(int).to_numpy()
    label = pd.Series(range(len(names)), index=names).reindex(frame["label"]).to_numpy()
    rank = frame.groupby("item_id", sort=False).cumcount().to_numpy()
    likelihood = _likelihoods(shape, kind, best, favourite, difficulty)
    evidence = np.log(np.clip(likelihood[worker, item, :, label], 1e-12, None))  # judgements x truth
    # the next label's worker is unknown: a draw from the crowd by their share of the labels
    next_label = np.einsum("w,wicy->icy", np.bincount(worker, minlength=shape.workers) / len(worker), likelihood)
    available = np.bincount(item, minlength=shape.items)
    budget = int(share * available.sum())
    wanted = np.minimum(available, 2)
    while True:
        log = np.tile(np.log(np.asarray(shape.prior)), (shape.items, 1))
        np.add.at(log, item[rank < wanted[item]], evidence[rank < wanted[item]])
        posterior = np.exp(log - log.max(axis=1, keepdims=True))
        posterior /= posterior.sum(axis=1, keepdims=True)
        left, open_ = budget - int(wanted.sum()), wanted < available
        if left <= 0 or not open_.any():
            return float((posterior.argmax(axis=1) == truth).mean()), float(wanted.sum() / available.sum())
        gain = np.zeros(shape.items)
        for r in range(1, lookahead + 1):
            counts, coefficient = outcomes(r, len(names))
            outcome = np.exp(np.einsum("oy,icy->ioc", counts, np.log(next_label)) + coefficient[None, :, None])
            right = (posterior[:, None, :] * outcome).max(axis=2).sum(axis=1) - posterior.max(axis=1)
            gain = np.where(available - wanted >= r, np.maximum(gain, right / r), gain)
        take = np.argsort(-np.where(open_, gain, -1.0), kind="stable")[:min(left, round_cap(shape.items),
                                                                             int(open_.sum()))]
        wanted[take] += 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--share", type=float, default=0.5)
    parser.add_argument("--lookahead", type=int, default=3, help="skill_oracle's judgements ahead")
    a = parser.parse_args()
    from bench.answers_calibration import held_out_sets, public_sets  # here: that bench prints this bound too

    for name, frame in public_sets() + held_out_sets(a.seed):
        right, available = prefix_right(frame)
        per = np.median(available).astype(int)
        fixed = " ".join(f"{n}:{right[:, n - 1].mean():.3f}" for n in range(1, per + 1))
        print(f"{name:26s} oracle@{a.share:.0%} {oracle(right, available, a.share):.4f}  full MV "
              f"{right[np.arange(len(right)), available - 1].mean():.4f}  fixed {fixed}")
    for shape in HELD_OUT:
        if shape.name != "adultcontent2":  # 11,040 items x 825 workers: a 36 million cell table
            accuracy, used = skill_oracle(shape, a.seed, a.share, a.lookahead)
            print(f"{shape.name:26s} knowing every skill and difficulty: {accuracy:.4f} with {used:.1%}")


if __name__ == "__main__":
    main()
