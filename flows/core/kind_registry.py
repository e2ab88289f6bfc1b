"""Where task kinds are declared, loaded by name the first time one is looked up."""

from __future__ import annotations

import importlib
from typing import Any

BUILT_IN = ("flows.captions.caption_kind", "flows.custom.custom_kind", "flows.studies.study_kind")
_DECLARED: dict[str, Any] = {}


def declare(name: str, kind: Any) -> None:
    _DECLARED[name] = kind


def known(name: str) -> Any:
    """The kind declared under ``name``, or None (a built-in kind read from its ``DECLARED``)."""
    if name not in _DECLARED:
        for module in BUILT_IN:
            for kind in getattr(importlib.import_module(module), "DECLARED", ()):
                for each in kind.names:
                    _DECLARED.setdefault(each, kind)
    return _DECLARED.get(name)
