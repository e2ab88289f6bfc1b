"""The simulator on the wall clock (``--speed`` > 0)."""

from __future__ import annotations

import threading
from collections.abc import Callable


class ClockPump:
    """Calls ``pump`` every ``every_s`` real seconds in a daemon thread until stopped."""

    def __init__(self, pump: Callable[[], None], every_s: float = 0.1):
        self.pump, self.every_s = pump, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="hitflow-sim-clock", daemon=True)

    def start(self) -> ClockPump:
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            self.pump()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
