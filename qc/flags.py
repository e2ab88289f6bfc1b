"""The flag table every QC rule returns, and the registry the runner reads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
from pandas.api.types import is_scalar

FLAG_COLUMNS = ["worker_id", "rule", "value", "threshold", "assignment_id", "image_id", "detail"]

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
    return typed_flags(pd.DataFrame(rows, columns=FLAG_COLUMNS))


def flag_columns(columns: dict[str, Any]) -> pd.DataFrame:
    """Columns (equal-length lists, or one value for every row) into the flag table: many flags
    at once without a dict per row."""
    return typed_flags(pd.DataFrame(columns, columns=FLAG_COLUMNS))


def typed_flags(frame: pd.DataFrame) -> pd.DataFrame:
    for col in ("assignment_id", "image_id", "detail"):
        # what astype(object).fillna("").astype(str) gives, in one pass over a list (a rule's frame is small
        # and built thousands of times a campaign: three pandas calls a column cost more than the text)
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
