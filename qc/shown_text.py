"""Text the page shows with an item, quoted in an answer about that item (issue 67, point 3).

An answer that quotes its own item's text (a caption under the photo, the sentence a word is used in)
is about the item, whoever else quotes it: when two items show one caption, honest workers who quote it
write the same words on both, which is no template (``shared_template``) nor one worker's pasted text
(``duplicate_text``). A pasted sentence quotes no item's text, or one item's text on the other items.

``params["item_text"]``: item id -> the texts the page shows with that item (its columns' values; the
campaign passes them: flows/custom/custom_review.py). Without it nothing counts as a quote.
An answer quotes its item when it shares a run of :data:`QUOTE_WORDS` words in a row (case folded)
with one of those texts, or holds the whole of a shorter one (of two or more words).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from qc.text_similarity import words

QUOTE_WORDS = 4


def _runs(text: str) -> set[tuple[str, ...]]:
    found = words(text.lower())
    n = min(QUOTE_WORDS, len(found))
    return {tuple(found[k:k + n]) for k in range(len(found) - n + 1)} if n >= 2 else set()


def item_runs(shown: Mapping[str, Iterable[Any]]) -> dict[str, set[tuple[str, ...]]]:
    """Per item, its shown texts' runs of words (a text shorter than a run: itself)."""
    return {str(item): {run for text in texts for run in _runs(str(text))} for item, texts in shown.items()}


def quotes_own_item(answers: Sequence[str], items: Sequence[Any], params: Mapping[str, Any]) -> list[bool]:
    """Per answer: whether it quotes a text its own item shows (``params["item_text"]``)."""
    shown = params.get("item_text")
    if not isinstance(shown, Mapping) or not shown:
        return [False] * len(answers)
    runs = item_runs(shown)
    lengths = {len(r) for rs in runs.values() for r in rs}
    out = []
    for answer, item in zip(answers, items, strict=True):
        own = runs.get(str(item))
        if not own:
            out.append(False)
            continue
        found = words(str(answer).lower())
        out.append(any(tuple(found[k:k + n]) in own for n in lengths for k in range(len(found) - n + 1)))
    return out
