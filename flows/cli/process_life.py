"""The process around a command: Prefect's settings, the collector, SIGTERM and a quick exit."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

from flows.core.run.heap_owner import caller_manages_collector


def prefect_settings(uses_prefect: bool) -> None:
    """What the Makefile sets for Prefect, set by the CLI itself unless the user set it."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    if not os.environ.get("PREFECT_HOME"):
        os.environ["PREFECT_HOME"] = str(Path("runs", ".prefect").absolute())
    if uses_prefect:  # Prefect creates its home without parents on import, and warns when it cannot
        Path(os.environ["PREFECT_HOME"]).expanduser().mkdir(parents=True, exist_ok=True)


@contextlib.contextmanager
def loaded_then_frozen(thaw: bool = True, collect: bool = True) -> Iterator[Callable[[], None]]:
    """The collector off while a command imports, then what exists frozen; thawed at the end unless ``thaw=False``.
    ``collect=False``: off until the end (a command whose work makes next to no cycles)."""
    if caller_manages_collector():
        yield lambda: None
        return
    frozen = False

    def loaded() -> None:
        nonlocal frozen
        gc.freeze()
        frozen = True
        if collect:
            gc.enable()

    gc.disable()
    try:
        yield loaded
    finally:
        if frozen and thaw:
            gc.unfreeze()
        gc.enable()


class Terminated(KeyboardInterrupt):
    """SIGTERM (a service manager, `kill`): the run stops as on Ctrl-C, between two ledger writes."""


@contextlib.contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the main thread for the block, so a run ends cleanly."""

    def terminate(signum: int, frame: object) -> None:
        raise Terminated

    before = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def leave_now(code: int) -> NoReturn:
    """An interrupted run has said where it stopped: exit without the interpreter's teardown."""
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that left, a closed stream
            stream.flush()
    os._exit(code)


def finish_without_teardown(code: int) -> NoReturn:
    """A finished run: every exit handler runs, then the process leaves without freeing its modules."""
    import atexit
    import threading

    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)  # a thread the interpreter would wait for: leave the usual way
    atexit._run_exitfuncs()  # what the interpreter runs at exit once threads are joined (CPython; no public name)
    leave_now(code)


def arrow_pool_that_gives_back() -> None:
    """Arrow's jemalloc pool for this process, which gives freed memory back (docs/speed.md)."""
    import pyarrow as pa

    with contextlib.suppress(NotImplementedError):
        pa.set_memory_pool(pa.jemalloc_memory_pool())
