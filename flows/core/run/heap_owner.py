"""Whether the embedding program freezes the collector's heap itself (then hitflow leaves it)."""

from __future__ import annotations

import gc

_DECLARED = [False]


def caller_freezes_heap(freezes: bool = True) -> None:
    """Declare (or withdraw) that this process freezes the collector's heap itself."""
    _DECLARED[0] = freezes


def caller_manages_collector() -> bool:
    """The caller said so, turned the collector off, or froze objects (asked only when it did not say)."""
    return _DECLARED[0] or not gc.isenabled() or gc.get_freeze_count() > 0
