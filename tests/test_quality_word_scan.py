"""``quality_word_of`` (quality_words, quality_words_rate, quality_talk) finds, per caption, the
first configured word a search per caption finds (whole word, any case), whatever the words hold."""

from __future__ import annotations

import random
import re

import pandas as pd
import pytest

from qc.caption_rules import quality_word_of

PIECES = ["blur", "BLURRY", "Quality", "qualityx", "a.b", "x", " ", ".", "é", "Blür", "K", "\u212a", "ſ", "\n", "_"]


@pytest.mark.parametrize(("words", "ascii_only"), [  # an all-ASCII batch is scanned by RE2
    *((w, False) for w in [("quality", "blur", "blurry", "blurred"), ("a.b", "k"), ("s", "x|y"), ("blür",)]),
    (("quality", "blur", "blurry", "blurred"), True), (("a.b", "k"), True)])
def test_first_word_per_caption_as_a_search_per_caption(words: tuple[str, ...], ascii_only: bool) -> None:
    rng = random.Random(len(words))
    pieces = [p for p in PIECES if p.isascii() or not ascii_only]
    texts = pd.Series(["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 7))) for _ in range(3000)],
                      index=range(10, 3010))
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)
    want = {i: m.group(1).lower() for i, t in texts.items() if (m := pattern.search(t))}
    assert want, "the generated captions must hold a word"
    assert quality_word_of(texts, words).to_dict() == want
