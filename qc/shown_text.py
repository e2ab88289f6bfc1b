"""Text the page shows with an item, quoted in an answer about that item.

An answer that quotes its own item's text (a caption under the photo, the sentence a word is used in)
is about the item, whoever else quotes it: when two items show one caption, honest workers who quote it
write the same words on both, which is no template (``shared_template``) nor one worker's pasted text
(``duplicate_text``). A pasted sentence quotes no item's text, or one item's text on the other items.

``params["item_text"]``: item id -> the texts the page shows with that item (its columns' values; the
campaign passes them: flows/custom/custom_review.py). Without it nothing counts as a quote.
An answer quotes its item when it shares a run of :data:`QUOTE_WORDS` words in a row (case folded)
with one of those texts, or holds the whole of a shorter one (of two or more words), or puts in quotation
marks two or more words in a row of them (a reason quoting "tomato soup" from its caption).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from qc.text_similarity import words

QUOTE_WORDS = 4
QUOTED = re.compile(r"[\"“”«»]([^\"“”«»]{3,200})[\"“”«»]")


def _runs(text: str) -> set[tuple[str, ...]]:
    found = words(text.lower())
    n = min(QUOTE_WORDS, len(found))
    return {tuple(found[k:k + n]) for k in range(len(found) - n + 1)} if n >= 2 else set()


def item_runs(shown: Mapping[str, Iterable[Any]]) -> dict[str, set[tuple[str, ...]]]:
    """Per item, its shown texts' runs of words (a text shorter than a run: itself)."""
    return {str(item): {run for text in texts for run in _runs(str(text))} for item, texts in shown.items()}


def quotes_own_item(answers: Sequence[str], items: Sequence[Any], params: Mapping[str, Any]) -> list[bool]:
    """Per answer: whether it quotes a text its own item shows (``params["item_text"]``); each item's texts are
    read once, whatever the number of answers about it."""
    shown = params.get("item_text")
    if not isinstance(shown, Mapping) or not shown:
        return [False] * len(answers)
    runs = item_runs(shown)
    lengths = {len(r) for rs in runs.values() for r in rs}
    joined: dict[str, list[str]] = {}
    out = []
    for answer, item in zip(answers, items, strict=True):
        own = runs.get(str(item))
        if not own:
            out.append(False)
            continue
        found = words(str(answer).lower())
        if any(tuple(found[k:k + n]) in own for n in lengths for k in range(len(found) - n + 1)):
            out.append(True)
            continue
        if str(item) not in joined:
            texts = shown.get(item) or shown.get(str(item)) or ()
            joined[str(item)] = [f" {' '.join(words(str(t).lower()))} " for t in texts]
        out.append(_quotes(str(answer), joined[str(item)]))
    return out


def _quotes(answer: str, texts: list[str]) -> bool:
    """Words in quotation marks, two or more in a row, that one of the item's texts (joined words) holds."""
    for quoted in QUOTED.findall(answer):
        said = words(quoted.lower())
        if len(said) >= 2 and any(f" {' '.join(said)} " in t for t in texts):
            return True
    return False
