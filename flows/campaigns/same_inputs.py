"""A decision taken again on the same inputs returns what it returned (the scores are costly)."""

from __future__ import annotations

import copy
import hashlib
import pickle
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import pandas as pd

T = TypeVar("T")
_KEPT: dict[bytes, Any] = {}  # the last results by their inputs' content
_LOCK = threading.Lock()  # the task server asks from its own threads


def decided(inputs: tuple[Any, ...], decide: Callable[[], T], keep: int = 32) -> T:
    """``decide()``, or a copy of its result on inputs of the same content."""
    digest = hashlib.blake2b(digest_size=16)
    for part in inputs:
        if isinstance(part, pd.DataFrame):
            digest.update(pickle.dumps([list(part.columns), *(part[c].tolist() for c in part.columns)], 5))
        else:
            digest.update(repr(part).encode())
        digest.update(b"\0")
    name = digest.digest()
    found: T | None = _KEPT.get(name)
    if found is None:
        found = decide()
        with _LOCK:
            if len(_KEPT) >= keep:
                _KEPT.pop(next(iter(_KEPT)))
            _KEPT[name] = found
    return copy.copy(found)  # a frame's copy is deep: a caller's change never reaches the kept one
