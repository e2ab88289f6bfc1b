"""Fewer malloc arenas for ``hitflow sim serve``'s process.

The simulator answers each connection on a thread of its own (``ThreadingHTTPServer``); hitflow
posts from 16 threads, so 16 connections. glibc gives threads malloc arenas of their own, up to
eight per core (``M_ARENA_MAX``, mallopt(3)), and each arena kept the holes that freed request
bodies and pages (~31 KB each for the caption page) left between the records the simulator keeps.
Two arenas: at 4,000 images (``python -m bench.scale --one 4000 1``, load ~5) the simulator's peak
RSS was 199 MB against 216 MB, its CPU 10.5 s against 10.9 s (all calls take the market's lock
anyway). Not glibc (macOS, musl): nothing is changed.
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
