"""``text_counts``' upper and letters count exactly as ``str.isupper`` / ``str.isalpha`` do, per text."""

from __future__ import annotations

import pytest

from qc import char_counts
from qc.char_counts import text_counts
from qc.submit_rules import count_words

TEXTS = ["", "A RED MUG", "a red mug", "Ünïcödé ÄÖ", "画像の品質", "😀 EMOJI 𝐀𝐁 x", " ", "ΑΒΓ δε", "x" * 5000 + "Y"]


@pytest.mark.parametrize("texts", [TEXTS, TEXTS[::-1], ["", ""], ["only one"], []])
def test_counts_match_the_str_methods(texts: list[str]) -> None:
    counts = text_counts(texts)
    upper, letters = counts.upper, counts.letters
    assert upper.tolist() == [sum(c.isupper() for c in t) for t in texts]
    assert letters.tolist() == [sum(c.isalpha() for c in t) for t in texts]


WORDY = ["a||b 1_8 0x12", "  -- . x", "\t\n\x1c A \x0b b \x1f", "...", "", "é x ü", "x" * 300 + " y",
         "A" * 70_000 + " b c", " ".join(["w"] * 300)]


@pytest.mark.parametrize("texts", [WORDY, WORDY[::-1], [t for t in WORDY if t.isascii()], ["Y" * 255, "Y" * 256]])
def test_counts_and_words_match_the_submit_rules_on_long_and_ascii_texts(texts: list[str]) -> None:
    """An ASCII batch takes its own path; counts past 255 and 65,535 characters in one text stay exact."""
    counts = text_counts(texts)
    assert counts.upper.tolist() == [sum(c.isupper() for c in t) for t in texts]
    assert counts.letters.tolist() == [sum(c.isalpha() for c in t) for t in texts]
    assert counts.words.tolist() == [count_words(t) for t in texts]


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_counts_are_the_same_whatever_the_slices(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts are counted a slice at a time; a slice boundary anywhere (inside a long text, after an
    empty one, mixing ASCII and not) changes no count."""
    monkeypatch.setattr(char_counts, "CHUNK_CHARS", chunk)
    texts = [*WORDY, *TEXTS, "", "", "AB cd"] * 3
    counts = char_counts.text_counts(texts)
    assert counts.upper.tolist() == [sum(c.isupper() for c in t) for t in texts]
    assert counts.letters.tolist() == [sum(c.isalpha() for c in t) for t in texts]
    assert counts.words.tolist() == [count_words(t) for t in texts]
