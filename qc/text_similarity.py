"""Caption text similarity for the consensus and instruction-echo rules.

TF-IDF over words (unigrams: bigrams diluted the agreement of honest captions on the real
data), L2-normalised, so a dot product is a cosine. One vectorizer is fitted per batch
(never per image): rare words weigh more, which is what makes two captions of the same
photo agree and a generic sentence agree with nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

_WS = re.compile(r"\s+")
_END_PUNCT = re.compile(r"[\s.!?,;:…。！？．、]+$")  # Latin and CJK final punctuation


def normalise(text: str) -> str:
    """Case, runs of spaces and final punctuation do not make two captions different."""
    return _END_PUNCT.sub("", _WS.sub(" ", text.strip()).lower())


def caption_vectorizer() -> TfidfVectorizer:
    # \w+ rather than sklearn's 2-letter default: one-letter words and non-Latin scripts count too
    return TfidfVectorizer(lowercase=True, token_pattern=r"(?u)\b\w+\b",
                           sublinear_tf=True, dtype=np.float32)


@lru_cache(maxsize=1)
def fit_vectors(texts: tuple[str, ...]) -> tuple[TfidfVectorizer, sparse.csr_matrix] | None:
    """The batch's vectorizer and one unit row per text; None when no text has a word.

    Kept for the last batch seen: consensus, its worker rate and instruction echo share one fit.
    The result is shared, so callers must not change it.
    """
    vectorizer = caption_vectorizer()
    try:
        matrix = vectorizer.fit_transform(texts)
    except ValueError:  # empty vocabulary: every text blank or punctuation
        return None
    return vectorizer, sparse.csr_matrix(matrix)


def row_cosines(matrix: sparse.csr_matrix, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Cosine of row ``left[k]`` with row ``right[k]`` for every k (rows are unit vectors)."""
    if len(left) == 0:
        return np.zeros(0, dtype=np.float32)
    products = matrix[left].multiply(matrix[right])
    return np.asarray(products.sum(axis=1)).ravel()


def peer_pairs(groups: pd.Series, authors: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair (i, j) of positions in the same group written by different authors."""
    codes = pd.factorize(groups)[0]
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    sizes = np.diff(np.r_[starts, len(order)])
    left, right = [], []
    for size in np.unique(sizes[sizes > 1]):
        members = order[starts[sizes == size][:, None] + np.arange(size)]  # groups x size
        a, b = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
        off_diagonal = a != b
        left.append(members[:, a[off_diagonal]].ravel())
        right.append(members[:, b[off_diagonal]].ravel())
    if not left:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    i, j = np.concatenate(left), np.concatenate(right)
    author_codes = pd.factorize(authors)[0]
    keep = author_codes[i] != author_codes[j]
    return i[keep], j[keep]



def foreign_vectors(vectorizer: TfidfVectorizer, n_fitted: int, texts: Sequence[str]) -> sparse.csr_matrix:
    """Unit rows for texts the vectorizer was not fitted on, their unseen words kept in the norm.

    ``transform`` would drop the unseen words and normalise what is left, so a page line
    reduced to "the", "in", "is" would match every caption. An unseen word weighs as a word
    none of the ``n_fitted`` texts used (smooth idf ln(1 + n) + 1): it adds length, matches nothing.
    """
    analyse, vocabulary, idf = vectorizer.build_analyzer(), vectorizer.vocabulary_, vectorizer.idf_
    unseen_idf = float(np.log(1 + n_fitted) + 1)
    rows, cols, values = [], [], []
    for r, text in enumerate(texts):
        counts: dict[str, int] = {}
        for token in analyse(text):
            counts[token] = counts.get(token, 0) + 1
        weights = {t: (1 + np.log(n)) * (idf[vocabulary[t]] if t in vocabulary else unseen_idf)
                   for t, n in counts.items()}
        norm = float(np.sqrt(sum(w * w for w in weights.values()))) or 1.0
        seen = [t for t in weights if t in vocabulary]
        rows += [r] * len(seen)
        cols += [vocabulary[t] for t in seen]
        values += [weights[t] / norm for t in seen]
    return sparse.csr_matrix((values, (rows, cols)), shape=(len(texts), len(vocabulary)), dtype=np.float32)
