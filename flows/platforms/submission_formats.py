"""Read submissions for offline QC: plain CSV, MTurk batch results, ``.results`` files."""

from __future__ import annotations

import contextlib
import math
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from flows.core.errors import InputFormatError
from flows.core.inputs.csv_files import RowFault, fast_columns, read_answer_table
from flows.core.inputs.csv_writing import PLAIN_NUMBER
from flows.core.inputs.text_files import read_text
from flows.platforms.task_answer_results import TASK_ANSWERS, MalformedRow, from_task_answers, malformed_row, page_text
from qc.telemetry import looks_like_event_log

PLAIN = ["assignment_id", "worker_id", "image_id", "caption"]
PLAIN_TELEMETRY = {"hitflow_telemetry": "telemetry", "telemetry": "telemetry", "telemetry_field": "telemetry_field",
                   "telemetry_log": "telemetry_log"}
TRUE_TEXT = ("1", "true", "yes")  # a yes/no column read as text
CLT_COLUMNS = ("assignmentid", "workerid", "assignmentaccepttime", "assignmentsubmittime", "Answer.IMG",
               "Answer.IMG_CAPTION")
TZ_OFFSETS = {"UTC": 0, "GMT": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6,
              "PST": -8, "PDT": -7}
_CLT_TIME = re.compile(r"^\w{3} (\w{3} +\d+ [\d:]+) (\w+) (\d{4})$")
_INDEXED = re.compile(r"^Answer\.(?:caption|description|sentence)_?(\d+)$", re.IGNORECASE)
_LOG_INDEX = re.compile(r"_(\d+)$")


def parse_mturk_time(text: str) -> float:
    """'Sat Apr 20 16:20:50 CDT 2019' (MTurk's CSV/CLT format) or ISO 8601 -> epoch seconds."""
    text = text.strip()
    m = _CLT_TIME.match(text)
    if m:
        if m[2] not in TZ_OFFSETS:
            raise ValueError(f"unknown time zone {m[2]}")
        naive = datetime.strptime(f"{m[1]} {m[3]}", "%b %d %H:%M:%S %Y")
        return naive.replace(tzinfo=timezone(timedelta(hours=TZ_OFFSETS[m[2]]))).timestamp()
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()


def read_submissions(path: Path, text_fields: tuple[str, ...] = ()) -> pd.DataFrame:
    """``text_fields``: the free-text fields to check; by default the caption columns or prose-like fields."""
    fast = None if text_fields else _plain_fast(path)
    if fast is not None:
        return fast
    table, faults = read_answer_table(path, what="the submissions file", delimiter="auto")
    rows, header = table.rows, set(table.columns)
    if not rows and not faults:
        raise InputFormatError(f"{path}: has a header but no rows; nothing to check")
    if {"assignmentid", "Answer.IMG_CAPTION"} <= header:
        _require(path, header, CLT_COLUMNS, "an MTurk .results file")
        frame, ids = _from_clt(path, rows, table.lines), ("assignmentid", "workerid")
    elif "AssignmentId" in header and any(h.startswith("Answer.") for h in header):
        frame, ids = _from_batch_csv(path, rows, table.lines, text_fields), ("AssignmentId", "WorkerId")
    else:
        if missing := [c for c in PLAIN if c not in header]:
            raise InputFormatError(f"{path}: missing column(s) {', '.join(missing)}; give {', '.join(PLAIN)} and "
                                   "work_time_s (or accept_time and submit_time), or an MTurk results file")
        frame, ids = _from_plain(path, rows, table.lines), ("assignment_id", "worker_id")
    return _with_faults(path, frame, faults, ids)


def _with_faults(path: Path, frame: pd.DataFrame, faults: list[RowFault], ids: tuple[str, str]) -> pd.DataFrame:
    """The rows read, then one malformed row per row that was not; no row read: the file's error."""
    unread = pd.DataFrame([malformed_row(f.row, ids, f.line, f.reason) for f in faults])
    frame = pd.concat([frame, unread], ignore_index=True) if faults else frame
    if "malformed" not in frame.columns:
        return frame
    bad = frame["malformed"].fillna("") != ""
    if bad.all():
        first = frame.sort_values("line", kind="stable").iloc[0]
        raise InputFormatError(f"{path}: none of its {len(frame)} row(s) could be read (first, line "
                               f"{int(first['line'])}: {first['malformed']}); is it the results file you meant?")
    unread = frame[bad].sort_values("line", kind="stable")
    return pd.concat([frame[~bad], unread], ignore_index=True).assign(malformed=lambda f: f["malformed"].fillna(""))


def _plain_fast(path: Path) -> pd.DataFrame | None:
    """A plain submissions file read by Arrow as :func:`_from_plain` would, or None for the careful path."""
    try:
        parsed = fast_columns(read_text(Path(path), "the submissions file"))  # a str path too, as before
    except InputFormatError:  # a NUL or stray bytes may be one row's: the careful path names it
        return None
    if parsed is None:
        return None
    header, table = parsed
    names = set(header)
    if (table.num_rows == 0 or {"assignmentid", "Answer.IMG_CAPTION"} <= names or "AssignmentId" in names
            or not {*PLAIN, "work_time_s"} <= names or names & set(PLAIN_TELEMETRY)):  # telemetry: the careful path
        return None
    column = dict(zip(header, table.columns, strict=True))
    seconds = _work_seconds(column["work_time_s"])
    if seconds is None or not (np.isfinite(seconds) & (seconds >= 0)).all():
        return None
    out = pd.DataFrame({k: _text_column(column[k], shared=k != "caption") for k in PLAIN} | {"work_time_s": seconds})
    if "is_precanned" in names:
        said = [v.strip().lower() for v in column["is_precanned"].to_pylist()]
        if not all(said):
            return None
        out["is_precanned"] = [v in TRUE_TEXT for v in said]
    return out


def _work_seconds(values: pa.ChunkedArray) -> np.ndarray | None:
    """float() of each value as the careful path reads a work time (None when one is not a number)."""
    with contextlib.suppress(pa.ArrowException):
        if pc.all(pc.match_substring_regex(values, f"^{PLAIN_NUMBER.pattern}$")).as_py():
            return pc.cast(values, pa.float64()).to_numpy()
    try:
        return np.array(values.to_pylist(), dtype=object).astype(float)
    except (ValueError, TypeError, OverflowError):
        return None


def _text_column(values: pa.ChunkedArray, shared: bool) -> pd.Series:
    """``values`` as a ``str`` column; ``shared``: one Python string per distinct value."""
    if not shared:
        return values.to_pandas()
    encoded = values.combine_chunks().dictionary_encode()
    distinct = np.array(encoded.dictionary.to_pylist(), dtype=object)
    return pd.Series(pd.array(distinct[encoded.indices.to_numpy()], dtype="str"))


def _require(path: Path, header: set[str], columns: tuple[str, ...], kind: str) -> None:
    missing = [c for c in columns if c not in header]
    if missing:
        raise InputFormatError(f"{path}: {kind} needs column(s) {', '.join(missing)}")


def _seconds(column: str, text: str) -> float:
    """A work time: a finite, non-negative number (``inf`` would switch the time rule off)."""
    try:
        seconds = float(text)
    except ValueError as exc:
        raise MalformedRow(f"{column} {text[:40]!r} is not a number") from exc
    if not math.isfinite(seconds) or seconds < 0:
        raise MalformedRow(f"{column} {text[:40]!r} must be a finite number of seconds >= 0")
    return seconds


def _times(accept: str, submit: str) -> float:
    try:
        seconds = parse_mturk_time(submit) - parse_mturk_time(accept)
    except (ValueError, OverflowError) as exc:
        raise MalformedRow(f"cannot read accept/submit time {accept[:40]!r}/{submit[:40]!r} ({str(exc)[:80]}); "
                           "use ISO 8601 such as 2019-04-20T16:20:50-05:00") from exc
    if seconds < 0:
        raise MalformedRow(f"submit time {submit[:40]!r} is before accept time {accept[:40]!r}")
    return seconds


def _plain_seconds(r: dict[str, str]) -> float:
    if r.get("work_time_s", "").strip():
        return _seconds("work_time_s", r["work_time_s"])
    if r.get("accept_time") and r.get("submit_time"):
        return _times(r["accept_time"], r["submit_time"])
    raise MalformedRow("needs work_time_s, or accept_time and submit_time")


def _from_plain(path: Path, rows: list[dict[str, str]], lines: list[int]) -> pd.DataFrame:
    out = []
    for line, r in zip(lines, rows, strict=True):
        try:
            seconds = _plain_seconds(r)
        except MalformedRow as exc:
            out.append(malformed_row(r, ("assignment_id", "worker_id"), line, str(exc)))
            continue
        row = {k: r[k] for k in PLAIN} | {"work_time_s": seconds}
        for column, name in PLAIN_TELEMETRY.items():  # how the text arrived, when recorded
            if r.get(column, "").strip():
                row[name] = r[column]
        if r.get("is_precanned", "").strip():
            row["is_precanned"] = r["is_precanned"].strip().lower() in TRUE_TEXT
        out.append(row)
    return pd.DataFrame(out)


def _work_time_or_reason(r: dict[str, str]) -> float | str:
    try:
        return (_seconds("WorkTimeInSeconds", r["WorkTimeInSeconds"]) if r.get("WorkTimeInSeconds")
                else _times(r.get("AcceptTime", ""), r.get("SubmitTime", "")))
    except MalformedRow as exc:
        return str(exc)


def _from_batch_csv(path: Path, rows: list[dict[str, str]], lines: list[int],
                    named: tuple[str, ...] = ()) -> pd.DataFrame:
    if rows and TASK_ANSWERS in rows[0]:  # a crowd-form page: every answer inside one JSON column
        return from_task_answers(path, rows, lines, [_work_time_or_reason(r) for r in rows], named)
    out = []
    for line, r in zip(lines, rows, strict=True):
        seconds = _work_time_or_reason(r)
        if isinstance(seconds, str):
            out.append(malformed_row(r, ("AssignmentId", "WorkerId"), line, seconds))
            continue
        captions = {m[1]: v for k, v in r.items() if k and (m := _INDEXED.match(k))}
        if not captions and "Answer.caption" in r:
            captions = {"": r["Answer.caption"]}
        if named:  # the text field(s) named on the command line
            captions = {"" if len(named) == 1 else n: r.get(f"Answer.{n}", "") for n in named}
            if not all(f"Answer.{n}" in r for n in named):
                raise InputFormatError(f"{path}:{line}: no Answer.{' or Answer.'.join(named)} column found")
        if not captions:
            raise InputFormatError(f"{path}:{line}: no Answer.caption or Answer.caption_N column found; name "
                                   "the answer's text field with --text-field NAME")
        logs = event_logs(r)
        for idx, caption in captions.items():
            image = next((r[k] for k in (f"Answer.image_id_{idx}", f"Input.image_id_{idx}", f"Input.image_url_{idx}",
                                         "Input.image_id", "Input.image_url") if r.get(k)), f"#{idx}")
            out.append({"assignment_id": r["AssignmentId"], "worker_id": r.get("WorkerId", ""),
                        "image_id": image, "caption": caption, "work_time_s": seconds,
                        "telemetry": r.get("Answer.hitflow_telemetry", ""),
                        "telemetry_field": (idx or named[0]) if named else (f"caption_{idx}" if idx else "caption"),
                        "telemetry_log": logs.get(idx, logs.get("", "") if len(captions) == 1 else ""),
                        "page_text": page_text(r)})
    return pd.DataFrame(out)


def event_logs(row: dict[str, str]) -> dict[str, str]:
    """The answer's raw ``[kind, detail, time]`` logs by caption index, found by their values."""
    logs = {}
    for key, value in row.items():
        if key and key.startswith("Answer.") and key != "Answer.hitflow_telemetry" and value \
                and looks_like_event_log(value):
            m = _LOG_INDEX.search(key)
            logs[m[1] if m else ""] = value
    return logs


def _split_end(value: str) -> list[str]:
    """CLT per-image values end in ``|<END>``; a value may itself hold ``|``-joined codes."""
    parts = value.split("|<END>")
    return [p[1:] if p.startswith("|") else p for p in parts[:-1]] if len(parts) > 1 else value.split("|")


def _from_clt(path: Path, rows: list[dict[str, str]], lines: list[int]) -> pd.DataFrame:
    out = []
    for line, r in zip(lines, rows, strict=True):
        images = r["Answer.IMG"].split("|")
        captions = _split_end(r["Answer.IMG_CAPTION"])
        texts = _split_end(r.get("Answer.TEXT_DETECT", ""))
        try:
            seconds = _times(r["assignmentaccepttime"], r["assignmentsubmittime"])
            if len(captions) != len(images):
                raise MalformedRow(f"{len(images)} images but {len(captions)} captions")
        except MalformedRow as exc:
            out.append(malformed_row(r, ("assignmentid", "workerid"), line, str(exc)))
            continue
        for i, (image, caption) in enumerate(zip(images, captions, strict=True)):
            out.append({"assignment_id": r["assignmentid"], "worker_id": r["workerid"], "image_id": image,
                        "caption": caption, "work_time_s": seconds,
                        "text_present": texts[i] if i < len(texts) else ""})
    return pd.DataFrame(out)
