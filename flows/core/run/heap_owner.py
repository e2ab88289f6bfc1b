"""Whether the program embedding hitflow freezes the garbage collector's heap itself.

hitflow spares its commands and runs the collector's full passes over what they loaded
(flows/cli/process_life.py, flows/core/run/free_memory.py) by freezing it, unless the caller already
manages the collector: then it leaves it as it is, since a thaw would hand the caller back everything it
froze. Asking the collector (``gc.get_freeze_count()``) walks the whole frozen list, ~20 ms a call at two
million objects: a caller that freezes says so here once (a test session, a server running campaigns in
its process) and no command or run asks again.
"""

from __future__ import annotations

import gc

_DECLARED = [False]


def caller_freezes_heap(freezes: bool = True) -> None:
    """Declare (or withdraw) that this process freezes the collector's heap itself."""
    _DECLARED[0] = freezes


def caller_manages_collector() -> bool:
    """The caller said so, turned the collector off, or froze objects (asked only when it did not say)."""
    return _DECLARED[0] or not gc.isenabled() or gc.get_freeze_count() > 0
