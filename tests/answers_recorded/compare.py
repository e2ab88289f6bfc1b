"""Recorded outputs as plain JSON values, compared at a stated precision.

A digest of floats written to their last bit records one CPU: numpy's SIMD paths and BLAS differ by CPU in
the last bits, and an iterative fit that stops on a tolerance can take one step more or less. So every output
is kept as a JSON value (a frame as its columns, dtypes, index and values; an array as its dtype, shape and
values) and floats are compared to ``REL`` relative and ``ABS`` absolute precision: far finer than any
figure the package reports (confidences and skills are read to 3-4 places), far coarser than a CPU's last bits.
Everything else (labels, counts, column names, dtypes, the index, a frame's attrs' keys) is compared exactly.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

REL = 1e-6  # six significant digits
ABS = 1e-9
KEPT_DIGITS = 12  # written with more digits than compared, so a record is never the cause of a mismatch


def recorded_form(value: Any) -> Any:
    """``value`` (frames, arrays, lists, tuples, dicts, scalars) as a JSON value with tagged containers."""
    if isinstance(value, pd.DataFrame):
        return {"frame": {"columns": [str(c) for c in value.columns], "dtypes": [str(t) for t in value.dtypes],
                          "index": [recorded_form(i) for i in value.index],
                          "data": [[recorded_form(v) for v in value[c].tolist()] for c in value.columns],
                          "attrs": recorded_form(value.attrs)}}
    if isinstance(value, pd.Series):
        return {"series": {"dtype": str(value.dtype), "index": [recorded_form(i) for i in value.index],
                           "data": [recorded_form(v) for v in value.tolist()]}}
    if isinstance(value, np.ndarray):
        return {"array": {"dtype": str(value.dtype), "shape": list(value.shape),
                          "data": [recorded_form(v) for v in value.ravel().tolist()]}}
    if isinstance(value, (list, tuple)):
        return {"list": [recorded_form(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {str(k): recorded_form(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}}
    return recorded_scalar(value)


def recorded_scalar(value: Any) -> Any:
    """A scalar as JSON keeps it: bool, int, float (NaN and infinities as Python's json writes them), None, text."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return number if not math.isfinite(number) else float(f"{number:.{KEPT_DIGITS}g}")
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    return str(value)


def differences(recorded: Any, now: Any, where: str = "") -> list[str]:
    """Where two recorded forms differ beyond the stated precision (an empty list when they agree)."""
    if isinstance(recorded, list) and isinstance(now, list):
        if len(recorded) != len(now):
            return [f"{where}: length {len(recorded)} != {len(now)}"]
        pairs = enumerate(zip(recorded, now, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{where}[{i}]")]
    if isinstance(recorded, dict) and isinstance(now, dict):
        if recorded.keys() != now.keys():
            return [f"{where}: keys {sorted(recorded)} != {sorted(now)}"]
        return [d for key in recorded for d in differences(recorded[key], now[key], f"{where}/{key}")]
    if isinstance(recorded, float) and isinstance(now, float):
        return [] if same_float(recorded, now) else [f"{where}: {recorded!r} != {now!r}"]
    if type(recorded) is not type(now) or recorded != now:
        return [f"{where or 'value'}: {recorded!r} != {now!r}"[:300]]
    return []


def same_float(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)
