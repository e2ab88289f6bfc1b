"""Caption similarity for the consensus and echo rules: word TF-IDF (bigrams diluted agreement), fitted per batch."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:  # imported by instruction_echo alone: scipy.sparse is ~0.15 s of `hitflow qc`'s start-up
    from scipy import sparse

# Words: \w+ (any script, one letter counts), case folded; sklearn's default drops 1-letter words.
_TOKEN = re.compile(r"\w+")
_SEPARATOR = "qqhitflowsepqq"  # joins a batch's texts for one findall; a text holding it takes the slow path
_BEYOND_PLANE_NON_WORD = r"[^\w\u0000-\uffff]"  # an emoji, say: a space, as \w+ splits there (~9 ms to compile)
FINAL_PUNCTUATION = " .!?,;:…。！？．、"  # Latin and CJK
TOKEN_PART = 16_384  # texts tokenised at a time: a part's copies are a few MB, the C calls still few


@dataclass(frozen=True)
class TermMatrix:
    """A batch's TF-IDF: one unit row per text in CSR form (``data``, ``indices``, ``indptr``), the vocabulary
    and its idf weights."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    vocabulary: dict[str, int]
    idf: np.ndarray

    @cached_property
    def rows(self) -> sparse.csr_matrix:
        """The rows as a scipy matrix (instruction_echo's product; consensus reads the arrays)."""
        from scipy import sparse

        return sparse.csr_matrix((self.data, self.indices, self.indptr),
                                 shape=(len(self.indptr) - 1, len(self.vocabulary)))


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
        joined = re.sub(_BEYOND_PLANE_NON_WORD, " ", joined)  # the table covers the Basic Multilingual Plane only
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
    lengths, term_of, terms = _token_codes(texts) or _token_codes_slow(texts)
    if not terms:
        return None
    indptr = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    data, indices, indptr = _term_counts(term_of, indptr, len(terms))
    # TfidfTransformer(sublinear_tf=True) by hand: importing sklearn's text module costs over a second
    idf = np.log((1 + len(texts)) / (1 + np.bincount(indices, minlength=len(terms)))) + 1
    # a block of rows at a time over its counts: the whole matrix's weights to the bit, without float64 copies
    for start in range(0, len(texts), TOKEN_PART):
        _unit_rows(data, indices, indptr[start:start + TOKEN_PART + 1], idf)
    return TermMatrix(data, indices, indptr, terms, idf)


def _term_counts(term_of: np.ndarray, indptr: np.ndarray, n_terms: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each text's tokens (its run of ``term_of``) as its distinct terms, ascending, and their counts (float32);
    written over ``term_of`` a block of texts at a time (a block's distinct terms never outrun its tokens)."""
    counts = np.empty(len(term_of), dtype=np.float32)
    out = np.zeros_like(indptr)
    filled = 0
    for start in range(0, len(indptr) - 1, TOKEN_PART):
        bounds = indptr[start:start + TOKEN_PART + 1]
        row_of = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
        keys = np.sort(row_of * n_terms + term_of[bounds[0]:bounds[-1]])
        first = np.flatnonzero(np.diff(keys, prepend=-1))
        rows, terms = np.divmod(keys[first], n_terms)
        term_of[filled:filled + len(first)] = terms
        counts[filled:filled + len(first)] = np.diff(np.r_[first, len(keys)])
        out[start + 1:start + len(bounds)] = filled + np.cumsum(np.bincount(rows, minlength=len(bounds) - 1))
        filled += len(first)
    return counts[:filled], term_of[:filled], out


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
