"""Fewer malloc arenas for a process whose threads allocate: ``hitflow run`` and ``hitflow sim serve``.

glibc gives threads malloc arenas of their own, up to eight per core (``M_ARENA_MAX``, mallopt(3)),
and each arena keeps the holes that freed objects leave between those still alive. ``malloc_trim``
(free_memory.py) hands back only whole free pages, so the holes stay resident.

Threads that allocate (the simulator's one per connection; ``hitflow run``'s 16 posting and collecting
threads) spread their records over that many arenas; two arenas keep the peak RSS down at the same CPU
(measured: docs/explanation/benchmarks.md).

Not glibc (macOS, musl): nothing is changed.
"""

from __future__ import annotations

import ctypes

M_ARENA_MAX = -8  # glibc's malloc.h
ARENAS = 2


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap the arenas threads started from now on may create; False where the C library has no mallopt."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, arenas))
