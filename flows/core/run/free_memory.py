"""Memory a batch step freed, handed back to the system before the next step."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache

import pyarrow as pa

from flows.core.run.heap_owner import caller_manages_collector


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # no such library or symbol: not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


def release_free_memory() -> bool:
    """Give freed heap pages back to the system; True when the C library could be asked (glibc)."""
    pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


_RUNS = [0, False]  # runs inside own_objects_collected now; whether the outermost froze
_RUNS_LOCK = threading.Lock()


@contextmanager
def own_objects_collected() -> Iterator[None]:
    """While a run lasts, what existed before it is frozen (the outermost run freezes); thawed after."""
    with _RUNS_LOCK:
        if _RUNS[0] == 0:
            _RUNS[1] = not caller_manages_collector()
            if _RUNS[1]:
                gc.freeze()
        _RUNS[0] += 1
    try:
        yield
    finally:
        with _RUNS_LOCK:
            _RUNS[0] -= 1
            if _RUNS[0] == 0 and _RUNS[1]:
                gc.unfreeze()
