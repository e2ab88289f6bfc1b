"""Per-text counts over a whole column (uppercase letters, letters, submit-rule words): each distinct character
classified once as :mod:`qc.submit_rules` does, so the counts are identical at a fraction of the cost."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import numpy as np

from qc.submit_rules import SPACE

_BASIC = 0x10000  # the Basic Multilingual Plane, classified once per process
CHUNK_CHARS = 1 << 20
_WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@dataclass(frozen=True)
class TextCounts:
    """Per text: uppercase letters, letters, and words as :func:`qc.submit_rules.count_words` counts them."""

    upper: np.ndarray
    letters: np.ndarray
    words: np.ndarray


def text_counts(texts: Sequence[str]) -> TextCounts:
    """Counted :data:`CHUNK_CHARS` characters at a time (one pass over 15 million faulted in ~150 MB)."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    cuts = np.searchsorted(np.cumsum(lengths), np.arange(CHUNK_CHARS, int(lengths.sum()), CHUNK_CHARS))
    bounds = [0, *sorted(set(cuts.tolist()) - {0, len(texts)}), len(texts)]
    parts = [_counts(texts[a:b], lengths[a:b]) for a, b in pairwise(bounds)]
    return TextCounts(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("upper", "letters", "words")))


def _counts(texts: Sequence[str], lengths: np.ndarray) -> TextCounts:
    if lengths.sum() == 0:
        zeros = np.zeros(len(texts), dtype=np.int64)
        return TextCounts(zeros, zeros, zeros)
    joined = "".join(texts)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    if joined.isascii():  # the usual batch: one bytes.translate per class, no per-character table lookups
        kinds = np.frombuffer(joined.encode("ascii").translate(_ascii_kinds()), dtype=np.uint8)
        is_upper, is_alpha, is_space, is_word_char = (_bit(kinds, bit) for bit in range(4))
    else:
        is_upper, is_alpha, is_space, is_word_char = _classes(_code_points(joined))
    return TextCounts(_sums(is_upper, lengths, ends), _sums(is_alpha, lengths, ends),
                      _words(is_space, is_word_char, starts, ends))


def _bit(kinds: np.ndarray, bit: int) -> np.ndarray:
    """Where ``bit`` of ``kinds`` is set, as booleans (one array, no temporaries)."""
    out = np.right_shift(kinds, bit)
    return np.bitwise_and(out, 1, out=out).view(bool)


def _classes(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per character: uppercase, letter, :data:`SPACE`, ASCII letter or digit."""
    basic = points if points.dtype != np.uint32 else points.astype(np.uint16)  # wraps above the plane
    is_upper, is_alpha, is_space, is_word_char = (table[basic] for table in _basic_plane())
    if points.dtype == np.uint32:  # emoji, rare scripts (none a space or an ASCII letter): one by one
        beyond = np.flatnonzero(points >= _BASIC)
        chars = [chr(int(p)) for p in points[beyond]]
        is_upper[beyond] = [c.isupper() for c in chars]
        is_alpha[beyond] = [c.isalpha() for c in chars]
        is_space[beyond] = is_word_char[beyond] = False
    return is_upper, is_alpha, is_space, is_word_char


def _code_points(text: str) -> np.ndarray:
    """One array element per character, as narrow as the text allows (ASCII in a byte: a quarter the memory)."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    units = np.frombuffer(text.encode("utf-16-le", "surrogatepass"), dtype=np.uint16)
    if not ((units >= 0xD800) & (units < 0xE000)).any():  # no pairs: one unit per character
        return units
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


@lru_cache(maxsize=1)
def _basic_plane() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    chars = [chr(p) for p in range(_BASIC)]
    space = np.zeros(_BASIC, dtype=bool)
    space[[ord(c) for c in SPACE]] = True
    word_char = np.zeros(_BASIC, dtype=bool)
    word_char[[ord(c) for c in _WORD_CHARS]] = True
    return np.array([c.isupper() for c in chars]), np.array([c.isalpha() for c in chars]), space, word_char


@lru_cache(maxsize=1)
def _ascii_kinds() -> bytes:
    """A ``bytes.translate`` table: an ASCII character's classes as bits (uppercase, letter, space, word)."""
    chars = [chr(c) for c in range(128)]
    kinds = (c.isupper() | c.isalpha() << 1 | (c in SPACE) << 2 | (c in _WORD_CHARS) << 3 for c in chars)
    return bytes(kinds) + bytes(128)


def _sums(flags: np.ndarray, lengths: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Flagged characters per text: the rarer kind's places, counted before each text's end (no running total
    over every character)."""
    dense = np.count_nonzero(flags) * 2 > len(flags)
    found = np.diff(np.searchsorted(np.flatnonzero(~flags if dense else flags), ends), prepend=0)
    return lengths - found if dense else found


def _words(space: np.ndarray, word_char: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Tokens (runs of non-space, never across two texts) that hold an ASCII letter or digit, per text."""
    opens = np.empty(len(space), dtype=bool)
    opens[:1] = ~space[:1]
    np.greater(space[:-1], space[1:], out=opens[1:])  # a space, then not
    opens[starts[starts < ends]] = ~space[starts[starts < ends]]  # each text starts afresh
    token_at = np.flatnonzero(opens)
    if len(token_at) == 0:
        return np.zeros(len(ends), dtype=np.int64)
    # a token's span runs to the next token's start: the spaces between hold no letter or digit
    worded = np.zeros(len(token_at) + 1, dtype=np.int64)
    np.cumsum(np.maximum.reduceat(word_char, token_at), out=worded[1:])
    return np.diff(worded[np.searchsorted(token_at, ends)], prepend=0)  # the tokens opened before each end
