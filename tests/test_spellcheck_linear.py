"""The first security review pt 7: spell-correcting one long caption was quadratic (210 KB took 23.6 s) because
every token looked at the whole text before it. Measured here by the characters the corrector
reads, not by a clock: linear means a bounded number of characters read per character."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache

import postprocess.spellcheck as spellcheck
from postprocess.spellcheck import LONGEST_WORD, correct_caption


def make_corrector() -> Callable[[str], str | None]:
    """Lower-case token -> its most probable correction in the default index, or None; cached per token."""
    # Looked up when called: the suite's session fixture points it at the index kept on disk (loaded once a
    # process), which a name imported with the module would miss, building the index again (~3 s).
    words = spellcheck.default_index()

    @lru_cache(maxsize=100_000)
    def correct(lower: str) -> str | None:
        return words.corrections([lower]).get(lower) if len(lower) <= LONGEST_WORD else None

    return correct


class CountingText(str):
    """A caption that counts the characters every slice of it copies."""

    copied = 0

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        part = str.__getitem__(self, key)
        CountingText.copied += len(part)
        return part


def words(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    vocab = ["the", "a", "dog", "sits", "on", "teh", "mat", ".", "Dell", "TV", "recieve", "quikly", "!", "it’s",
             "blue", ",", "near", "3", "cups"]
    return " ".join(rng.choice(vocab) for _ in range(n))


def test_characters_read_grow_linearly_with_the_caption() -> None:
    correct = make_corrector()
    reads = []
    for n in (2_000, 8_000):
        text = CountingText(words(n))
        CountingText.copied = 0
        correct_caption(text, set(), correct)
        reads.append(CountingText.copied / len(text))
    assert reads[1] < 3 and reads[1] < reads[0] * 1.5  # quadratic: ~n/2 per character, and 4x more


def test_sentence_starts_and_protections_are_unchanged() -> None:
    correct = make_corrector()
    text = "teh dog sits. Teh cat runs! Dell makes a TV near Duracell and x1. recieve it"
    fixed, edits = correct_caption(text, set(), correct)
    assert fixed == "the dog sits. The cat runs! Dell makes a TV near Duracell and x1. receive it"
    assert edits == ["teh->the", "Teh->The", "recieve->receive"]


def test_a_210_kb_caption_with_one_giant_token_is_corrected() -> None:
    text = words(45_000) + " " + "x" * 50_000 + " teh"
    fixed, edits = correct_caption(text, set(), make_corrector())
    assert len(text) > 210_000 and fixed.endswith("x" * 50_000 + " the") and "teh->the" in edits
