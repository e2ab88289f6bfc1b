"""Where fast_em's EM loops report each iteration: ``PROGRESS`` holds a callable taking one line of text, or None (its
own module: no model imported to listen)."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

PROGRESS: ContextVar[Callable[[str], None] | None] = ContextVar("fast_em_progress", default=None)
