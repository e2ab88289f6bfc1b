"""Nothing a test run starts outlives it, however the run is stopped (a `make test` stopped
with SIGTERM left PostgreSQL servers, Prefect servers and a Prefect worker running).

The first pytest process of a run (the xdist controller, or the only process) marks the run in its
environment (``HITFLOW_TEST_RUN=<its pid>.<a nonce>``); every process the run starts inherits the mark
(workers, ``hitflow`` processes, Prefect servers and workers, PostgreSQL through ``runuser``), also
one that started a session of its own or was left to init by its parent. When that first process
exits, normally or after a signal, it ends every process still carrying its mark: SIGTERM, then
SIGKILL after a grace. SIGTERM and SIGHUP in any pytest process of the run become KeyboardInterrupt,
as Ctrl-C is, so pytest tears its fixtures down (servers stop through their own code) first; the
reaper is for what a teardown missed or had no time for. A SIGKILL of the first process cannot be
caught: its servers then remain (find them with ``marked(...)``)."""

from __future__ import annotations

import atexit
import os
import signal
import time
from contextlib import suppress
from pathlib import Path
from types import FrameType

MARK = "HITFLOW_TEST_RUN"


def marked(prefix: str) -> list[int]:
    """Processes (not zombies) whose environment holds ``HITFLOW_TEST_RUN=<prefix>...``, other than this one."""
    needle = f"{MARK}={prefix}".encode()
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if int(proc.name) == os.getpid() or _zombie(proc):
                continue
            environ = (proc / "environ").read_bytes()
        except (OSError, ValueError):
            continue  # ended while we looked, or not ours to read
        if any(entry.startswith(needle) for entry in environ.split(b"\0")):
            found.append(int(proc.name))
    return found


def _zombie(proc: Path) -> bool:
    return (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"  # the name may hold ")"


def reap(prefix: str, grace_s: float = 10.0) -> list[int]:
    """End every process marked ``prefix``: SIGTERM, then SIGKILL what is left after ``grace_s``.
    Returns the processes found (empty when the run left nothing)."""
    found = marked(prefix)
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        for pid in marked(prefix):
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait_s
        while marked(prefix) and time.monotonic() < deadline:
            _reap_children()
            time.sleep(0.2)
    return found


def _reap_children() -> None:
    """Wait for our own ended children, so they stop counting as running."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _reap_at_exit(prefix: str) -> None:
    left = {pid: _cmdline(pid) for pid in marked(prefix)}
    if left:  # a test or fixture that does not stop what it starts: say which, so it can be fixed
        print(f"\ntests/reaper.py: ending {len(left)} process(es) the test run left running:", flush=True)
        for pid, cmdline in left.items():
            print(f"  {pid} {cmdline[:160]}", flush=True)
        reap(prefix)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


_FIRST = [False]  # this process marked the run: it reaps


def _interrupt(signum: int, frame: FrameType | None) -> None:
    signal.signal(signum, _end_now)  # a second signal ends the process at once
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def _end_now(signum: int, frame: FrameType | None) -> None:
    """The second SIGTERM or SIGHUP: out now, the first process reaping the run's processes before it goes.
    A SIGTERM to `make test`'s process group reaches pytest twice (the group's, and make's shell passing
    its own on): dying at the second by default, the first process never reaped, and a worker whose
    teardown lost its controller left its PostgreSQL and fork server running."""
    signal.signal(signum, signal.SIG_IGN)  # a third one (make's shell passes its own on too) would reap again
    if _FIRST[0]:
        _reap_at_exit(os.environ.get(MARK, ""))
    os._exit(128 + signum)


def install() -> str:
    """Mark the run (in its first process) and turn SIGTERM/SIGHUP into KeyboardInterrupt here;
    the first process also reaps the run's processes when it exits. Returns the run's mark."""
    if MARK not in os.environ:
        os.environ[MARK] = f"{os.getpid()}.{time.time_ns()}"
        _FIRST[0] = True
        atexit.register(_reap_at_exit, os.environ[MARK])
    for signum in (signal.SIGTERM, signal.SIGHUP):
        try:
            if signal.getsignal(signum) == signal.SIG_DFL:
                signal.signal(signum, _interrupt)
        except ValueError:
            pass  # not the main thread: its signals are handled where it runs
    return os.environ[MARK]
