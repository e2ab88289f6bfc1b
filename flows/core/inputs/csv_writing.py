"""CSV files out: one writer, neutralising formulas where people open the file."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import IO, Any

import pandas as pd

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
    out = _as_written(frame, for_spreadsheet)
    path = Path(path)
    # written beside and renamed in, so no partial file under the final name (a pipe is written in place)
    target = path.resolve() if path.is_symlink() else path  # a link's file is written, not the link replaced
    staged = target.with_name(f".{target.name}.{os.getpid()}.part") if _renamable(target) else path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # CRLF rows (RFC 4180): csv then quotes every field holding a CR, which a reader would split on
        out.to_csv(staged, index=False, lineterminator="\r\n")
        if staged != path:
            os.replace(staged, target)
    except OSError as exc:
        raise InputFormatError(f"{path}: cannot write ({exc.strerror}); choose a writable --out") from exc
    finally:
        if staged != path:
            staged.unlink(missing_ok=True)
    return path


def _renamable(path: Path) -> bool:
    """Whether ``path`` is a regular file's place (absent or a file), which a rename can replace."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False
