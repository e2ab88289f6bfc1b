"""Imported by every Python process started with this folder on its ``PYTHONPATH`` (``tests.figures_unseen``):
its runs draw no report figure, as the suite's in-process runs draw none (tests/unseen_figures.py). For the
flow runs that a test's Prefect worker or ``hitflow serve-schedules`` starts as processes of their own, whose
tests read no figure: four to six figures were ~0.3 s of CPU a run that wrote its outputs."""

from __future__ import annotations

import contextvars
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

FIGURES = "flows.core.outputs.figures"


class _UnseenOnceImported:
    """A finder that loads the figures module as usual, then puts in its ``UNSEEN`` a variable whose default
    is True (in every thread, those with an empty context too)."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if name != FIGURES:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            execute = spec.loader.exec_module

            def exec_module(module: ModuleType) -> None:
                execute(module)
                module.UNSEEN = contextvars.ContextVar("figures_unseen", default=True)

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


sys.meta_path.insert(0, _UnseenOnceImported())
