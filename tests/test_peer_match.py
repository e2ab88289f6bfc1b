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
