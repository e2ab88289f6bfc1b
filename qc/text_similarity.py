"""Caption similarity for the consensus and echo rules: word TF-IDF (bigrams diluted agreement), fitted per batch."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:  # imported where a matrix is built: scipy.sparse is ~0.2 s of `hitflow qc`'s start-up, and
    from scipy import sparse  # only the rules that compare texts (consensus, templates, echoes) need it

# Words: \w+ (any script, one letter counts), case folded; sklearn's default drops 1-letter words.
_TOKEN = re.compile(r"\w+")
_SEPARATOR = "qqhitflowsepqq"  # joins a batch's texts for one findall; a text holding it takes the slow path
_BEYOND_PLANE_NON_WORD = re.compile(r"[^\w\u0000-\uffff]")  # an emoji, say: a space, as \w+ splits there
FINAL_PUNCTUATION = " .!?,;:…。！？．、"  # Latin and CJK
TOKEN_PART = 16_384  # texts tokenised at a time: a part's copies are a few MB, the C calls still few


@dataclass(frozen=True)
class TermMatrix:
    """A batch's TF-IDF: one unit row per text, the vocabulary and its idf weights."""

    rows: sparse.csr_matrix
    vocabulary: dict[str, int]
    idf: np.ndarray


def words(text: str) -> list[str]:
    """The ``\\w+`` runs of a text: BMP non-word characters become spaces by one table (C speed); ``re`` beyond."""
    if text.isascii() or max(text) <= "\uffff":
        return text.translate(_non_word_table()).split()
    return _TOKEN.findall(text)


@lru_cache(maxsize=1)
def _non_word_table() -> dict[int, str]:
    # re's \w is exactly str.isalnum() or "_"
    return {c: " " for c in range(0x10000) if not (chr(c).isalnum() or c == ord("_"))}


def _token_codes(texts: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, dict[str, int]] | None:
    """Tokens per text, each token's term index and the terms numbered; None if a text holds the separator.
    :data:`TOKEN_PART` texts at a time into one array cut to the tokens found (the whole batch took ~130 MB)."""
    numbers: dict[str, int] = {}
    lengths = np.zeros(len(texts), dtype=np.int64)
    term_of = np.empty((sum(map(len, texts)) + len(texts)) // 2 + 1, dtype=np.int32)  # a token and a space
    filled = 0
    for start in range(0, len(texts), TOKEN_PART):
        found = _part_codes(texts[start:start + TOKEN_PART])
        if found is None:
            return None
        text_of, part_terms, terms = found
        renumber = np.array([numbers.setdefault(t, len(numbers)) for t in terms], dtype=np.int32)
        lengths[start:start + TOKEN_PART] = np.bincount(text_of, minlength=len(texts[start:start + TOKEN_PART]))
        if filled + len(part_terms) > len(term_of):  # lower case longer than the text (a rare letter): grow
            term_of.resize(2 * (filled + len(part_terms)), refcheck=False)
        term_of[filled:filled + len(part_terms)] = renumber[part_terms]
        filled += len(part_terms)
    term_of.resize(filled, refcheck=False)  # in place: the unused end is given back
    return lengths, term_of, numbers


def _part_codes(texts: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    # one lower() and translate over the joined part, then Arrow splits and numbers the tokens in C: no str per token
    joined = f" {_SEPARATOR} ".join(texts).lower()
    if not (joined.isascii() or max(joined) <= "\uffff"):
        joined = _BEYOND_PLANE_NON_WORD.sub(" ", joined)  # the table covers the Basic Multilingual Plane only
    tokens = pc.split_pattern(pa.array([joined.translate(_non_word_table())], pa.large_string()), " ").flatten()
    encoded = tokens.filter(pc.not_equal(tokens, "")).dictionary_encode()
    codes, terms = encoded.indices.to_numpy(), encoded.dictionary.to_pylist()
    separator = terms.index(_SEPARATOR) if _SEPARATOR in terms else -1
    is_separator = codes == separator
    if int(is_separator.sum()) != len(texts) - 1:
        return None
    text_of = np.cumsum(is_separator)[~is_separator]
    term_of = codes[~is_separator].astype(np.int64)
    if separator >= 0:
        term_of -= term_of > separator  # the separator's number is taken out of the vocabulary
        del terms[separator]
    return text_of, term_of, terms


def _token_codes_slow(texts: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    per_text = [words(t.lower()) for t in texts]
    codes, terms = pd.factorize(np.array([w for t in per_text for w in t], dtype=object))
    return np.array([len(t) for t in per_text], dtype=np.int64), codes, {str(t): k for k, t in enumerate(terms)}


def fit_vectors(texts: tuple[str, ...]) -> TermMatrix | None:
    """The batch's TF-IDF (sublinear tf, smooth idf, L2 rows); None when no text has a word."""
    from scipy import sparse

    lengths, term_of, terms = _token_codes(texts) or _token_codes_slow(texts)
    if not terms:
        return None
    # tokens come in text order: each text's run of term numbers is its row, without a (row, column) copy
    indptr = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    counts = sparse.csr_matrix((np.ones(len(term_of), dtype=np.float32), term_of, indptr),
                               shape=(len(texts), len(terms)))
    del term_of, indptr
    counts.sum_duplicates()
    rows, idf = _tfidf(counts)
    return TermMatrix(rows, terms, idf)


def _tfidf(counts: sparse.csr_matrix) -> tuple[sparse.csr_matrix, np.ndarray]:
    """TfidfTransformer(sublinear_tf=True) by hand: importing sklearn's text module costs over a second."""
    from scipy import sparse

    n_texts = counts.shape[0]
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    idf = np.log((1 + n_texts) / (1 + df)) + 1
    # a block of rows at a time over its counts: the whole matrix's weights to the bit, without float64 copies
    for start in range(0, n_texts, TOKEN_PART):
        _unit_rows(counts.data, counts.indices, counts.indptr[start:start + TOKEN_PART + 1], idf)
    return sparse.csr_matrix((counts.data, counts.indices, counts.indptr), shape=counts.shape), idf


def _unit_rows(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, idf: np.ndarray) -> None:
    """The rows ``indptr`` spans made unit TF-IDF in place, bit for bit scipy's ``diags(1 / norms) @ rows``."""
    at, ends = slice(indptr[0], indptr[-1]), indptr - indptr[0]
    lengths = np.diff(ends)
    weights = data[at].astype(np.float64)
    np.log(weights, out=weights)
    weights += 1
    weights *= idf[indices[at]]
    filled = np.flatnonzero(lengths)
    norms = np.zeros(len(lengths))
    norms[filled] = np.add.reduceat(weights * weights, ends[filled])
    norms = np.sqrt(norms)
    norms[norms == 0] = 1.0
    row_of = np.repeat(np.arange(len(lengths)), lengths)
    weights *= (1 / norms)[row_of]
    back = (ends[:-1] + ends[1:] - 1)[row_of] - np.arange(len(weights))  # each row reversed
    data[at] = weights.astype(np.float32)[back]
    indices[at] = indices[at][back]


def foreign_vectors(terms: TermMatrix, texts: Sequence[str]) -> sparse.csr_matrix:
    """Unit rows for texts the batch was not fitted on, unseen words kept in the norm: dropped, a page line would
    shrink to "the", "in", which match every caption; an unseen word adds length and matches nothing."""
    from scipy import sparse

    unseen_idf = float(np.log(1 + terms.rows.shape[0]) + 1)
    rows, cols, values = [], [], []
    for r, text in enumerate(texts):
        counts: dict[str, int] = {}
        for token in words(text.lower()):
            counts[token] = counts.get(token, 0) + 1
        weights = {t: (1 + np.log(n)) * (terms.idf[terms.vocabulary[t]] if t in terms.vocabulary else unseen_idf)
                   for t, n in counts.items()}
        norm = float(np.sqrt(sum(w * w for w in weights.values()))) or 1.0
        seen = [t for t in weights if t in terms.vocabulary]
        rows += [r] * len(seen)
        cols += [terms.vocabulary[t] for t in seen]
        values += [weights[t] / norm for t in seen]
    return sparse.csr_matrix((values, (rows, cols)), shape=(len(texts), len(terms.vocabulary)), dtype=np.float32)


def best_peers(rows: sparse.csr_matrix, groups: np.ndarray,
               authors: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the best cosine with a peer (another author's non-blank row of the group; 0 if none shares a
    word, -1 without peers), that peer's position (ties: the later row), and the number of peers; the best
    candidates rescored by :func:`row_cosines`, as one dot product per pair would give."""
    n = rows.shape[0]
    group = pd.factorize(groups, use_na_sentinel=False)[0].astype(np.int64)
    author = pd.factorize(authors, use_na_sentinel=False)[0].astype(np.int64)
    filled = np.diff(rows.indptr) > 0
    peers = _peer_counts(group, author, filled)
    left, right = _near_pairs(rows, group, author)
    sims = row_cosines(rows, left, right)
    best = np.where(peers > 0, 0.0, -1.0)
    np.maximum.at(best, left, sims)
    best_peer = _last_peer(group, author, filled)
    top = sims >= best[left]
    later = np.full(n, -1)
    np.maximum.at(later, left[top], right[top])
    best_peer[later >= 0] = later[later >= 0]
    return best, np.where(peers > 0, best_peer, -1), peers


def _near_pairs(rows: sparse.csr_matrix, group: np.ndarray, author: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every two rows of a group by different authors sharing a word, rough cosine within float32 error of the
    row's best; groups of about :data:`TOKEN_PART` / 4 rows at a time (all at once took ~100 MB)."""
    from scipy import sparse

    rough = np.zeros(rows.shape[0])
    slack = 1e-6 + 2.5e-7 * np.diff(rows.indptr)  # > twice a float32 sum's error bound over a row's terms
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]])  # each group's first place
    first = np.searchsorted(starts, np.arange(0, len(order), max(1, TOKEN_PART // 4)))  # the group at or after each
    cuts = np.unique(np.r_[starts[first[first < len(starts)]], len(order)])
    found: list[tuple[np.ndarray, np.ndarray]] = []
    for a, b in pairwise(cuts.tolist()):
        at = order[a:b]
        part = rows[at]
        row_of = np.repeat(np.arange(len(at)), np.diff(part.indptr))
        keys = pd.factorize(group[at][row_of] * rows.shape[1] + part.indices)[0]
        keyed = sparse.csr_matrix((part.data, keys, part.indptr), shape=(len(at), int(keys.max(initial=-1)) + 1))
        pairs = (keyed @ keyed.T).tocoo()
        left, right = at[pairs.row], at[pairs.col]
        keep = (left != right) & (author[left] != author[right])
        left, right, sims = left[keep], right[keep], pairs.data[keep]
        if len(left) == 0:
            continue
        runs = np.flatnonzero(np.r_[True, left[1:] != left[:-1]])  # a row's pairs are one run (COO rows in order)
        rough[left[runs]] = np.maximum.reduceat(sims, runs)  # cosines are > 0: as maximum.at over the zeros
        near = sims >= rough[left] - slack[left]
        found.append((left[near], right[near]))
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return tuple(np.concatenate(parts) for parts in zip(*found, strict=True))  # type: ignore[return-value]


def row_cosines(matrix: sparse.csr_matrix, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Cosine of rows ``left[k]`` and ``right[k]`` (unit vectors), a part of the pairs at a time."""
    if len(left) == 0:
        return np.zeros(0, dtype=np.float32)
    parts = []
    for start in range(0, len(left), TOKEN_PART):
        products = matrix[left[start:start + TOKEN_PART]].multiply(matrix[right[start:start + TOKEN_PART]])
        parts.append(np.asarray(products.sum(axis=1)).ravel())
    return np.concatenate(parts)


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
