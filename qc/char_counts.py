"""Per-text counts of uppercase letters and of letters, for a whole column at once.

``str.isupper``/``str.isalpha`` per character in Python cost about a second per 200,000
captions; here the batch is one array of code points and each distinct character is
classified once (a table for the Basic Multilingual Plane), with the same ``str`` methods, so the counts are identical.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

_BASIC = 0x10000  # the Basic Multilingual Plane, classified once per process


def upper_and_letters(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(uppercase letters, letters) in each text, as ``str.isupper`` / ``str.isalpha`` count them."""
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    if lengths.sum() == 0:
        return np.zeros(len(texts), dtype=np.int64), np.zeros(len(texts), dtype=np.int64)
    points = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    upper_table, alpha_table = _basic_plane()
    basic = np.minimum(points, _BASIC - 1)
    is_upper, is_alpha = upper_table[basic], alpha_table[basic]
    beyond = np.flatnonzero(points >= _BASIC)  # emoji, rare scripts: classified one by one
    if len(beyond):
        chars = [chr(int(p)) for p in points[beyond]]
        is_upper[beyond] = [c.isupper() for c in chars]
        is_alpha[beyond] = [c.isalpha() for c in chars]
    starts = np.r_[0, np.cumsum(lengths)[:-1]]
    return _sums(is_upper, starts, lengths), _sums(is_alpha, starts, lengths)


@lru_cache(maxsize=1)
def _basic_plane() -> tuple[np.ndarray, np.ndarray]:
    chars = [chr(p) for p in range(_BASIC)]
    return np.array([c.isupper() for c in chars]), np.array([c.isalpha() for c in chars])


def _sums(flags: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    out = np.zeros(len(lengths), dtype=np.int64)
    filled = lengths > 0  # reduceat over the non-empty texts' starts sums exactly each text's span
    out[filled] = np.add.reduceat(flags.astype(np.int32), starts[filled])
    return out
