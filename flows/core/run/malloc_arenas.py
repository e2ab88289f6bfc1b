"""Fewer malloc arenas for a process whose threads allocate: ``hitflow run`` and ``hitflow sim serve``.

glibc gives threads malloc arenas of their own, up to eight per core (``M_ARENA_MAX``, mallopt(3)),
and each arena keeps the holes that freed objects leave between those still alive. ``malloc_trim``
(free_memory.py) hands back only whole free pages, so the holes stay resident.

- The simulator answers each connection on a thread of its own (``ThreadingHTTPServer``), 16 for
  hitflow's 16 posting threads; each arena kept the holes freed request bodies and pages (~31 KB each
  for the caption page) left between the records it keeps. Two arenas: at 4,000 images (``python -m
  bench.scale --one 4000 1``, load ~5) the simulator's peak RSS was 199 MB against 216 MB, its CPU
  10.5 s against 10.9 s (all calls take the market's lock anyway).
- ``hitflow run`` posts and collects on 16 threads and, on the embedded simulator (the default), serves
  the market on as many, so each batch's captions, replies and records were spread over up to 16
  arenas and the outputs started from their holes. Two arenas: at 12,000 images in one process (the
  run's peak, measured in-process) 364 MB against 504 MB; the outputs are the same bytes.

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
