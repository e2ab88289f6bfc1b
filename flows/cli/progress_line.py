"""A progress line on stderr for a command that may take a while."""

from __future__ import annotations

import os
import sys
import threading
import time
from types import TracebackType
from typing import TextIO

ERASE = "\r\x1b[K"  # back to the line's start, clear to its end


class ProgressLine:
    def __init__(self, command: str, stage: str = "working", after: float = 2.0, every: float = 2.0,
                 stream: TextIO | None = None, mode: str | None = None) -> None:
        self.command, self.after, self.every = command, after, every
        self.stream = stream if stream is not None else sys.stderr
        mode = mode or os.environ.get("HITFLOW_PROGRESS", "tty")
        self.in_place = mode == "tty" and self.stream.isatty()
        self.shown_at_all = False
        self._on = self.in_place or mode == "always"
        self._stage, self._start, self._shown = stage, time.monotonic(), float("-inf")
        self._lock, self._done = threading.Lock(), threading.Event()
        self._beat = threading.Thread(target=self._heartbeat, name="progress-line", daemon=True)

    def __enter__(self) -> ProgressLine:
        self._start = time.monotonic()
        if self._on:
            self._beat.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._done.set()
        if self._on:
            self._beat.join()
        with self._lock:
            if self.in_place and self.shown_at_all:
                self.stream.write(ERASE)
                self.stream.flush()

    def stage(self, text: str) -> None:
        """The work now under way; shown at once when the run is past ``after`` and nothing was shown lately."""
        with self._lock:
            self._stage = text
        self._show()

    def _heartbeat(self) -> None:
        while not self._done.wait(min(self.every, self.after) / 4):
            self._show()

    def _show(self) -> None:
        now = time.monotonic()
        with self._lock:
            elapsed = now - self._start
            if not self._on or self._done.is_set() or elapsed < self.after or now - self._shown < self.every:
                return
            self._shown, self.shown_at_all = now, True
            line = f"{self.command}: {self._stage} ({elapsed:.0f} s)"
            self.stream.write(f"{ERASE}{line}" if self.in_place else f"{line}\n")
            self.stream.flush()
