"""The one thread owning Playwright (its sync API is bound to its thread) and a headless Chromium; pages queue to it."""

from __future__ import annotations

import itertools
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flows.sim.pages.browser_check import chromium, say_failed

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
SETTLE_S = 300.0  # a page that takes longer than this in real time is not waited for by the clock
HUNG_S = 120.0  # one page still at work after this long (real time): its browser hangs, and is ended
WATCH_S = 1.0
_browsers = itertools.count(1)


def settle() -> None:
    """Every page a browser worker took is worked before the virtual clock moves (no browser: no wait)."""
    if BrowserThread._instance is not None:
        BrowserThread._instance.settle()


class BrowserThread:
    """The thread driving Chromium; a dead one is replaced at the next ``submit``, its queue failed at once."""

    _lock = threading.Lock()
    _instance: BrowserThread | None = None

    def __init__(self) -> None:
        self.jobs: queue.Queue[Callable[[Any], None] | None] = queue.Queue()
        self.closed = False  # set (under the class lock) once nothing queued here will be worked
        self.marker = f"--hitflow-sim-browser={os.getpid()}.{next(_browsers)}"  # finds this Chromium among others
        self.busy_since: float | None = None
        self.thread = threading.Thread(target=self._loop, name="hitflow-sim-browser", daemon=True)
        self.thread.start()
        threading.Thread(target=self._watch, name="hitflow-sim-browser-watch", daemon=True).start()

    def settle(self, timeout_s: float = SETTLE_S) -> bool:
        """Wait (real time) until every queued page is worked; False if it took longer."""
        deadline = time.monotonic() + timeout_s
        while self.jobs.unfinished_tasks and time.monotonic() < deadline and self.thread.is_alive():
            time.sleep(0.05)
        return not self.jobs.unfinished_tasks

    @classmethod
    def submit(cls, job: Callable[[Any], None]) -> None:
        """Queue ``job`` for the shared thread; a thread that has ended is replaced first."""
        with cls._lock:
            if cls._instance is None or cls._instance.closed:
                cls._instance = BrowserThread()
            cls._instance.jobs.put(job)

    @classmethod
    def close_shared(cls, timeout_s: float = 30.0) -> None:
        """Stop the shared thread and its Chromium after its queue; tests call it between modules."""
        with cls._lock:
            current, cls._instance = cls._instance, None
            if current is not None and not current.closed:
                current.jobs.put(None)
        if current is not None:
            current.thread.join(timeout_s)

    def _loop(self) -> None:
        try:
            self._serve()
        except BaseException as exc:  # Playwright's driver or Chromium could not start or went away
            say_failed(exc if isinstance(exc, Exception) else RuntimeError(type(exc).__name__))
        finally:
            self._fail_queued()

    def _serve(self) -> None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            def launch() -> Any:
                return pw.chromium.launch(executable_path=str(chromium()), headless=True, args=[*FLAGS, self.marker])
            browser = launch()
            while (job := self.jobs.get()) is not None:
                try:
                    self.busy_since = time.monotonic()
                    browser = browser if browser.is_connected() else launch()
                    job(browser)
                except Exception as exc:  # one page's failure must not stop the crowd
                    say_failed(exc)
                finally:
                    self.busy_since = None
                    self.jobs.task_done()
            self.jobs.task_done()
            browser.close()

    def _watch(self) -> None:
        """A Playwright call stuck past ``HUNG_S`` would hold every later page and the clock: kill Chromium."""
        while self.thread.is_alive():
            time.sleep(WATCH_S)
            started = self.busy_since
            if started is not None and time.monotonic() - started > HUNG_S:
                self.busy_since = None
                killed = kill_marked(self.marker)
                sys.stderr.write(f"hitflow sim: a browser worker's page was still at work after {HUNG_S:.0f} s; "
                                 f"its Chromium was ended ({killed} process(es)) and the next page starts a new one\n")

    def _fail_queued(self) -> None:
        """Fail each queued job at once rather than leave its caller waiting; last look under ``submit``'s lock."""
        while True:
            with BrowserThread._lock:
                try:
                    job = self.jobs.get_nowait()
                except queue.Empty:
                    self.closed = True
                    return
            try:
                if job is not None:
                    job(None)
            except Exception as exc:
                say_failed(exc)
            finally:
                self.jobs.task_done()


def kill_marked(marker: str) -> int:
    """Kill our Chromium: this process's descendants whose command line carries ``marker``, by id; how many."""
    killed = 0
    for pid in started_with(marker):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except OSError:  # gone meanwhile
            continue
    return killed


def started_with(marker: str) -> set[int]:
    """The ids of this process's descendants (found by their parents' ids in /proc) that carry ``marker``."""
    parents: dict[int, int] = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:  # the parent's id is the 2nd field after the command's name, which may hold spaces and ")"
            parents[int(proc.name)] = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):  # gone meanwhile
            continue
    ours, frontier = set[int](), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - ours
        ours |= frontier
    return {pid for pid in ours if _carries(pid, marker)}


def _carries(pid: int, marker: str) -> bool:
    try:
        return marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
