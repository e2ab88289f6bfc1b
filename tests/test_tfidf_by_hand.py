"""The last-edges work pt 5: QC's TF-IDF without scikit-learn's text module (its import pulls scipy.stats,
over a second of start-up for a 25-row file), checked against scikit-learn itself."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from qc.text_similarity import fit_vectors


def test_tfidf_matches_scikit_learn_on_real_looking_captions() -> None:
    from sklearn.feature_extraction.text import TfidfTransformer  # here: ~1 s of CPU at every worker's collection

    texts = ("A red mug on a red table.", "a blue mug", "the the cat", "", "Cat and mug and table",
             "Ein Hund im Park", "a red mug on a red table")
    fitted = fit_vectors(texts)
    assert fitted is not None
    counts = np.zeros(fitted.rows.shape)
    for r, text in enumerate(texts):
        for token in text.lower().replace(".", " ").split():
            counts[r, fitted.vocabulary[token]] += 1
    expected = TfidfTransformer(sublinear_tf=True).fit_transform(counts).toarray()
    assert np.allclose(fitted.rows.toarray(), expected, atol=1e-6)
    assert fitted.rows.toarray()[2].max() > 0 and not fitted.rows.toarray()[3].any()


def test_fitting_does_not_import_scikit_learn() -> None:
    code = ("import sys; from qc.text_similarity import fit_vectors; fit_vectors(('a b', 'b c'));"
            "print(sorted(m for m in sys.modules if m.startswith(('sklearn', 'scipy.stats'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=".")
    assert out.stdout.strip() == "[]"


def test_tfidf_counts_every_token_when_lower_case_lengthens_the_texts() -> None:
    from sklearn.feature_extraction.text import TfidfTransformer

    from qc.text_similarity import words

    # "İ" lowers to "i" and a combining dot, which is no word character: a token a letter, more tokens than the
    # characters allow for otherwise (the term numbers' array grows)
    texts = ("İİİİİİİİ",) * 30 + ("İİ x", "x y", "y")
    fitted = fit_vectors(texts)
    assert fitted is not None
    counts = np.zeros(fitted.rows.shape)
    for r, text in enumerate(texts):
        for token in words(text.lower()):
            counts[r, fitted.vocabulary[token]] += 1
    assert counts.sum() > (sum(map(len, texts)) + len(texts)) // 2
    expected = TfidfTransformer(sublinear_tf=True).fit_transform(counts).toarray()
    assert np.allclose(fitted.rows.toarray(), expected, atol=1e-6)
