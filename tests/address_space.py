"""The tests' cap on a process's address space: a bound that fails to hold shows as a MemoryError in the test
rather than as a machine swapping. Used by the template-bound tests (tests/test_template_bounds.py,
tests/test_render_totals.py)."""

from __future__ import annotations

import contextlib
import resource
from collections.abc import Iterator

import pytest


@contextlib.contextmanager
def headroom(size: int) -> Iterator[None]:
    """The address space capped at ``size`` bytes above this process's (the soft limit, restored after)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        cap = int(statm.read().split()[0]) * resource.getpagesize() + size
    if hard != resource.RLIM_INFINITY and hard < cap:
        pytest.skip("the address-space hard limit leaves too little headroom")
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
