"""A review page's hold on its campaign's platform, let go once idle."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field

from flows.core.run.run_context import Run
from flows.platforms.targets import held_briefly

IDLE_S = 5.0  # a person deciding card after card keeps the platform open; a pause lets others have it


@dataclass
class PlatformLease:
    """``connect`` opens the campaign's platform (a Run with a client); :meth:`using` lends it for one use."""

    connect: Callable[[], AbstractContextManager[Run]]
    idle_s: float = IDLE_S
    _open: ExitStack | None = None
    _run: Run | None = None
    _users: int = 0
    _timer: threading.Timer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> Run:
        """The open platform, opened now if it is not (the caller must :meth:`give_back` it)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._run is None:
                stack = ExitStack()
                with held_briefly():  # a run of another campaign waits for this hold, not fails
                    self._run = stack.enter_context(self.connect())
                self._open = stack
            self._users += 1
            return self._run

    def give_back(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._run is not None:
                self._timer = threading.Timer(self.idle_s, self._let_go_if_idle)
                self._timer.daemon = True
                self._timer.start()

    @contextmanager
    def using(self) -> Iterator[Run]:
        run = self.take()
        try:
            yield run
        finally:
            self.give_back()

    def _let_go_if_idle(self) -> None:
        with self._lock:
            if self._users == 0:
                self._close()

    def close(self) -> None:
        """Let go now (the page is stopping)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._close()

    def _close(self) -> None:
        stack, self._open, self._run = self._open, None, None
        if stack is not None:
            stack.close()
