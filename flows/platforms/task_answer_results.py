"""MTurk batch results from a crowd-form page as QC rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from flows.core.errors import InputFormatError
from flows.core.pages.crowd_elements import flatten_task_answers
from qc.answer_faults import built_by_hand
from qc.telemetry import looks_like_event_log

TASK_ANSWERS = "Answer.taskAnswers"
ITEM_COLUMNS = ("Input.item_id", "Input.image_id", "Input.id", "Input.image_url", "Input.url")
NOT_TEXT = ("assignmentId", "sig", "page_start_ms", "page_end_ms", "hitflow_telemetry")


class MalformedRow(ValueError):
    """One row of a results file that cannot be read; the message is the reason (no file or line)."""


def malformed_row(row: dict[str, str], ids: tuple[str, str], line: int, reason: str) -> dict[str, Any]:
    """The QC row of a results-file row that could not be read: its ids, the reason and its line."""
    return {"assignment_id": row.get(ids[0], ""), "worker_id": row.get(ids[1], ""), "image_id": "", "caption": "",
            "work_time_s": float("nan"), "malformed": reason, "line": line}


def flat_row(row: dict[str, str]) -> dict[str, str]:
    """A row's taskAnswers flattened into one value per element name; MalformedRow with the reason."""
    try:
        return flatten_task_answers(row.get(TASK_ANSWERS) or "[{}]")
    except ValueError as exc:  # past a bound on worker-supplied values too (qc/worker_values.py)
        whose = "a value no browser writes: built by hand" if built_by_hand(exc) else "not the JSON a crowd-form posts"
        raise MalformedRow(f"{TASK_ANSWERS}: {whose} ({exc})") from exc


def _is_prose(values: list[str]) -> bool:
    filled = [v for v in values if v.strip()]
    if not filled or len(filled) < len(values) / 2 or any(looks_like_event_log(v) for v in filled[:5]):
        return False
    if any(v.lstrip().startswith(("{", "[")) for v in filled[:5]):  # boxes, points, structured answers
        return False
    words = sorted(len(v.split()) for v in filled)
    distinct = len(set(filled)) / len(filled)
    return words[len(words) // 2] >= 3 and (distinct > 0.5 or len(filled) < 3)


def text_fields(path: Path, flat: list[dict[str, str]], named: tuple[str, ...]) -> list[str]:
    """The free-text fields: ``named`` (each must be there), else those whose values read as prose."""
    present = list(dict.fromkeys(k for row in flat for k in row))
    if named:
        missing = [n for n in named if n not in present]
        if missing:
            raise InputFormatError(f"{path}: taskAnswers has no field {', '.join(missing)}; its fields are "
                                   f"{', '.join(present) or 'none'} (pick with --text-field)")
        return list(named)
    found = [k for k in present if k not in NOT_TEXT and _is_prose([row.get(k, "") for row in flat])]
    if not found:
        raise InputFormatError(f"{path}: no free-text field found in taskAnswers (fields: "
                               f"{', '.join(present) or 'none'}); name it with --text-field NAME")
    return found


def page_text(row: dict[str, str]) -> str:
    """What the page showed the worker as far as the batch file says: its ``Input.*`` values."""
    return "\n".join(v for k, v in row.items() if k and k.startswith("Input.") and v)


def _logs(row: dict[str, str], flat: dict[str, str]) -> dict[str, str]:
    """Event logs by their field or column name, from the JSON and from the row's own columns."""
    logs = {k: v for k, v in flat.items() if v and looks_like_event_log(v)}
    logs.update({k.removeprefix("Answer."): v for k, v in row.items() if k and k.startswith("Answer.")
                 and k != TASK_ANSWERS and v and looks_like_event_log(v)})
    return logs


def _log_for(field: str, logs: dict[str, str], fields: list[str]) -> str:
    """The log named after the field, else the only log of a page with one text field."""
    mine = [v for k, v in logs.items() if field.lower() in k.lower()]
    if mine:
        return mine[0]
    return next(iter(logs.values())) if len(fields) == 1 and len(logs) == 1 else ""


def _read_rows(rows: list[dict[str, str]], lines: list[int], seconds: list[float | str],
               ) -> tuple[list[tuple[dict[str, str], dict[str, str], float, int]], list[dict[str, Any]]]:
    """(row, its flat answer, work time, line) for each row read, and a malformed row for each other."""
    read, unread = [], []
    for r, line, work in zip(rows, lines, seconds, strict=True):
        try:
            if isinstance(work, str):  # the reason its work time cannot be read
                raise MalformedRow(work)
            read.append((r, flat_row(r), work, line))
        except MalformedRow as exc:
            unread.append(malformed_row(r, ("AssignmentId", "WorkerId"), line, str(exc)))
    return read, unread


def from_task_answers(path: Path, rows: list[dict[str, str]], lines: list[int], seconds: list[float | str],
                      named: tuple[str, ...] = ()) -> pd.DataFrame:
    """The QC frame of a crowd-form batch; ``seconds``: each row's work time."""
    read, out = _read_rows(rows, lines, seconds)
    fields = text_fields(path, [answer for _, answer, _, _ in read], named) if read else []
    for r, answer, work, line in read:
        item = next((r[k] for k in ITEM_COLUMNS if r.get(k)), r.get("HITId", ""))
        logs = _logs(r, answer)
        for field in fields:
            out.append({"assignment_id": r["AssignmentId"], "worker_id": r.get("WorkerId", ""),
                        "image_id": item if len(fields) == 1 else f"{item}#{field}", "caption": answer.get(field, ""),
                        "work_time_s": work, "telemetry": answer.get("hitflow_telemetry", ""),
                        "telemetry_field": field, "telemetry_log": _log_for(field, logs, fields),
                        "page_text": page_text(r), "line": line})
    return pd.DataFrame(out)
