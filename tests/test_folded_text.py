"""``text_features.folded`` (duplicate_text, shared_template) folds every caption as
``" ".join(visible(t).split()).lower()`` does, though plain ASCII captions take Arrow's lower case."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from qc import text_features
from qc.invisible_text import visible
from qc.text_similarity import FINAL_PUNCTUATION

PIECES = ["a", "B", " ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x1b", "\x00", "é", "\u200b",
          "\xa0", "\u3000", "İ", "ẞ", "Σ", "x.", "\x85", "\u2028", "\ufeff", "Zz"]


def test_folded_matches_str_methods_on_hostile_whitespace() -> None:
    rng = random.Random(5)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 9))) for _ in range(5000)]
    texts += ["A plain caption.", "", " lead", "trail ", "two  spaces", "TAB\there", "ÜBER café"]
    got = text_features.folded(pd.DataFrame({"caption": texts}))
    assert got == [" ".join(visible(t).split()).lower() for t in texts]
    assert sum(t.isascii() and " ".join(t.split()) == t for t in texts) > 500  # the Arrow path is exercised


def test_folded_keys_are_equal_exactly_for_equal_trimmed_folded_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """duplicate_text and shared_template keep the rows whose key repeats: two captions get one key when their
    folded texts without end punctuation are equal (Arrow's trim on the plain ones, ``rstrip`` on the rest), and
    different keys otherwise; across parts too."""
    monkeypatch.setattr(text_features, "PART", 97)
    rng = random.Random(8)
    ends = [".", "!", "?", " .", "…", "。", ",;", ""]
    pieces = [*PIECES, *ends]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 5))) for _ in range(3000)]
    texts += [f"A dog{end}" for end in ends] + [f"a DOG{end}" for end in ends]
    keys = text_features.folded_keys(pd.DataFrame({"caption": texts}))
    trimmed = [" ".join(visible(t).split()).lower().rstrip(FINAL_PUNCTUATION) for t in texts]
    assert pd.factorize(keys)[0].tolist() == pd.factorize(pd.Series(trimmed, dtype=object))[0].tolist()
    assert len(set(trimmed[-2 * len(ends):])) == 1 and len(set(trimmed)) > 300
