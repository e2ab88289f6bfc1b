"""Where the task kinds are declared (flows/core/task_kinds.py says what a declaration holds): by name, and
the built-in kinds' modules, loaded the first time a name is looked up.

The built-in kinds lie above the core (``flows/campaigns``, ``flows/custom``, ``flows/studies``), so the
core names their modules as text and loads them on demand, as a plugin list: no module of the core or of a
kind imports another kind to find it, and a kind of one's own declares itself the same way
(``register`` before its config is loaded)."""

from __future__ import annotations

import importlib
from typing import Any

BUILT_IN = ("flows.campaigns.caption_kind", "flows.campaigns.qualification_kind", "flows.custom.custom_kind",
            "flows.studies.study_kind")
_DECLARED: dict[str, Any] = {}
_LOADED: list[bool] = []


def declare(name: str, kind: Any) -> None:
    _DECLARED[name] = kind


def known(name: str) -> Any:
    """The kind declared under ``name``, or None; the built-in kinds are loaded once, first."""
    if not _LOADED:
        _LOADED.append(True)
        for module in BUILT_IN:
            importlib.import_module(module)
    return _DECLARED.get(name)
