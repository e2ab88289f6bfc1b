"""crowd-kit's aggregation models, loaded without the packages' ``__init__`` files."""

from __future__ import annotations

import functools
import importlib
import sys
import types
from pathlib import Path
from typing import Any

# method -> (module under crowdkit.aggregation, class)
LIGHT = {"mv": ("classification.majority_vote", "MajorityVote"), "ds": ("classification.dawid_skene", "DawidSkene")}
FAST = {"glad": "GLAD", "one-coin": "OneCoinDawidSkene"}  # postprocess.answers.fast_em's classes
_SKIPPED = ("crowdkit.aggregation", "crowdkit.aggregation.classification")


def model_class(method: str) -> Any:
    """The model class of ``method`` (``mv``: crowd-kit's; the others our vectorised ones)."""
    if method == "ds":  # crowd-kit's own where fast_ds does not reproduce pandas' summing path
        from postprocess.answers.fast_ds import DawidSkene

        return functools.partial(DawidSkene, fallback=_crowd_kit_class("ds"))
    return _crowd_kit_class(method)


def _crowd_kit_class(method: str) -> Any:
    if method == "mace":
        from postprocess.answers.mace_em import MACE

        return MACE
    if method in FAST:
        from postprocess.answers import fast_em

        return getattr(fast_em, FAST[method])
    if "crowdkit.aggregation" in sys.modules:
        import crowdkit.aggregation as everything

        return getattr(everything, LIGHT[method][1])
    module, name = LIGHT[method]
    return getattr(_without_package_inits(f"crowdkit.aggregation.{module}"), name)


def _without_package_inits(name: str) -> types.ModuleType:
    """``importlib.import_module(name)`` with stand-ins for the packages in ``_SKIPPED``."""
    import crowdkit  # its own __init__ holds only the version

    root = Path(crowdkit.__path__[0])
    for package in _SKIPPED:
        stand_in = types.ModuleType(package)
        stand_in.__path__ = [str(root.joinpath(*package.split(".")[1:]))]
        stand_in.__package__ = package
        sys.modules[package] = stand_in
    try:
        return importlib.import_module(name)
    finally:
        for package in _SKIPPED:
            del sys.modules[package]
