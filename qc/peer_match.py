"""Each caption's best peer for ``consensus``: the cosine of its TF-IDF row with every other author's row of its
group, over the pairs that share a word (found by one sort per part of the groups), summed as scipy's row product."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from qc.text_similarity import TermMatrix as Rows

PART_ROWS = 16_384  # rows (whole groups) compared at a time: a part's pair arrays are a few MB


def best_peers(rows: Rows, groups: np.ndarray, authors: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the best cosine with a peer (another author's non-blank row of the group; 0 if none shares a
    word, -1 without peers), that peer's position (ties: the later row), and the number of peers."""
    n = len(rows.indptr) - 1
    group = pd.factorize(groups, use_na_sentinel=False)[0].astype(np.int64)
    author = pd.factorize(authors, use_na_sentinel=False)[0].astype(np.int64)
    filled = np.diff(rows.indptr) > 0
    peers = _peer_counts(group, author, filled)
    left, right, sims = _sharing_pairs(rows, group, author)
    best = np.where(peers > 0, 0.0, -1.0)
    np.maximum.at(best, left, sims.astype(np.float64))  # one type: ufunc.at's fast loop (float32 cast each: 15x)
    best_peer = _last_peer(group, author, filled)
    top = sims >= best[left]
    later = np.full(n, -1)
    np.maximum.at(later, left[top], right[top])
    best_peer[later >= 0] = later[later >= 0]
    return best, np.where(peers > 0, best_peer, -1), peers


def _sharing_pairs(rows: Rows, group: np.ndarray, author: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both orders of every two rows of a group by different authors that share a word, with their cosine."""
    order = np.argsort(group, kind="stable")  # each group's rows together, in file order
    starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]])  # each group's first place
    first = np.searchsorted(starts, np.arange(0, len(order), PART_ROWS))  # the group at or after each cut
    cuts = np.unique(np.r_[starts[first[first < len(starts)]], len(order)])
    span = int(rows.indices.max(initial=0)) + 1  # term numbers
    found = [_part_pairs(rows, order[a:b], group[order[a:b]], span) for a, b in pairwise(cuts.tolist())]
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    left, right, sims = (np.concatenate(parts) for parts in zip(*found, strict=True))
    other = author[left] != author[right]
    left, right, sims = left[other], right[other], sims[other]
    return np.r_[left, right], np.r_[right, left], np.r_[sims, sims]


def _part_pairs(rows: Rows, at: np.ndarray, groups: np.ndarray,
                span: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs (earlier, later) of rows ``at`` (whole groups, each group's rows together) sharing a word."""
    local = np.r_[True, groups[1:] != groups[:-1]].cumsum() - 1  # each row's group, numbered in the part
    lengths = np.diff(rows.indptr)[at]
    e_bits = max(1, int(lengths.sum()).bit_length())
    if local[-1] > 0 and (int(local[-1] + 1) * span).bit_length() + e_bits > 63:  # too wide to pack: halve
        cut = int(np.searchsorted(local, local[-1] // 2 + 1))
        halves = (_part_pairs(rows, at[:cut], groups[:cut], span), _part_pairs(rows, at[cut:], groups[cut:], span))
        return tuple(np.concatenate(parts) for parts in zip(*halves, strict=True))  # type: ignore[return-value]
    entry = np.repeat(rows.indptr[at] - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
    row_of = np.repeat(np.arange(len(at)), lengths)
    key = (local[row_of] * span + rows.indices[entry]) << e_bits | np.arange(len(entry))
    key.sort()  # by group, term, then row
    place, word = key & ((1 << e_bits) - 1), key >> e_bits
    ends = np.r_[np.flatnonzero(word[1:] != word[:-1]) + 1, len(key)]
    after = np.repeat(ends, np.diff(np.r_[0, ends])) - np.arange(len(key)) - 1  # later places of the same word
    first = np.repeat(np.arange(len(key)), after)
    second = first + 1 + np.arange(len(first)) - np.repeat(np.cumsum(after) - after, after)
    one, two = place[first], place[second]
    return _summed(row_of[one] * len(at) + row_of[two], rows.data[entry[one]] * rows.data[entry[two]], at)


def _summed(pair: np.ndarray, products: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pair's products (given in ascending term order) summed as scipy summed a row of their product:
    ``np.add.reduceat`` over them in that order, so the cosines are the same to the bit."""
    k_bits = max(1, len(pair).bit_length())
    if int(pair.max(initial=0)).bit_length() + k_bits <= 63:
        key = pair << k_bits | np.arange(len(pair))
        key.sort()  # by pair, each pair's products still in term order
        order = key & ((1 << k_bits) - 1)
    else:
        order = np.argsort(pair, kind="stable")
    pair = pair[order]
    starts = np.flatnonzero(np.diff(pair, prepend=-1))
    one, two = np.divmod(pair[starts], len(at))
    return at[one], at[two], np.add.reduceat(products[order], starts) if len(starts) else products


def _peer_counts(group: np.ndarray, author: np.ndarray, filled: np.ndarray) -> np.ndarray:
    """Non-blank rows of each row's group less those by its own author."""
    by_author = pd.factorize(group * (int(author.max(initial=0)) + 1) + author)[0]
    in_group = np.bincount(group, weights=filled)[group]
    return (in_group - np.bincount(by_author, weights=filled)[by_author]).astype(np.int64)


def _last_peer(group: np.ndarray, author: np.ndarray, filled: np.ndarray) -> np.ndarray:
    """Each row's latest peer: the group's last non-blank row, or anyone else's if the row's author wrote it."""
    rows = np.flatnonzero(filled)
    last = np.full(int(group.max(initial=-1)) + 1, -1)
    np.maximum.at(last, group[rows], rows)
    others = rows[author[rows] != author[last[group[rows]]]]
    runner_up = np.full(len(last), -1)
    np.maximum.at(runner_up, group[others], others)
    first_choice = last[group]
    own = (first_choice >= 0) & (author[np.maximum(first_choice, 0)] == author)
    return np.where(own, runner_up[group], first_choice)
