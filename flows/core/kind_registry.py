"""Where the task kinds are declared (flows/core/task_kinds.py says what a declaration holds): by name, and
the built-in kinds' modules, loaded the first time a name is looked up.

The built-in kinds lie above the core (``flows/campaigns``, ``flows/custom``, ``flows/studies``), so the
core names their modules as text and loads them on demand, as a plugin list: no module of the core or of a
kind imports another kind to find it, and a kind of one's own declares itself the same way
(``register`` before its config is loaded)."""

from __future__ import annotations

import importlib
from typing import Any

BUILT_IN = ("flows.captions.caption_kind", "flows.captions.qualification_kind", "flows.custom.custom_kind",
            "flows.studies.study_kind")
_DECLARED: dict[str, Any] = {}


def declare(name: str, kind: Any) -> None:
    _DECLARED[name] = kind


def known(name: str) -> Any:
    """The kind declared under ``name``, or None. A name not declared yet is looked for among the built-in
    kinds (each module's ``DECLARED``), read from the module even when it was imported before this registry
    (a test that reloads modules makes a second registry, which the kinds' own ``register`` never reached)."""
    if name not in _DECLARED:
        for module in BUILT_IN:
            for kind in getattr(importlib.import_module(module), "DECLARED", ()):
                for each in kind.names:
                    _DECLARED.setdefault(each, kind)
    return _DECLARED.get(name)
