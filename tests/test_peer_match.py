"""qc/peer_match.py finds each caption's best peer from the pairs that share a word, summing each pair's products
as one sorted run: on the same TF-IDF rows, the scores, peers and counts equal the old computation
(bench/qc_reference.py: every same-image pair of other authors, each cosine a row of scipy's product) to the bit,
in one part and in parts of 5 rows."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bench import qc_reference as reference
from qc import peer_match, text_similarity

WORDS = ["a", "dog", "cat", "on", "the", "mat", "red", "car", "blue", "sky", "man", "bench", "café", "ünïcode", "狗",
         "of", "in", "near", "with", "and"]


def batch(seed: int) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """Captions of 0-40 words (long ones share over eight words, where numpy's sums change their order), blanks,
    repeats and capitals, on images of 1-9 captions by 30 workers."""
    rng = random.Random(seed)
    texts: list[str] = []
    images: list[str] = []
    for image in range(120):
        for _ in range(rng.randint(1, 9)):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.choice([0, 1, 3, 7, 12, 25, 40])))
            texts.append(rng.choice([text, text.upper(), texts[-1] if texts else text]))
            images.append(f"i{image}")
    authors = [f"w{rng.randrange(30)}" for _ in texts]
    return tuple(texts), np.array(images, dtype=object), np.array(authors, dtype=object)


@pytest.mark.parametrize("seed", range(6))
def test_best_peers_equal_the_old_pairwise_products(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    texts, images, authors = batch(seed)
    fit = text_similarity.fit_vectors(texts)
    reference.forget_batch()
    monkeypatch.setattr(reference, "fit_vectors", lambda _: fit)  # the old pairs over the same rows
    old = reference._best_matches(texts, tuple(images), tuple(authors))
    reference._best_matches.cache_clear()
    assert old is not None and fit is not None
    for part_rows in (peer_match.PART_ROWS, 5):
        monkeypatch.setattr(peer_match, "PART_ROWS", part_rows)
        new = peer_match.best_peers(fit, images, authors)
        for before, now in zip(old, new, strict=True):
            assert before.dtype == now.dtype and np.array_equal(before, now)
    assert (old[0] > 0).sum() > len(texts) // 2  # most captions matched a peer: the sums were exercised


def test_parts_too_wide_to_pack_are_halved_to_the_same_pairs() -> None:
    """Terms numbered far apart (a huge vocabulary) leave too few bits for a part's groups: the part is halved
    until its keys fit, and every score and peer is what the compact numbering gives."""
    rng = random.Random(9)
    vocabulary = [f"w{k}" for k in range(3_000)]  # far more terms than a wrapped key could keep apart
    texts = tuple(" ".join(rng.choice(vocabulary[:rng.choice([50, 3_000])]) for _ in range(rng.randint(3, 12)))
                  for _ in range(6_000))
    images = np.array([f"i{k // 3}" for k in range(len(texts))], dtype=object)
    authors = np.array([f"w{k % 7}" for k in range(len(texts))], dtype=object)
    fit = text_similarity.fit_vectors(texts)
    assert fit is not None
    wide = text_similarity.TermMatrix(fit.data, fit.indices.astype(np.int64) << 40, fit.indptr, fit.vocabulary,
                                      fit.idf)  # the same order of terms, 2**40 apart
    before, now = peer_match.best_peers(fit, images, authors), peer_match.best_peers(wide, images, authors)
    assert all(np.array_equal(a, b) for a, b in zip(before, now, strict=True))
    assert (before[0] > 0).sum() > 2_000
