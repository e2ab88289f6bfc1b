"""Realistic pacing for the simulator: throttling and latency."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field


@dataclass
class Pacing:
    latency_ms: float = 0.0
    rate_per_s: float = 0.0  # 0: no rate limit
    burst: float = 0.0  # bucket depth; 0: one second's worth of calls
    throttled: int = 0
    _tokens: float = -1.0
    _stamp: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _rng: random.Random = field(default_factory=lambda: random.Random(7))

    def admit(self) -> bool:
        """Take a token for one call; False: answer ThrottlingException instead."""
        if self.rate_per_s <= 0:
            return True
        depth = self.burst or self.rate_per_s
        with self._lock:
            now = time.monotonic()
            refill = (now - self._stamp) * self.rate_per_s
            self._tokens = depth if self._tokens < 0 else min(depth, self._tokens + refill)
            self._stamp = now
            if self._tokens >= 1:
                self._tokens -= 1
                return True
            self.throttled += 1
            return False

    def wait(self) -> None:
        """The call's round trip (+-20% jitter)."""
        if self.latency_ms > 0:
            with self._lock:
                jitter = self._rng.uniform(0.8, 1.2)
            time.sleep(self.latency_ms * jitter / 1000.0)
