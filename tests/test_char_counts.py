"""``upper_and_letters`` counts exactly as ``str.isupper`` / ``str.isalpha`` do, per text."""

from __future__ import annotations

import pytest

from qc.char_counts import upper_and_letters

TEXTS = ["", "A RED MUG", "a red mug", "Ünïcödé ÄÖ", "画像の品質", "😀 EMOJI 𝐀𝐁 x", " ", "ΑΒΓ δε", "x" * 5000 + "Y"]


@pytest.mark.parametrize("texts", [TEXTS, TEXTS[::-1], ["", ""], ["only one"], []])
def test_counts_match_the_str_methods(texts: list[str]) -> None:
    upper, letters = upper_and_letters(texts)
    assert upper.tolist() == [sum(c.isupper() for c in t) for t in texts]
    assert letters.tolist() == [sum(c.isalpha() for c in t) for t in texts]
