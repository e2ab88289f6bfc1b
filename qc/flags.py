"""The flag table every QC rule returns, and the registry the runner reads.
:data:`FLAG_COLUMNS`: ``worker_id``, ``rule``; ``value`` and ``threshold`` as ``object``; ``assignment_id``,
``image_id`` and ``detail`` as ``str``, blank where they do not apply (built over Python lists: docs/speed.md)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import is_scalar

FLAG_COLUMNS = ["worker_id", "rule", "value", "threshold", "assignment_id", "image_id", "detail"]
TEXT_COLUMNS = ("assignment_id", "image_id", "detail")

RuleFn = Callable[[pd.DataFrame, dict[str, Any]], pd.DataFrame]


@dataclass(frozen=True)
class RegisteredRule:
    name: str
    level: str  # "caption" or "worker"
    fn: RuleFn


RULES: dict[str, RegisteredRule] = {}


def register(name: str, level: str) -> Callable[[RuleFn], RuleFn]:
    def wrap(fn: RuleFn) -> RuleFn:
        RULES[name] = RegisteredRule(name, level, fn)
        return fn

    return wrap


def flag_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows into the flag table, blank (empty string) where a column does not apply."""
    if not rows:
        return _empty()
    if all(type(r) is dict for r in rows):
        fast = _fast_table({c: [r.get(c, math.nan) for r in rows] for c in FLAG_COLUMNS})
        if fast is not None:
            return fast
    return typed_flags(pd.DataFrame(rows, columns=FLAG_COLUMNS))


def flag_columns(columns: dict[str, Any]) -> pd.DataFrame:
    """Columns (equal-length lists, or one value for all rows) into the flag table, without a dict per row."""
    if not columns:
        return _empty()
    lists = [v for v in columns.values() if type(v) is list]
    n = len(lists[0]) if lists else 0
    if n and all((type(v) is list and len(v) == n) or is_scalar(v) for v in columns.values()):
        fast = _fast_table({c: _as_list(columns.get(c, math.nan), n) for c in FLAG_COLUMNS})
        if fast is not None:
            return fast
    return typed_flags(pd.DataFrame(columns, columns=FLAG_COLUMNS))


def typed_flags(frame: pd.DataFrame) -> pd.DataFrame:
    for col in TEXT_COLUMNS:
        # astype(object).fillna("").astype(str) in one pass: built thousands of times a campaign, pandas cost more
        frame[col] = pd.array([_text(v) for v in frame[col].tolist()], dtype=str)
    frame["value"] = frame["value"].astype(object)
    frame["threshold"] = frame["threshold"].astype(object)
    return frame


def _text(value: Any) -> str:
    """A cell as pandas' ``astype(str)`` writes it (bytes decoded), blank when missing."""
    if isinstance(value, str):
        return value
    if is_scalar(value) and pd.isna(value):  # a list in a cell is text, as fillna leaves it
        return ""
    return value.decode() if isinstance(value, bytes) else str(value)


def _empty() -> pd.DataFrame:
    return _EMPTY.copy(deep=False)  # copy-on-write (pandas 3): a caller adding to its table leaves this one


def _as_list(value: Any, n: int) -> list[Any]:
    return value if type(value) is list else [value] * n


def _fast_table(columns: dict[str, list[Any]]) -> pd.DataFrame | None:
    """The flag table of equal-length column lists, or None when a value's inference is left to pandas."""
    typed: dict[str, Any] = {}
    index = pd.RangeIndex(len(columns["rule"]))
    for col in ("worker_id", "rule"):
        if not set(map(type, columns[col])) <= {str}:  # (map and set in C: a flag table may have 40,000 rows)
            return None
        typed[col] = _objects(columns[col])
    for col in ("value", "threshold"):
        values = _as_objects(columns[col])
        if values is None:
            return None
        # text alone stays object here (as astype(object) left it): a Series, which pandas takes as it is
        text = set(map(type, values)) <= {str}
        typed[col] = pd.Series(values, index=index, dtype=object, copy=False) if text else values
    for col in TEXT_COLUMNS:
        texts = _blank_missing(columns[col])
        if texts is None:
            return None
        typed[col] = _objects(texts)
    return pd.DataFrame(typed, index=index, copy=False)


def _objects(values: Sequence[Any]) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


INT64 = (-(2**63), 2**63)
FLOATS = (float, np.float64)
INTS = (int, np.int64)


def _as_objects(values: Sequence[Any]) -> np.ndarray | None:
    """What ``astype(object)`` gives after pandas infers the column; None for a mix other than numbers, bools, text."""
    kinds = set(map(type, values))
    if kinds <= {str} or kinds <= {bool}:
        out = list(values)
    elif kinds <= {*FLOATS, *INTS} and all(INT64[0] <= v < INT64[1] for v in values if type(v) is int):
        out = [float(v) for v in values] if kinds & {*FLOATS} else [int(v) for v in values]
    else:
        return None
    return _objects(out)


def _blank_missing(values: Sequence[Any]) -> list[str] | None:
    """Text kept, None and NaN blank; None when another kind needs pandas' inference first."""
    if set(map(type, values)) <= {str}:
        return list(values)
    out = []
    for v in values:
        if type(v) is str:
            out.append(v)
        elif v is None or (type(v) is float and math.isnan(v)):
            out.append("")
        else:
            return None
    return out


_EMPTY = typed_flags(pd.DataFrame([], columns=FLAG_COLUMNS))
