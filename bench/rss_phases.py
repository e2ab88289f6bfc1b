"""Peak resident memory per phase of a run, sampled from /proc/self/statm by a thread.

ru_maxrss gives one number for the whole process; to say where the memory goes, the bench also
needs the peak while each phase ran. Sampling (every 20 ms) is cheap enough to leave on,
unlike tracemalloc, which slowed a 2,000-image run several times over.
"""

from __future__ import annotations

import os
import threading
from collections import defaultdict
from pathlib import Path

PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20


def rss_mb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * PAGE_MB


class PhaseRss:
    """``enter("qc")`` ... ``enter(before)`` records the peak RSS seen while the phase ran. Time in no
    phase counts as "start": before the first, between steps and after the outputs (so its peak at
    COCO's size, 658 MB, was what the outputs left resident, not the run's start)."""

    def __init__(self, every_s: float = 0.02):
        self.current = "start"
        self.peaks: dict[str, float] = defaultdict(float)
        self._stop = threading.Event()
        self._every = every_s
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> PhaseRss:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(self._every):
            self._note()

    def _note(self) -> None:
        phase, now = self.current, rss_mb()
        self.peaks[phase] = max(self.peaks[phase], now)

    def enter(self, phase: str) -> str:
        """Switch to ``phase``; returns the phase it replaces (to switch back to)."""
        self._note()
        before, self.current = self.current, phase
        return before

    def rounded(self) -> dict[str, float]:
        return {k: round(v, 1) for k, v in sorted(self.peaks.items())}
