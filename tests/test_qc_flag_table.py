"""The flag table built in one pass (qc/flags.py's fast path) is the very table pandas' own path builds:
``pd.DataFrame(rows)`` then the column-by-column retyping, kept verbatim from before the fast path
(cdcbdc4, bench/qc_flags_before.py) as the independent computation, over random rows and columns of
every kind a rule may give."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.qc_flags_before import flag_columns as old_flag_columns
from bench.qc_flags_before import flag_frame as old_flag_frame
from qc.flags import FLAG_COLUMNS, flag_columns, flag_frame

TEXT = st.text(max_size=8)
# every kind of cell a rule writes, and the odd ones whose inference is left to pandas
CELLS = st.one_of(TEXT, st.none(), st.just(math.nan), st.integers(-5, 5), st.integers(2**62, 2**66),
                  st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.builds(np.float64, st.floats()),
                  st.builds(np.int64, st.integers(-9, 9)), st.builds(np.int32, st.integers(-9, 9)),
                  TEXT.map(str.encode), st.builds(np.str_, TEXT))
# a column of one kind (the common case) or of a random mix
KINDS = [TEXT, st.integers(-5, 5), st.floats(allow_nan=False, width=32), st.booleans(), st.one_of(TEXT, st.none())]


def column_cells(draw: st.DrawFn, n: int, column: str) -> list[Any]:
    """Mostly text in the id columns, as rules write them (so most tables take the fast path)."""
    usual = [TEXT] * 20 if column in ("worker_id", "rule", "assignment_id", "image_id", "detail") else KINDS * 3
    kind = draw(st.sampled_from([*usual, *KINDS, st.one_of(st.integers(0, 9), st.floats(0, 1)), CELLS]))
    return draw(st.lists(kind, min_size=n, max_size=n))


@st.composite
def rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    n = draw(st.integers(0, 5))
    cells = {c: column_cells(draw, n, c) for c in FLAG_COLUMNS if draw(st.integers(0, 5))}  # a column may be absent
    gaps = draw(st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.sampled_from(FLAG_COLUMNS)), max_size=2))
    out = [{c: v[i] for c, v in cells.items()} for i in range(n)]
    for i, c in gaps:  # and a row may lack a key the others have
        if i < n:
            out[i].pop(c, None)
    return out


@st.composite
def columns(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 5))
    out: dict[str, Any] = {}
    for c in FLAG_COLUMNS:
        how = draw(st.sampled_from(["list", "list", "scalar", "absent"]))
        if how == "list":
            out[c] = column_cells(draw, n, c)
        elif how == "scalar":
            out[c] = draw(st.one_of(*KINDS, CELLS))
    if not any(type(v) is list for v in out.values()):
        out["worker_id"] = [f"W{i}" for i in range(n)]
    return out


@given(found=rows())
@settings(max_examples=60, deadline=None)
def test_flag_frame_is_pandas_own_table(found: list[dict[str, Any]]) -> None:
    pd.testing.assert_frame_equal(flag_frame(found), old_flag_frame(found), check_dtype=True)


@given(found=columns())
@settings(max_examples=60, deadline=None)
def test_flag_columns_is_pandas_own_table(found: dict[str, Any]) -> None:
    try:
        before = old_flag_columns(found)
    except (ValueError, TypeError) as exc:  # pandas refuses it (say, lists of two lengths): so must the fast path
        refused = type(exc)
        try:
            flag_columns(found)
        except refused:
            return
        raise AssertionError(f"flag_columns took what pandas refused ({exc})") from None
    pd.testing.assert_frame_equal(flag_columns(found), before, check_dtype=True)


def test_typical_flags_keep_their_kinds() -> None:
    """The shapes rules give most, exactly: an int among floats is a float, a NaN text cell blank."""
    found = flag_frame([{"worker_id": "W1", "rule": "r", "value": 1, "threshold": 0.5, "detail": "a"},
                        {"worker_id": "W2", "rule": "r", "value": 2.5, "threshold": 0.5, "image_id": "i"}])
    assert found["value"].tolist() == [1.0, 2.5] and type(found["value"][0]) is float
    assert found["assignment_id"].tolist() == ["", ""] and found["image_id"].tolist() == ["", "i"]
    pd.testing.assert_frame_equal(found, old_flag_frame([dict(r) for r in [
        {"worker_id": "W1", "rule": "r", "value": 1, "threshold": 0.5, "detail": "a"},
        {"worker_id": "W2", "rule": "r", "value": 2.5, "threshold": 0.5, "image_id": "i"}]]))


def test_an_empty_table_is_a_fresh_one() -> None:
    first = flag_frame([])
    first["extra"] = 1
    first.loc[0] = ["W", "r", 1, 1, "", "", "", 1]
    pd.testing.assert_frame_equal(flag_frame([]), old_flag_frame([]), check_dtype=True)
    pd.testing.assert_frame_equal(flag_columns({}), old_flag_columns({}), check_dtype=True)
