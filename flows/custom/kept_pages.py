"""Rendered custom pages kept per process by their values as JSON (re-rendering took ~1/10 of a simulated run's CPU)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

KEPT, MAX_KEPT_CHARS = 64, 256 * 1024
_PAGES: OrderedDict[bytes, str] = OrderedDict()
_LOCK = threading.Lock()  # a flow's tasks may render in threads


def kept_page(parts: list[Any], render: Callable[[], str]) -> str:
    """``render()``, or what it gave before for the same ``parts``; least recently used dropped past KEPT."""
    try:
        key = hashlib.sha256(json.dumps(parts).encode()).digest()
    except (TypeError, ValueError):
        return render()
    with _LOCK:
        if key in _PAGES:
            _PAGES.move_to_end(key)
            return _PAGES[key]
    page = render()
    if len(page) <= MAX_KEPT_CHARS:
        with _LOCK:
            _PAGES[key] = page
            while len(_PAGES) > KEPT:
                _PAGES.popitem(last=False)
    return page
