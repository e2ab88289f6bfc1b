"""A page's stated word minimum read in the runs around its "word"s finds every match reading the whole page finds
(the simulator reads it once a page it has not seen: a run's pages are each new)."""

from __future__ import annotations

import random
from itertools import pairwise

from flows.sim.pages.script_checks import SAID, said_runs, word_minimum

# what a match is made of (with characters a case-blind reading takes for others: "ſ" for "s", "K" for "k"), and
# what ends a run
OPENINGS = ("at least", "AT LEAST", "minimum of", "Minimum", "no fewer than", "not leſs than", "min.", "min", "")
NUMBERS = ("5", "12", "100", "2000", "٣", "12345", "")
SPACES = (" ", "  ", "\n", "\t", "\u2003", "\x1c", " - ", "-", "")
WORDS = ("words", "word", "WORDS", "Words", "wordſ", "sword", "")
CLOSINGS = ("minimum", "or more", "OR MORE", "at least", "")
NOISE = ("_", ",", "<p>", "</p>", '"', "=", "K", "İ", "ı", "x", ".", "least", " ")


def _text(rng: random.Random) -> str:
    """Noise and phrases that are, nearly are, or are two of, what SAID reads."""
    parts = []
    for _ in range(rng.randint(0, 6)):
        parts += [rng.choice(NOISE) for _ in range(rng.randint(0, 3))]
        parts += [rng.choice(pieces) for pieces in (OPENINGS, SPACES, NUMBERS, SPACES, WORDS, SPACES, CLOSINGS)]
    return "".join(parts)


def _matches(text: str) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in SAID.finditer(text)]


def test_the_runs_hold_every_match_of_the_whole_page() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        text = _text(rng)
        runs = list(said_runs(text))
        assert [(m.span(), m.groups()) for s, e in runs for m in SAID.finditer(text, s, e)] == _matches(text), text
        assert all(end < start for (_, end), (start, _) in pairwise(runs))  # apart, in order


def test_a_long_run_is_found_from_far_back() -> None:
    text = "<p>" + "Please write " * 200 + "at least 120 words about it.</p>"
    assert list(said_runs(text)) == [(3, len(text) - 4)]
    assert word_minimum(text) == 120
