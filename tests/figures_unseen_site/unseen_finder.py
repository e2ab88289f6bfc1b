"""The finder that makes flows' figures module unseen as it is imported, shared by the test process
(tests/unseen_figures.py, as ``tests.figures_unseen_site.unseen_finder``) and the processes a test starts with this
folder on their ``PYTHONPATH`` (its sitecustomize.py, as ``unseen_finder``): no pytest here."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

FIGURES = "flows.core.outputs.figures"


class UnseenOnceImported(importlib.abc.MetaPathFinder):
    """Loads the figures module as usual, then hands it to ``then`` (which swaps its ``UNSEEN``), once: a process
    that draws none does not import it (pandas and matplotlib: ~0.8 s of CPU) only to change it."""

    def __init__(self, then: Callable[[ModuleType], None]) -> None:
        self.then = then

    def find_spec(self, name: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if name != FIGURES:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            execute = spec.loader.exec_module

            def exec_module(module: ModuleType) -> None:
                execute(module)
                self.then(module)

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec
