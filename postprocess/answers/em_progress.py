"""Where postprocess.answers.fast_em's EM loops report each iteration: ``PROGRESS`` holds a callable taking one
line of text, or None. Its own module so that a command can listen without importing the models (and
scipy with them) before it knows it needs them."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

PROGRESS: ContextVar[Callable[[str], None] | None] = ContextVar("fast_em_progress", default=None)
