"""A real, local ``prefect server`` for the tests that need one (schedules, work pools), and
process groups that a test always ends: nothing a test starts outlives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from flows.core.prefect_api import free_port  # one free loopback port, as the product finds it


def group_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` still running (a zombie has finished: it only awaits its reaping)."""
    if not Path("/proc/self/stat").exists():  # no procfs: ask the kernel whether the group has anyone
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        return [pgid]
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _ppid, group = stat.read_text().rsplit(")", 1)[1].split()[:3]  # the name may hold ")"
        except (OSError, ValueError):
            continue  # the process ended while we looked
        if state != "Z" and int(group) == pgid:
            members.append(int(stat.parent.name))
    return members


def group_gone(proc: subprocess.Popen[Any], within_s: float) -> bool:
    """Whether ``proc``'s process group (``start_new_session=True``) ends within ``within_s``."""
    deadline = time.monotonic() + within_s
    while True:
        proc.poll()  # reap the leader, or it stays a zombie
        if not group_members(proc.pid):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)


def stop_group(proc: subprocess.Popen[Any], grace_s: float = 20.0) -> list[int]:
    """SIGTERM to the whole group, then SIGKILL to whatever is left after ``grace_s`` (a process
    that ignores SIGTERM, or a child its parent left behind); returns any survivor (none but a
    process stuck in the kernel). It never raises, so it cannot hide a failing test's error."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        if group_gone(proc, wait_s):
            break
    with suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    return group_members(proc.pid)


@contextmanager
def process_group(args: list[str], grace_s: float = 20.0, **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """``subprocess.Popen(args)`` as the leader of a new process group, ended (with everything it
    started) when the block is left, however it is left."""
    proc = subprocess.Popen(args, start_new_session=True, **popen)
    try:
        yield proc
    finally:
        stop_group(proc, grace_s)


@contextmanager
def prefect_server(home: Path, **settings: str) -> Iterator[dict[str, str]]:
    """Start ``prefect server`` (analytics and UI off, its own home) and yield the environment
    that points a client or worker at it (``PREFECT_API_URL``); stop it afterwards."""
    port = free_port()
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_UI_ENABLED": "false", "PREFECT_LOGGING_LEVEL": "WARNING", **settings}
    with process_group([sys.executable, "-m", "prefect", "server", "start", "--port", str(port)],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as server:
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2)
                break
            except OSError:
                assert server.poll() is None and time.time() < deadline, "the Prefect server did not start"
                time.sleep(0.5)
        yield {**env, "PREFECT_API_URL": f"http://127.0.0.1:{port}/api"}


# One real server per xdist worker (tests/conftest.py's ``prefect_worker_server``), shared by every
# Prefect test the worker runs: each prefect_test_harness or module server started and migrated a
# database of its own (~10-25 s at load, issue 33). The scheduler looks every 3 s (a schedule test's
# interval), and a served flow polls every 2 s.
WORKER_SERVER_SETTINGS = {"PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "3", "PREFECT_RUNNER_POLL_FREQUENCY": "2"}


@contextmanager
def in_process_client_of(api_url: str) -> Iterator[None]:
    """Flows and clients of this process talk to ``api_url`` inside the block, as Prefect's own
    ``prefect_test_harness`` points them at its server; their logs and events are sent before it ends."""
    import prefect.context
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings({PREFECT_API_URL: api_url}), \
            prefect.context._temporary_global_settings_context(prefect.context.get_settings_context()):
        try:
            yield
        finally:  # what prefect_test_harness drains before it stops its server
            for worker in (APILogWorker, EventsWorker):
                worker.drain_all(timeout=10, at_exit=False)
