"""The collector spared a flow run's own process's imports."""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
from collections.abc import Iterator

from flows.core.run.heap_owner import caller_manages_collector


@contextlib.contextmanager
def flow_run_imports() -> Iterator[None]:
    """In a flow run's own process, the block's imports with the collector off, then frozen."""
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
