"""Text the page shows with an item, quoted in an answer (no template): a run of :data:`QUOTE_WORDS` words shared
with the item's texts, a whole shorter one, or two+ of its words in quotes; ``params["item_text"]``: id -> texts."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from qc.text_similarity import words

QUOTE_WORDS = 4
SAME_SHOWN = 0.5  # two items sharing at least this share of their runs (of both's) show one thing: Broder's resemblance
QUOTED = re.compile(r"[\"“”«»]([^\"“”«»]{3,200})[\"“”«»]")


def _runs(text: str) -> set[tuple[str, ...]]:
    found = words(text.lower())
    n = min(QUOTE_WORDS, len(found))
    return {tuple(found[k:k + n]) for k in range(len(found) - n + 1)} if n >= 2 else set()


def item_runs(shown: Mapping[str, Iterable[Any]]) -> dict[str, set[tuple[str, ...]]]:
    """Per item, its shown texts' runs of words (a text shorter than a run: itself)."""
    return {str(item): {run for text in texts for run in _runs(str(text))} for item, texts in shown.items()}


def shown_as(items: Sequence[Any], params: Mapping[str, Any]) -> list[str]:
    """Per item, the first item met whose shown texts are (nearly) its own: the same answer on two items showing one
    review, one with its product named and one with another's, is one answer to one thing, no template."""
    keys = [str(item) for item in items]
    shown = params.get("item_text")
    if not isinstance(shown, Mapping) or not shown:
        return keys
    runs = item_runs({k: shown.get(k) or () for k in dict.fromkeys(keys)})
    kinds: list[str] = []  # one item for each thing shown
    same: dict[str, str] = {}
    for k, own in runs.items():
        same[k] = next((m for m in kinds if own and len(own & runs[m]) >= SAME_SHOWN * len(own | runs[m])), k)
        if same[k] == k:
            kinds.append(k)
    return [same[k] for k in keys]


def quotes_own_item(answers: Sequence[str], items: Sequence[Any], params: Mapping[str, Any]) -> list[bool]:
    """Per answer: whether it quotes a text its own item shows (each item's texts read once)."""
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
        whole = 2 <= len(found) < QUOTE_WORDS and any(f" {' '.join(found)} " in t for t in joined[str(item)])
        out.append(whole or _quotes(str(answer), joined[str(item)]))
    return out


def _quotes(answer: str, texts: list[str]) -> bool:
    """Words in quotation marks, two or more in a row, that one of the item's texts (joined words) holds."""
    for quoted in QUOTED.findall(answer):
        said = words(quoted.lower())
        if len(said) >= 2 and any(f" {' '.join(said)} " in t for t in texts):
            return True
    return False
