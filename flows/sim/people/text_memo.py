"""What a pure function made of a page's text, kept for the page's next reader and bounded by the text it holds.

Every worker of a HIT reads the same page, so what a page's words state (a box's limits) is read once a page, not
once an assignment. A page can be megabytes: the memo keeps at most ``max_chars`` characters of keys, the least
recently read dropped first, and never a key over ``largest`` characters (read again each time instead).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class TextMemo(Generic[V]):
    """Values by key (a page's text and what else the function reads), least recently read dropped first."""

    def __init__(self, max_chars: int, largest: int) -> None:
        self.max_chars, self.largest = max_chars, largest
        self._kept: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()  # the simulator's server threads fill pages too

    def get(self, key: Hashable, chars: int, make: Callable[[], V]) -> V:
        """The value kept for ``key`` (whose text is ``chars`` long), else ``make()``'s, kept while it fits."""
        if chars > self.largest:
            return make()
        with self._lock:
            if (kept := self._kept.get(key)) is not None:
                self._kept.move_to_end(key)
                return kept[0]
        value = make()  # (outside the lock: two threads may both make it; the same value)
        with self._lock:
            if key not in self._kept:
                self._kept[key] = (value, chars)
                self._chars += chars
            while self._chars > self.max_chars:
                self._chars -= self._kept.popitem(last=False)[1][1]
        return value

    def __len__(self) -> int:
        return len(self._kept)
