"""A symmetric-delete index over pyspellchecker's word frequencies (docs/spelling.md). Pure."""

from __future__ import annotations

import string
import unicodedata
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

SHORT_TOKEN = 6  # two edits are tried only for tokens this short (see spellcheck.py)
TWO_DELETE_WORDS = SHORT_TOKEN + 2  # longest word two edits from a short token
COMMON_SHARE = 1.2e-7  # a word this share of the list's counts is in common use (English: 200 of 1.6 billion,
# the 37,679 commonest words)
FORMAT = 2  # bump when the arrays change meaning: old caches are then rebuilt


def _key(text: str) -> int:
    return (len(text) << 32) | zlib.crc32(text.encode("utf-8", "surrogatepass"))


def deletes(word: str, depth: int) -> dict[str, int]:
    """The word and every string left by deleting up to ``depth`` letters, with how many."""
    found = {word: 0}
    layer = [word]
    for level in range(1, depth + 1):
        nxt = []
        for text in layer:
            for i in range(len(text)):
                short = text[:i] + text[i + 1:]
                if short not in found:
                    found[short] = level
                    nxt.append(short)
        layer = nxt
    return found


def one_edit(a: str, b: str) -> bool:
    """Whether distinct ``a`` and ``b`` are one insert, delete, substitution or swap apart."""
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la < lb:
        a, b, la, lb = b, a, lb, la
    i = 0
    while i < lb and a[i] == b[i]:
        i += 1
    if la > lb:
        return a[i + 1:] == b[i:]
    return a[i + 1:] == b[i + 1:] or (i + 1 < la and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2:] == b[i + 2:])


def damerau(a: str, b: str) -> int:
    """Unrestricted Damerau-Levenshtein distance (Lowrance-Wagner), as pyspellchecker's edits of edits."""
    far = len(a) + len(b)
    d = [[far] * (len(b) + 2)] + [[far, *range(len(b) + 1)]] + [[far, i] + [0] * len(b) for i in range(1, len(a) + 1)]
    last_row: dict[str, int] = {}  # letter -> the last row of a where it was seen
    for i in range(1, len(a) + 1):
        last_match = 0  # the last column of b that matched a[i - 1]
        for j in range(1, len(b) + 1):
            k, m = last_row.get(b[j - 1], 0), last_match
            cost = 0 if a[i - 1] == b[j - 1] else 1
            if not cost:
                last_match = j
            d[i + 1][j + 1] = min(d[i][j] + cost, d[i + 1][j] + 1, d[i][j + 1] + 1,
                                  d[k][m] + (i - k - 1) + 1 + (j - m - 1))
        last_row[a[i - 1]] = i
    return d[len(a) + 1][len(b) + 1]


def _checked(token: str) -> bool:
    """Whether pyspellchecker looks a token up at all: not a number, not one punctuation mark."""
    if not token or (len(token) == 1 and token in string.punctuation):
        return False
    if token in ("nan", "inf", "infinity"):
        return True
    try:
        float(token)
    except ValueError:
        return True
    return False


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@dataclass(frozen=True)
class SpellIndex:
    words: list[str]  # by rank: most frequent first, then alphabetical
    keys: np.ndarray  # uint64, sorted
    word_ids: np.ndarray  # int32 rank of the word filed under each key
    levels: np.ndarray  # uint8 letters deleted from that word to make the key
    counts: np.ndarray  # int64 each word's count in the word list, by rank
    ids: dict[str, int] = field(repr=False)
    folded: dict[str, list[int]] = field(repr=False)  # accent-free form -> accented words

    @classmethod
    def build(cls, frequencies: Mapping[str, int]) -> SpellIndex:
        words = sorted(frequencies, key=lambda w: (-frequencies[w], w))
        keys, ids, levels = [], [], []
        for rank, word in enumerate(words):
            for text, level in deletes(word, 2 if len(word) <= TWO_DELETE_WORDS else 1).items():
                keys.append(_key(text))
                ids.append(rank)
                levels.append(level)
        order = np.argsort(np.array(keys, dtype=np.uint64), kind="stable")
        return cls.from_arrays({"words": np.frombuffer("\n".join(words).encode(), dtype=np.uint8),
                                "keys": np.array(keys, dtype=np.uint64)[order],
                                "word_ids": np.array(ids, dtype=np.int32)[order],
                                "levels": np.array(levels, dtype=np.uint8)[order],
                                "counts": np.array([frequencies[w] for w in words], dtype=np.int64)})

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"words": np.frombuffer("\n".join(self.words).encode(), dtype=np.uint8), "keys": self.keys,
                "word_ids": self.word_ids, "levels": self.levels, "counts": self.counts}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> SpellIndex:
        words = bytes(arrays["words"]).decode().split("\n")
        folded: dict[str, list[int]] = {}
        for rank, word in enumerate(words):
            if not word.isascii():
                folded.setdefault(_fold(word), []).append(rank)
        return cls(words, arrays["keys"], arrays["word_ids"], arrays["levels"], arrays["counts"],
                   {w: i for i, w in enumerate(words)}, folded)

    def __contains__(self, word: str) -> bool:
        return word in self.ids

    def corrections(self, tokens: Iterable[str], far_upto: int = SHORT_TOKEN,
                    lift: Mapping[str, float] | None = None) -> dict[str, str]:
        """Unknown lower-case token -> its most probable correction, one edit away (two up to ``far_upto`` letters)."""
        unknown = sorted({t for t in tokens if t not in self.ids and t not in self.folded and _checked(t)})
        found = self._nearest(unknown, 1, lift or {})
        short = [t for t in unknown if t not in found and len(t) <= far_upto]
        found.update(self._nearest(short, 2, lift or {}))
        return found

    def share(self, word: str) -> float:
        """The word's share of the word list's counts (0 for an unknown word)."""
        rank = self.ids.get(word)
        return 0.0 if rank is None else float(self.counts[rank]) / self._total

    @cached_property
    def common_words(self) -> frozenset[str]:
        """The words of at least ``COMMON_SHARE`` of the list's counts (a compound's parts)."""
        least = int(np.ceil(COMMON_SHARE * self._total))
        return frozenset(self.words[:int(np.searchsorted(-self.counts, -least, "right"))])

    @cached_property
    def _count_list(self) -> list[int]:
        return [int(n) for n in self.counts.tolist()]

    @cached_property
    def _total(self) -> int:
        return int(self.counts.sum())

    def _nearest(self, tokens: list[str], distance: int, lift: Mapping[str, float]) -> dict[str, str]:
        batch = 20_000  # tokens looked up at once: bounds the probe arrays' memory
        found: dict[str, str] = {}
        lifted = {self.ids[w]: share * self._total for w, share in lift.items() if w in self.ids}  # rank -> count
        for start in range(0, len(tokens), batch):
            part = tokens[start:start + batch]
            for qid, ranks in self._candidates(part, distance):
                best = self._best(part[qid], ranks.tolist(), distance, lifted)
                if best is not None:
                    found[part[qid]] = best
        return found

    def _candidates(self, tokens: list[str], distance: int) -> Iterable[tuple[int, np.ndarray]]:
        """(token position, candidate ranks best first) for tokens with any candidate."""
        qids, qkeys = [], []
        for qid, token in enumerate(tokens):
            for text in deletes(token, distance):
                qids.append(qid)
                qkeys.append(_key(text))
        probe = np.array(qkeys, dtype=np.uint64)
        lo, hi = np.searchsorted(self.keys, probe, "left"), np.searchsorted(self.keys, probe, "right")
        counts = hi - lo
        pos = np.repeat(lo, counts) + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        owner = np.repeat(np.array(qids, dtype=np.int64), counts)
        keep = self.levels[pos] <= distance
        pairs = np.unique((owner[keep] << 32) | self.word_ids[pos[keep]].astype(np.int64))
        owners, ranks = pairs >> 32, pairs & 0xFFFFFFFF
        cuts = np.flatnonzero(np.diff(owners)) + 1
        for group in np.split(np.arange(len(pairs)), cuts) if len(pairs) else []:
            yield int(owners[group[0]]), ranks[group]

    def _best(self, token: str, ranks: list[int], distance: int, lifted: Mapping[int, float]) -> str | None:
        """The likeliest word within ``distance`` of ``token`` (count plus lift; ties to the better rank)."""
        def near(rank: int) -> bool:
            word = self.words[rank]
            if abs(len(word) - len(token)) > distance:
                return False
            return one_edit(token, word) if distance == 1 else damerau(token, word) <= distance

        first = next((r for r in ranks if near(r)), None)  # the best of the words without a lift
        if first is None or not lifted:
            return None if first is None else self.words[first]
        # a later word has no larger count than ``first``: only a larger lift can make it likelier
        floor = lifted.get(first, 0.0)
        rivals = [r for r in ranks if lifted.get(r, 0.0) > floor]
        if rivals:
            counts = self._count_list
            beaten = counts[first] + floor
            scored = sorted(((counts[r] + lifted[r], -r) for r in rivals), reverse=True)
            first = next((-neg for score, neg in scored if score > beaten and near(-neg)), first)
        return self.words[first]
