"""The browser workers' watch (flows/sim/pages/browser_thread.py) ends a hung Chromium by its process id, and
only one this process started: before, it killed every process of the user whose command line carried its
marker (`--hitflow-sim-browser=PID.N`, which anyone can put on a command line). No browser is needed here:
a child of this process and a process of someone else carry the same marker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from flows.sim.pages.browser_thread import kill_marked

SLEEP = "import time; time.sleep(60)"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_the_watch_kills_the_browser_it_started_and_no_other_process_with_its_marker() -> None:
    marker = f"--hitflow-sim-browser={os.getpid()}.9{time.monotonic_ns() % 10**6}"
    started = subprocess.Popen([sys.executable, "-c", SLEEP, marker])  # as Playwright's Chromium: a descendant
    # another process of the same user (here reparented away from this one) with the same marker
    stranger = int(subprocess.run(["sh", "-c", f'"{sys.executable}" -c "{SLEEP}" {marker} >/dev/null 2>&1 & echo $!'],
                                  capture_output=True, text=True, check=True).stdout)
    try:
        time.sleep(0.3)  # both have their command lines
        assert kill_marked(marker) == 1
        assert started.wait(timeout=10) == -signal.SIGKILL
        assert _alive(stranger)
    finally:
        started.kill()
        if _alive(stranger):
            os.kill(stranger, signal.SIGKILL)
