"""Paths named inside a file stay in that file's folder."""

from __future__ import annotations

import os
from pathlib import Path

from flows.core.errors import ConfigError

OUTSIDE_PATHS_ENV = "HITFLOW_ALLOW_OUTSIDE_PATHS"  # set (to 1) by `--allow-outside-paths`; later commands read it


def outside_allowed() -> bool:
    return os.environ.get(OUTSIDE_PATHS_ENV, "") in ("1", "yes")


def contained(target: Path, folder: Path, named_by: str) -> Path:
    """``target`` when inside ``folder`` (symlinks resolved) or outside paths are allowed; else a ConfigError."""
    root = folder.resolve()
    if target.resolve().is_relative_to(root) or outside_allowed():
        return target
    raise ConfigError(f"{named_by} points at {target}, outside the folder {root} (symlinks followed); move the "
                      f"file there, or pass --allow-outside-paths ({OUTSIDE_PATHS_ENV}=1)")
