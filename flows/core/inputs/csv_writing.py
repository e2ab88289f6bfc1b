"""CSV files out: one writer, neutralising formulas where people open the file."""

from __future__ import annotations

import csv
import io
import math
import os
import re
import stat
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from flows.core.errors import InputFormatError

# and the fullwidth =+-@, which spreadsheets with an East Asian input method read as their ASCII forms
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
# invisible characters before a formula: a cell starting with them is judged by what follows
INVISIBLE_LEAD = "\u200b\u200c\u200d\u2060\ufeff\u180e"
PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def write_dataset(frame: pd.DataFrame, out_dir: Path) -> Path:
    """``dataset.csv`` with formulas neutralised, and ``dataset.raw.csv`` with the workers' exact text."""
    write_csv(frame, out_dir / "dataset.raw.csv", for_spreadsheet=False)
    return write_csv(frame, out_dir / "dataset.csv")


def neutralise(value: Any) -> Any:
    """A cell a spreadsheet would run as a formula made inert by OWASP's rule (a plain number stays)."""
    if not isinstance(value, str):
        return value
    lead = value.lstrip(INVISIBLE_LEAD)
    if lead.startswith(FORMULA_STARTS) and not (lead == value and PLAIN_NUMBER.fullmatch(value)):
        return "'" + value
    return value


# the first characters of a text cell that may need neutralising: no other cell is looked at again
_MAY_START = frozenset(FORMULA_STARTS) | frozenset(INVISIBLE_LEAD)


def _neutralised(column: pd.Series) -> pd.Series:
    """``column`` with its formula cells neutralised (itself when it has none)."""
    if column.dtype.kind in "biufcmM":  # numbers, booleans, times: no text cell
        return column
    values = column.tolist()
    changed = {k: neutralise(v) for k, v in enumerate(values) if isinstance(v, str) and v[:1] in _MAY_START}
    changed = {k: v for k, v in changed.items() if v is not values[k]}
    if not changed:
        return column
    for k, v in changed.items():
        values[k] = v
    dtype = column.dtype if isinstance(column.dtype, pd.StringDtype) else object
    return pd.Series(values, index=column.index, name=column.name, dtype=dtype)


# Cells csv's writer writes as pandas' to_csv does (str() of each; None and NaN blank): Arrow may write a table of them
_PLAIN_CELLS = frozenset({str, int, float, bool, type(None)})
_MAY_START_RE2 = "^[" + "".join(f"\\x{{{ord(c):x}}}" for c in sorted(_MAY_START)) + "]"
ROWS_AT_ONCE = 8192


def _cell_lists(frame: pd.DataFrame) -> list[tuple[list[Any], list[str]]] | None:
    """Per column its cells and their text as csv writes it, or None where pandas writes the table."""
    if frame.empty or frame.shape[1] < 2 or not all(isinstance(c, str) for c in frame.columns):
        return None  # (one column: csv quotes an empty row's cell)
    columns = []
    for k in range(frame.shape[1]):
        column = frame.iloc[:, k]
        if column.dtype != object and not isinstance(column.dtype, pd.StringDtype):
            return None
        values = column.tolist()
        kinds = set(map(type, values))
        if not kinds <= _PLAIN_CELLS:
            return None
        # str() is what csv writes of a number (a float's repr) or a boolean
        columns.append((values, values if kinds == {str} else [
            "" if v is None or (type(v) is float and math.isnan(v)) else v if type(v) is str else str(v)
            for v in values]))
    return columns


def _arrow_rows(columns: list[tuple[list[Any], list[str]]], header: list[str], for_spreadsheet: bool,
                out: IO[bytes]) -> bool:
    """The header and rows as csv's writer (minimal quoting, CRLF) writes them; False when Arrow cannot hold a
    cell (a lone surrogate: pandas' error)."""
    line = io.StringIO()
    csv.writer(line, lineterminator="\r\n").writerow(header)
    out.write(line.getvalue().encode("utf-8"))
    for start in range(0, len(columns[0][0]), ROWS_AT_ONCE):
        parts = []
        for values, texts in columns:
            try:
                cells = pa.array(texts[start:start + ROWS_AT_ONCE], pa.large_string())
            except (pa.ArrowException, UnicodeEncodeError):
                return False
            if for_spreadsheet:
                cells = _arrow_neutralised(cells, values[start:start + ROWS_AT_ONCE])
            parts.append(_quoted(cells))
        out.write(_joined(parts))
    return True


def _arrow_neutralised(cells: pa.Array, values: list[Any]) -> pa.Array:
    """``cells`` with the text ``values`` a spreadsheet would run neutralised (a number as a number is left alone)."""
    maybe = np.flatnonzero(pc.match_substring_regex(cells, _MAY_START_RE2).to_numpy(zero_copy_only=False)).tolist()
    changed = {k: neutralise(values[k]) for k in maybe if type(values[k]) is str}
    changed = {k: v for k, v in changed.items() if v is not values[k]}
    if not changed:
        return cells
    at = np.zeros(len(cells), dtype=bool)
    at[list(changed)] = True
    return pc.replace_with_mask(cells, pa.array(at), pa.array(list(changed.values()), pa.large_string()))


def _quoted(cells: pa.Array) -> pa.Array:
    """A cell holding a comma, a quote or a line break in quotes, its quotes doubled (csv's minimal quoting)."""
    needs = pc.match_substring_regex(cells, '[,"\r\n]')
    if not pc.any(needs).as_py():
        return cells
    mark = pa.scalar('"', pa.large_string())
    some = pc.replace_substring(cells.filter(needs), '"', '""')  # only those: a column's copies are few MB
    return pc.replace_with_mask(cells, needs, pc.binary_join_element_wise(mark, some, mark,
                                                                          pa.scalar("", pa.large_string())))


def _joined(parts: list[pa.Array]) -> memoryview:
    """The cells of each row joined by commas, each row ended by CRLF: one buffer, no copy of it."""
    def text(s: str) -> pa.Scalar:
        return pa.scalar(s, pa.large_string())

    parts[-1] = pc.binary_join_element_wise(parts[-1], text("\r\n"), text(""))
    rows = pc.binary_join_element_wise(*parts, text(","))
    parts.clear()
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int64)
    return memoryview(rows.buffers()[2])[offsets[rows.offset]:offsets[rows.offset + len(rows)]]


def _as_written(frame: pd.DataFrame, for_spreadsheet: bool) -> pd.DataFrame:
    if not for_spreadsheet:
        return frame
    if frame.empty:
        return frame.rename(columns=neutralise)
    out = frame.copy(deep=False)
    for k in range(frame.shape[1]):
        column = frame.iloc[:, k]
        done = _neutralised(column)
        if done is not column:
            out.isetitem(k, done)
    return out.rename(columns=neutralise)


def append_csv(frame: pd.DataFrame, handle: IO[str], *, header: bool, for_spreadsheet: bool = True) -> None:
    """``frame``'s rows (and ``header``) appended to an open text file, as :func:`write_csv` writes them."""
    _as_written(frame, for_spreadsheet).to_csv(handle, index=False, header=header, lineterminator="\r\n")


def write_csv(frame: pd.DataFrame, path: Path, *, for_spreadsheet: bool = True) -> Path:
    """Write ``frame`` to ``path``; ``for_spreadsheet``: formula cells neutralised."""
    path = Path(path)
    # written beside and renamed in, so no partial file under the final name (a pipe is written in place)
    target = path.resolve() if path.is_symlink() else path  # a link's file is written, not the link replaced
    staged = target.with_name(f".{target.name}.{os.getpid()}.part") if _renamable(target) else path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Arrow only into a staged file: pandas would infer compression from a final name's suffix
        if staged == path or not _written_by_arrow(frame, staged, for_spreadsheet):
            # CRLF rows (RFC 4180): csv then quotes every field holding a CR, which a reader would split on
            _as_written(frame, for_spreadsheet).to_csv(staged, index=False, lineterminator="\r\n")
        if staged != path:
            os.replace(staged, target)
    except OSError as exc:
        raise InputFormatError(f"{path}: cannot write ({exc.strerror}); choose a writable --out") from exc
    finally:
        if staged != path:
            staged.unlink(missing_ok=True)
    return path


def _written_by_arrow(frame: pd.DataFrame, staged: Path, for_spreadsheet: bool) -> bool:
    columns = _cell_lists(frame)
    if columns is None:
        return False
    header = [neutralise(c) for c in frame.columns] if for_spreadsheet else list(frame.columns)
    with staged.open("wb") as fh:
        return _arrow_rows(columns, header, for_spreadsheet, fh)


def _renamable(path: Path) -> bool:
    """Whether ``path`` is a regular file's place (absent or a file), which a rename can replace."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False
