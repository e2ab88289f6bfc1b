"""Telemetry records flattened into ``tm_*`` columns, one row per caption, and each caption's ``text_origin``.
Input columns: ``caption``; optional ``telemetry`` (a v1 record's JSON), ``telemetry_log`` (a raw log),
``telemetry_field`` and ``page_text`` (a logged paste of it is from the page); blank telemetry is "absent".
Output: the input plus :data:`TM_COLUMNS` (each column: docs/authenticity.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qc.telemetry import TelemetryError, event_log_record, parse_record

TM_COLUMNS = ["tm_present", "tm_typed", "tm_deleted", "tm_keys", "tm_first_ms", "tm_active_ms", "tm_paste_n",
              "tm_paste_external", "tm_paste_page", "tm_drop", "tm_final_len", "tm_hidden_before_paste",
              "tm_loads", "tm_away_ms", "tm_paste_drafted", "tm_error"]
SWITCH_WINDOW_MS = 60_000  # a hide or blur this long before an external paste counts as "left to fetch it"
# 96 words a minute, 2.2 SD over the mean (Dhakal et al. CHI 2018): away len / 8 s could type it (docs/authenticity.md)
DRAFT_CPS = 8.0
MIN_TYPED = 20  # characters typed on the page before its typing speed says anything
ORIGINS = ("typed", "in-page paste", "external paste", "mixed", "unknown")


def absent(error: str = "") -> tuple[Any, ...]:
    """The ``tm_*`` values (in :data:`TM_COLUMNS` order) of a caption without telemetry."""
    return (False, 0, 0, 0, np.nan, 0, 0, 0, 0, 0, 0, False, 0, np.nan, 0, error)


ABSENT = absent()


def field_of(record: dict[str, Any], name: str) -> dict[str, Any] | None:
    fields = record.get("f") or {}
    if name in fields:
        return fields[name]  # type: ignore[no-any-return]
    return next(iter(fields.values())) if len(fields) == 1 else None  # type: ignore[no-any-return]


def flatten(record: dict[str, Any], name: str, caption: str) -> tuple[Any, ...]:
    """One caption's ``tm_*`` values in :data:`TM_COLUMNS` order; absent when the record lacks the field."""
    field = field_of(record, name)
    if field is None:
        return absent()
    away = away_ms(record, field)
    # a forged "len": 0 must not hide the caption from the rules: the length judged is never below the caption's
    final_len = field.get("len")
    first = field.get("first_ms")
    return (True, field.get("typed", 0), field.get("del", 0), field.get("keys", 0),
            np.nan if first is None else float(first), field.get("active_ms") or 0, field.get("paste_n", 0),
            field.get("paste_x", 0), field.get("paste_p", 0), field.get("drop", 0),
            max(final_len or 0, len(caption)), away is not None, record.get("loads", 1),
            np.nan if away is None else away, drafted_chars(record, field), "")


def away_ms(record: dict[str, Any], field: dict[str, Any]) -> float | None:
    """ms between the largest external paste and the last tab hide or field blur within 60 s before it."""
    pastes = [p for p in field.get("paste", []) if p[2] == "x"]
    if not pastes:
        return None
    when = max(pastes, key=lambda p: p[1])[0]
    leaves = [ms for ms, kind in record.get("vis", []) if kind == "h"]
    leaves += [ms for ms, kind in field.get("focus", []) if kind == "b"]
    before = [ms for ms in leaves if when - SWITCH_WINDOW_MS <= ms <= when]
    return float(when - max(before)) if before else None


def absences(record: dict[str, Any], field: dict[str, Any]) -> list[tuple[int, int]]:
    """(left, back) of each time the worker left: tab hide to show, field blur to focus (back = left if unseen)."""
    out = []
    for marks, gone, here in ((record.get("vis", []), "h", "v"), (field.get("focus", []), "b", "f")):
        events = sorted((int(ms), kind) for ms, kind in marks)
        for k, (ms, kind) in enumerate(events):
            if kind == gone:
                back = next((t for t, w in events[k + 1:] if w == here), ms)
                out.append((ms, back))
    return out


def drafted_chars(record: dict[str, Any], field: dict[str, Any]) -> int:
    """Characters of external pastes back from an absence as long as typing them takes (docs/authenticity.md)."""
    pastes = [p for p in field.get("paste", []) if p[2] == "x"]
    if not pastes:  # most captions: nothing from outside to explain
        return 0
    fields = list((record.get("f") or {}).values())
    typed = sum(int(f.get("typed", 0)) for f in fields)
    active_s = sum(int(f.get("active_ms") or 0) for f in fields) / 1000.0
    if typed < MIN_TYPED or active_s <= 0:
        return 0
    cps = min(DRAFT_CPS, typed / active_s)
    gone = absences(record, field)
    return sum(int(length) for when, length, _ in pastes if _last_absence(gone, when) >= 1000 * length / cps)


def _last_absence(gone: list[tuple[int, int]], when: int) -> int:
    """The length of the latest absence that ended before ``when`` (the one the paste came back from)."""
    ended = [(back, back - left) for left, back in gone if back <= when]
    return max(ended)[1] if ended else 0


def telemetry_columns(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the ``tm_*`` columns, each distinct record parsed once and let go (held, most of QC's memory)."""
    captions = df["caption"].fillna("").astype(str).tolist() if "caption" in df else [""] * len(df)
    records = _texts(df, "telemetry")
    logs = _texts(df, "telemetry_log")
    names = _texts(df, "telemetry_field")
    shown = _texts(df, "page_text")
    rows: list[tuple[Any, ...]] = [ABSENT] * len(df)
    for (source, kind), at in _rows_by_source(records, logs).items():
        got = _read(source, kind, names[at[0]], shown[at[0]])  # a log is read for its first row's field
        for i in at:
            rows[i] = absent(got) if isinstance(got, str) else flatten(got, names[i], captions[i])
    columns = pd.DataFrame(rows, columns=TM_COLUMNS, index=df.index)
    return pd.concat([df.drop(columns=[c for c in TM_COLUMNS if c in df.columns]), columns], axis=1)


def _rows_by_source(records: list[str], logs: list[str]) -> dict[tuple[str, str], list[int]]:
    """The rows of each distinct ``(text, "record" | "log")`` in order of first appearance; none: absent."""
    by_source: dict[tuple[str, str], list[int]] = {}
    for i, (record_text, log_text) in enumerate(zip(records, logs, strict=True)):
        source, kind = (record_text, "record") if record_text else (log_text, "log")
        if source:
            by_source.setdefault((source, kind), []).append(i)
    return by_source


def _texts(df: pd.DataFrame, column: str) -> list[str]:
    if column not in df.columns:
        return [""] * len(df)
    return [str(v).strip() if isinstance(v, str) else "" for v in df[column].tolist()]


def _read(text: str, kind: str, name: str, page_text: str) -> dict[str, Any] | str:
    try:
        return parse_record(text) if kind == "record" else event_log_record(text, name or "caption", page_text)
    except TelemetryError as exc:
        return f"telemetry {'record' if kind == 'record' else 'event log'} unreadable: {exc}"


def text_origin(df: pd.DataFrame, share: float = 0.8) -> pd.Series:
    """Per caption: ``typed`` / ``in-page paste`` / ``external paste`` (``share`` of it) / ``mixed`` / ``unknown``."""
    if "tm_present" not in df.columns:
        return pd.Series("unknown", index=df.index, dtype=object)
    final = df["tm_final_len"].to_numpy(dtype=float)  # over arrays: a Series op each costs more than the sums
    length = np.maximum(final, 1)
    typed = np.maximum(df["tm_typed"].to_numpy(dtype=float) - df["tm_deleted"].to_numpy(dtype=float), 0) / length
    page, outside = (df[c].to_numpy(dtype=float) / length for c in ("tm_paste_page", "tm_paste_external"))
    counted = typed + page + outside + df["tm_drop"].to_numpy(dtype=float) / length
    # nothing typed, pasted or dropped (the page's canned-answer button, or a script set the value): unknown
    origin = np.select([~df["tm_present"].to_numpy(dtype=bool) | (final <= 0) | (counted <= 0),
                        outside >= share, page >= share, typed >= share],
                       ["unknown", "external paste", "in-page paste", "typed"], "mixed")
    return pd.Series(origin, index=df.index, dtype=object)
