"""Whether the embedding program freezes the collector's heap itself (then hitflow leaves it), and a flow run's."""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator

_DECLARED = [False]


def caller_freezes_heap(freezes: bool = True) -> None:
    """Declare (or withdraw) that this process freezes the collector's heap itself."""
    _DECLARED[0] = freezes


def caller_manages_collector() -> bool:
    """The caller said so, turned the collector off, or froze objects (asked only when it did not say)."""
    return _DECLARED[0] or not gc.isenabled() or gc.get_freeze_count() > 0


@contextlib.contextmanager
def flow_run_imports() -> Iterator[None]:
    """In a flow run's own process, the block's imports with the collector off, then frozen."""
    import multiprocessing  # here: the CLI's commands import this module and never need it

    in_flow_run = multiprocessing.parent_process() is not None or bool(os.environ.get("PREFECT__FLOW_RUN_ID"))
    if not in_flow_run or caller_manages_collector():
        yield
        return
    gc.disable()
    try:
        yield
        gc.freeze()
    finally:
        gc.enable()
