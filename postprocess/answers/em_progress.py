"""Where fast_em's EM loops report each iteration (``PROGRESS``)."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

PROGRESS: ContextVar[Callable[[str], None] | None] = ContextVar("fast_em_progress", default=None)
