"""``text_features.folded`` (duplicate_text, shared_template) folds every caption as
``" ".join(visible(t).split()).lower()`` does, though plain ASCII captions take Arrow's lower case."""

from __future__ import annotations

import random

import pandas as pd

from qc import text_features
from qc.invisible_text import visible

PIECES = ["a", "B", " ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x1b", "\x00", "é", "\u200b",
          "\xa0", "\u3000", "İ", "ẞ", "Σ", "x.", "\x85", "\u2028", "\ufeff", "Zz"]


def test_folded_matches_str_methods_on_hostile_whitespace() -> None:
    rng = random.Random(5)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 9))) for _ in range(5000)]
    texts += ["A plain caption.", "", " lead", "trail ", "two  spaces", "TAB\there", "ÜBER café"]
    got = text_features.folded(pd.DataFrame({"caption": texts}))
    assert got == [" ".join(visible(t).split()).lower() for t in texts]
    assert sum(t.isascii() and " ".join(t.split()) == t for t in texts) > 500  # the Arrow path is exercised
