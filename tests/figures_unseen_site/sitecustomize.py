"""Imported by every Python process started with this folder on its ``PYTHONPATH`` (``tests.unseen_figures
.figures_unseen``): its runs draw no report figure, as the suite's in-process runs draw none. For the flow runs
that a test's Prefect worker or ``hitflow serve-schedules`` starts as processes of their own, whose tests read no
figure: four to six figures were ~0.3 s of CPU a run that wrote its outputs."""

from __future__ import annotations

import contextvars
import sys
from types import ModuleType

from unseen_finder import UnseenOnceImported  # this folder, first on the path


def _unseen(figures: ModuleType) -> None:
    """A variable whose default is True, in every thread (those with an empty context too)."""
    figures.UNSEEN = contextvars.ContextVar("figures_unseen", default=True)  # type: ignore[attr-defined]


sys.meta_path.insert(0, UnseenOnceImported(_unseen))
