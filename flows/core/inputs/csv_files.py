"""CSV files in: one careful reader for every CSV the CLI reads."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from flows.core.errors import InputFormatError, shown
from flows.core.inputs.text_files import MAX_INPUT_BYTES, read_text, read_text_marking

FIELD_LIMIT = 1 << 20  # characters per field: 8x csv's default; a caption is a sentence, not a file


@dataclass(frozen=True)
class CsvTable:
    """A CSV's header and rows, all text; ``lines[i]`` is the file line row ``i`` ended on."""

    path: Path
    columns: list[str]
    rows: list[dict[str, str]]
    lines: list[int]

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=self.columns, dtype=str)

    def with_rows(self, what: str) -> CsvTable:
        """Itself, or an error when it has a header and no rows (a run would post nothing)."""
        if not self.rows:
            raise InputFormatError(f"{self.path}: {what} has a header but no rows; add at least one item")
        return self


def _records(path: Path, text: str, delimiter: str, limit: int = FIELD_LIMIT) -> Iterator[tuple[int, list[str]]]:
    """(line, fields) per non-blank record, strict quoting, csv's field limit raised for each record."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    while True:
        start = reader.line_num + 1  # the record's first line: a quote opened there may end the file
        old = csv.field_size_limit(limit)
        try:
            rec = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _unreadable(path, exc, start, max(reader.line_num, 1), delimiter) from exc
        finally:
            csv.field_size_limit(old)
        if rec:
            yield reader.line_num, rec


def _unreadable(path: Path, exc: csv.Error, start: int, end: int, delimiter: str) -> InputFormatError:
    """The one line for a record csv cannot read, at the line the record starts on."""
    quoting = (f"a field holding {delimiter!r}, quotes or a line break must be quoted, with inner quotes "
               'doubled ("")')
    too_long = "field larger" in str(exc)
    if start < end and (too_long or "unexpected end of data" in str(exc)):
        what = "runs past the field limit" if too_long else "is never closed"
        return InputFormatError(f"{path}:{start}: cannot read the CSV (a quoted field opened on line {start} "
                                f"{what}, read to line {end}; close that quote: {quoting})")
    if too_long:
        return InputFormatError(f"{path}:{start}: cannot read the CSV (a field is longer than {FIELD_LIMIT} "
                                "characters; no cell needs that much: fix or remove that line)")
    return InputFormatError(f"{path}:{end}: cannot read the CSV ({exc}; check the quotes: {quoting})")


def _first_line(text: str) -> str:
    """The text up to its first line feed (slicing, not ``split``, which copies all the rest too)."""
    end = text.find("\n")
    return text if end < 0 else text[:end]


def _sniff(text: str) -> str:
    first = _first_line(text)
    return "\t" if first.count("\t") > first.count(",") else ","


def read_csv_table(path: Path, required: Iterable[str] = (), what: str = "it", delimiter: str = ",",
                   names: list[str] | None = None) -> CsvTable:
    """Rows of ``path`` as text, header (or ``names``), ``required`` columns and widths checked."""
    header, rows = csv_rows(path, required, what, delimiter, names)
    lines, dicts = [], []
    for line, row in rows:
        lines.append(line)
        dicts.append(row)
    return CsvTable(Path(path), header, dicts, lines)


def csv_rows(path: Path, required: Iterable[str] = (), what: str = "it", delimiter: str = ",",
             names: list[str] | None = None) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """:func:`read_csv_table`'s header and its ``(line, row)`` pairs as they are read, each checked."""
    text = read_text(Path(path), what)
    delimiter = _sniff(text) if delimiter == "auto" else delimiter
    records = _records(path, text, delimiter)
    first = next(records, None) if names is None else (0, names)
    if first is None:
        raise InputFormatError(f"{path}: holds no CSV record; {what} needs a header row")
    header = _header(path, first[1]) if names is None else names
    need = list(required)
    if missing := [c for c in need if c not in header]:
        found = ", ".join(shown(h, 30) for h in header[:12]) + (", ..." if len(header) > 12 else "")
        raise InputFormatError(f"{path}: missing column(s) {', '.join(missing)}; {what} needs "
                               f"{', '.join(need)} (columns are {found})")
    return header, _checked_rows(path, header, records, what, delimiter)


def _header(path: Path, first: list[str]) -> list[str]:
    header = [h.strip() for h in first]
    if len(set(header)) != len(header):
        repeated = sorted({h for h in header if header.count(h) > 1})
        raise InputFormatError(f"{path}:1: repeated column name(s) {', '.join(map(shown, repeated))}; "
                               "give each column one name")
    return header


def _checked_rows(path: Path, header: list[str], records: Iterator[tuple[int, list[str]]], what: str,
                  delimiter: str) -> Iterator[tuple[int, dict[str, str]]]:
    for line, rec in records:
        if len(rec) != len(header):
            raise InputFormatError(f"{path}:{line}: {len(rec)} field(s), but {what} has {len(header)} "
                                   f"(separated by {delimiter!r}); quote fields that hold the separator, and give "
                                   "every row every column")
        yield line, dict(zip(header, rec, strict=True))


@dataclass(frozen=True)
class RowFault:
    """A row of workers' answers not read: its last line, the reason, what could be read of it (its ids)."""

    line: int
    reason: str
    row: dict[str, str]


def read_answer_table(path: Path, what: str = "it", delimiter: str = ",") -> tuple[CsvTable, list[RowFault]]:
    """:func:`read_csv_table` for workers' answers: a bad row comes back as a :class:`RowFault`."""
    text, marked = read_text_marking(Path(path), what)
    delimiter = _sniff(text) if delimiter == "auto" else delimiter
    records = _records(path, text, delimiter, MAX_INPUT_BYTES)  # a long field is a row's fault, below
    first = next(records, None)
    if first is None:
        raise InputFormatError(f"{path}: holds no CSV record; {what} needs a header row")
    header = _header(path, first[1])
    table, faults, end = CsvTable(Path(path), header, [], []), [], first[0]
    for line, rec in records:
        start, end = end + 1, line
        reason = _row_fault(header, rec, [marked[n] for n in range(start, line + 1) if n in marked], delimiter)
        if reason:
            faults.append(RowFault(line, reason, {k: v[:200] for k, v in zip(header, rec, strict=False)}))
        else:
            table.rows.append(dict(zip(header, rec, strict=True)))
            table.lines.append(line)
    if faults and not table.rows:
        raise InputFormatError(f"{path}: none of its {len(faults)} row(s) could be read (first, line "
                               f"{faults[0].line}: {faults[0].reason}); is it the file you meant?")
    return table, faults


def _row_fault(header: list[str], rec: list[str], marks: list[str], delimiter: str) -> str:
    long = [(name, len(v)) for name, v in zip(header, rec, strict=False) if len(v) > FIELD_LIMIT]
    return (marks[0] if marks else f"{len(rec)} field(s), but the header has {len(header)} (separated by "
            f"{delimiter!r})" if len(rec) != len(header) else
            f"{long[0][0]} holds {long[0][1]:,} characters, over the {FIELD_LIMIT:,} a cell may hold" if long else "")


# A file csv's strict reader takes, as a regex; Arrow's parser accepts bad quoting silently, so it gets only these.
def _strict_csv(delimiter: str) -> re.Pattern[str]:
    d = re.escape(delimiter)
    field = rf'(?:"(?:[^"]++|"")*+"|[^"{d}\r\n][^{d}\r\n]*+|)'
    return re.compile(rf"(?:{field}(?:{d}{field})*+(?:\r\n|\n|\r|\Z))*+")


def _quoting_plain(raw: bytes, delimiter: str) -> bool:
    """True when every quote in ``raw`` opens a field or closes one (or is doubled inside it): such a file matches
    :func:`_strict_csv` (a quote inside an unquoted field, rare, leaves the answer to the regex). One pass of numpy."""
    data = np.frombuffer(raw, dtype=np.uint8)
    quotes = np.flatnonzero(data == ord('"'))
    if len(quotes) % 2:
        return False  # a quoted field never closed, or a stray quote
    opens, closes = quotes[0::2], quotes[1::2]
    ends = np.frombuffer(f"{delimiter}\r\n".encode(), dtype=np.uint8)
    doubled = np.zeros(len(opens), dtype=bool)  # a quote that follows the closing one at once: "" inside a field
    doubled[1:] = opens[1:] == closes[:-1] + 1
    before = data[np.maximum(opens - 1, 0)]
    opens_ok = (opens == 0) | np.isin(before, ends) | doubled
    after = data[np.minimum(closes + 1, len(data) - 1)]
    closes_ok = (closes == len(data) - 1) | np.isin(after, ends) | np.r_[doubled[1:], False]
    return bool(opens_ok.all() and closes_ok.all())


def fast_columns(text: str, delimiter: str = "auto") -> tuple[list[str], pa.Table] | None:
    """A clean CSV's header and rows as one Arrow table of text; None where the careful reader is needed."""
    delimiter = _sniff(text) if delimiter == "auto" else delimiter
    # a first line without quotes or CR is the header record on its own: csv reads just that line
    first = _first_line(text)
    plain = first.strip() and '"' not in first and "\r" not in first.removesuffix("\r")
    records = csv.reader(io.StringIO(first if plain else text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(r for r in records if r)
    except (csv.Error, StopIteration):
        return None
    raw = text.encode("utf-8")
    if not (_quoting_plain(raw, delimiter) or _strict_csv(delimiter).fullmatch(text)):
        return None
    names = [f"c{k}" for k in range(len(header))]
    try:
        table = pacsv.read_csv(io.BytesIO(raw),
                               # one thread: Arrow's pool took twice the CPU and no less wall time
                               read_options=pacsv.ReadOptions(column_names=names, skip_rows=0, use_threads=False),
                               parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=True),
                               convert_options=pacsv.ConvertOptions(
                                   column_types=dict.fromkeys(names, pa.large_string()),
                                   strings_can_be_null=False, quoted_strings_can_be_null=False))
    except pa.ArrowInvalid:  # a row wider or narrower than the header
        return None
    columns = [h.strip() for h in header]
    longest = max((pc.max(pc.utf8_length(c)).as_py() or 0 for c in table.columns), default=0)
    if len(set(columns)) != len(columns) or longest > FIELD_LIMIT:
        return None
    return columns, table.slice(1)


def read_csv_frame(path: Path, required: Iterable[str] = (), what: str = "it", delimiter: str = ",",
                   names: list[str] | None = None) -> pd.DataFrame:
    """:func:`read_csv_table` as a DataFrame of text (nothing turned into NaN)."""
    return read_csv_table(path, required, what, delimiter, names).frame()
