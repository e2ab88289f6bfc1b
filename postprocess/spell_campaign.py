"""What a campaign's own captions tell spell-correction. Pure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import pairwise

from postprocess.spell_index import SHORT_TOKEN, SpellIndex, damerau, deletes

CAMPAIGN_WEIGHT = 1.0  # the campaign's word shares weigh as much as the dictionary's (an even mix)
TYPO_RATIO = 10  # a near word used this many times as often as a token makes the token its typo
COMPOUND_SHORTEST = 2  # letters in the shorter part of a compound ("bootup": boot + up)
COMPOUND_SHORTEST_TOKEN = 6  # shorter tokens split too easily ("cofee": co + fee; "tabel": tab + el)


def campaign_lift(uses: Mapping[str, int], index: SpellIndex, weight: float = CAMPAIGN_WEIGHT) -> dict[str, float]:
    """Word -> its share of the campaign's tokens times ``weight``."""
    total = sum(uses.values())
    if not total:
        return {}
    return {w: weight * n / total for w, n in uses.items() if w in index}


def is_compound(token: str, index: SpellIndex) -> bool:
    """Whether ``token`` is two common words written together (a compound, not a typo)."""
    common = index.common_words
    return len(token) >= COMPOUND_SHORTEST_TOKEN and any(token[:i] in common and token[i:] in common
               for i in range(COMPOUND_SHORTEST, len(token) - COMPOUND_SHORTEST + 1))


def has_inner_capital(token: str) -> bool:
    """A capital after a small letter ("iPods", "eBay", "YouTube"): a name as its maker writes it."""
    return any(a.islower() and b.isupper() for a, b in pairwise(token))


def likely_word(word: str, uses: Mapping[str, int], index: SpellIndex) -> bool:
    """Whether a correction is in common use or written by the campaign."""
    return word in index.common_words or uses.get(word, 0) > 0


def far_more_used(word: str, token: str, uses: Mapping[str, int]) -> bool:
    """Whether the campaign writes ``word`` at least :data:`TYPO_RATIO` times as often as ``token``."""
    return uses.get(word, 0) >= TYPO_RATIO * max(uses.get(token, 0), 1)


def long_word_corrections(tokens: Iterable[str], uses: Mapping[str, int], index: SpellIndex) -> dict[str, str]:
    """Unknown long tokens -> the campaign's far more used dictionary word two edits away."""
    wanted = sorted({t for t in tokens if len(t) > SHORT_TOKEN and t not in index and t not in index.folded
                     and not is_compound(t, index)})
    floor = TYPO_RATIO * min((max(uses.get(t, 0), 1) for t in wanted), default=1)
    filed: dict[str, list[str]] = {}
    for word, n in uses.items():
        if n >= floor and len(word) >= SHORT_TOKEN - 1 and word in index:
            for text in deletes(word, 2):
                filed.setdefault(text, []).append(word)
    found = {}
    for token in wanted:
        near = {w for text in deletes(token, 2) for w in filed.get(text, ()) if far_more_used(w, token, uses)}
        best = next((w for w in sorted(near, key=lambda w: (-uses[w], index.ids[w])) if damerau(token, w) <= 2), None)
        if best is not None:
            found[token] = best
    return found
