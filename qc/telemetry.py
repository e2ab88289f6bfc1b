"""Text telemetry (format v1, docs/telemetry.md): how text arrived in each field, never its content.
:func:`parse_record` is the one check every reader uses; :func:`event_log_record` converts older raw logs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from qc.worker_values import read_json

VERSION = 1
# times are ms since the page loaded; an assignment may stay open up to 365 days (MTurk), so beyond is nonsense
MAX_MS = 365 * 24 * 3600 * 1000
MAX_COUNT = 10_000_000  # characters or events in one field: far beyond any caption
FIELD_COUNTS = ("typed", "del", "keys", "paste_n", "paste_x", "paste_p", "drop", "copy", "cut", "len")
DELETING_KEYS = ("backspace", "delete")
LOG_KINDS = ("key", "paste", "copy", "cut", "blur", "focus")


class TelemetryError(ValueError):
    """A telemetry value QC cannot read; the row stays, its telemetry counts as invalid."""


def parse_record(text: str) -> dict[str, Any]:
    """A v1 record from its JSON text, checked (numbers, lists, times); unknown keys are kept and ignored."""
    record = _json(text, "")
    if not isinstance(record, dict):
        raise TelemetryError("not a JSON object")
    if record.get("v") != VERSION:
        raise TelemetryError(f"version {str(record.get('v'))[:20]!r}, this hitflow reads version {VERSION}")
    _count(record.get("loads", 1), "loads")
    _events(record.get("vis", []), "vis", ("h", "v"))
    fields = record.get("f", {})
    if not isinstance(fields, dict):
        raise TelemetryError("'f' is not an object of fields")
    for name, field in fields.items():
        check_field(str(name), field)
    return record


def _json(text: str, what: str) -> Any:
    """``text`` read as JSON; too deep or not JSON at all is a TelemetryError starting with ``what``."""
    try:
        return read_json(text)
    except ValueError as exc:
        raise TelemetryError(f"{what}not JSON within its bounds ({str(exc)[:80]})") from exc


def check_field(name: str, field: Any) -> None:
    """One field's counts, times and lists (a plain type test first: a batch holds 200,000 fields)."""
    if not isinstance(field, dict):
        raise TelemetryError(f"field {name[:40]!r} is not an object")
    for key in FIELD_COUNTS:
        value = field.get(key)
        if value is not None and not (type(value) is int and 0 <= value <= MAX_COUNT):
            _count(value, f"{name[:40]}.{key}")
    for key in ("first_ms", "active_ms"):
        value = field.get(key)
        if value is not None and not (type(value) in (int, float) and 0 <= value <= MAX_MS):
            _ms(value, f"{name[:40]}.{key}")
    _events(field.get("focus", []), f"{name[:40]}.focus", ("f", "b"))
    pastes = field.get("paste", [])
    if not isinstance(pastes, list):
        raise TelemetryError(f"{name[:40]}.paste is not a list")
    for paste in pastes:
        if not (type(paste) is list and len(paste) == 3 and paste[2] in ("p", "x")):
            raise TelemetryError(f"{name[:40]}.paste holds {str(paste)[:40]}, not [ms, length, 'p' or 'x']")
        if not (type(paste[0]) is int and 0 <= paste[0] <= MAX_MS and type(paste[1]) is int
                and 0 <= paste[1] <= MAX_COUNT):
            _ms(paste[0], f"{name[:40]}.paste time")
            _count(paste[1], f"{name[:40]}.paste length")


def _count(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise TelemetryError(f"{what} is {str(value)[:20]}, not a count between 0 and {MAX_COUNT}")


def _ms(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_MS:
        raise TelemetryError(f"{what} is {str(value)[:20]}, not a time in ms between 0 and {MAX_MS}")


def _events(events: Any, what: str, kinds: tuple[str, ...]) -> None:
    if not isinstance(events, list):
        raise TelemetryError(f"{what} is not a list")
    for event in events:
        if not (type(event) is list and len(event) == 2 and event[1] in kinds):
            raise TelemetryError(f"{what} holds {str(event)[:40]}, not [ms, {' or '.join(kinds)}]")
        if not (type(event[0]) is int and 0 <= event[0] <= MAX_MS):
            _ms(event[0], what)


def event_log_record(text: str, field: str = "caption", page_text: str = "") -> dict[str, Any]:
    """A raw ``[[kind, detail, ISO time], ...]`` log as a v1 record of one field (``len`` left out): Backspace/Delete
    deletes, a one-character key or Enter types, others are keystrokes; a paste is "p" when it equals an earlier copy
    or cut or is in ``page_text`` (spaces collapsed), else "x"; deletions and cuts come off the end (no caret)."""
    events = _log_events(text)
    if not events:
        return {"v": VERSION, "loads": 1, "vis": [], "f": {}}
    start = events[0][2]
    out: dict[str, Any] = {"typed": 0, "del": 0, "keys": 0, "first_ms": None, "active_ms": 0, "paste": [],
                           "paste_n": 0, "paste_x": 0, "paste_p": 0, "drop": 0, "copy": 0, "cut": 0, "focus": []}
    copied: set[str] = set()
    shown = same_words(page_text)
    last_key: int | None = None
    runs: list[list[Any]] = []  # the text as [origin, characters] runs, replayed with the caret at its end
    for kind, detail, when in events:
        ms = max(0, round((when - start) * 1000))
        if kind == "key":
            typed, deleted = out["typed"], out["del"]
            last_key = _key(out, detail, ms, last_key)
            _replay(runs, "t", out["typed"] - typed, out["del"] - deleted)
        elif kind == "paste":
            _replay(runs, _paste(out, detail, ms, copied, shown), _size(detail), 0)
        elif kind in ("copy", "cut"):
            out[kind] += 1
            if isinstance(detail, str) and detail:
                copied.add(same_words(detail))
                out["del"] += len(detail) if kind == "cut" else 0
                _replay(runs, "t", 0, len(detail) if kind == "cut" else 0)
        elif len(out["focus"]) < 40:
            out["focus"].append([ms, "b" if kind == "blur" else "f"])
    out["paste_x"], out["paste_p"] = (sum(n for origin, n in runs if origin == where) for where in ("x", "p"))
    return {"v": VERSION, "loads": 1, "vis": [], "f": {field: out}}


def _replay(runs: list[list[Any]], origin: str, added: int, deleted: int) -> None:
    """``added`` characters of ``origin`` put at the end of the text, ``deleted`` taken from its end."""
    if added:
        if runs and runs[-1][0] == origin:
            runs[-1][1] += added
        else:
            runs.append([origin, added])
    while deleted and runs:
        gone = min(deleted, runs[-1][1])
        runs[-1][1] -= gone
        deleted -= gone
        if not runs[-1][1]:
            runs.pop()


def _size(detail: Any) -> int:
    return detail if isinstance(detail, int) else len(str(detail or ""))


def _key(out: dict[str, Any], detail: Any, ms: int, last_key: int | None) -> int:
    """One keystroke: a deletion, a typed character, or only a key; gaps under 2 s are typing time."""
    out["keys"] += 1
    name = detail.lower() if isinstance(detail, str) else ""
    if name in DELETING_KEYS:
        out["del"] += 1
    elif len(name) == 1 or name == "enter":
        out["typed"] += 1
    out["first_ms"] = ms if out["first_ms"] is None else out["first_ms"]
    if last_key is not None and ms - last_key < 2000:
        out["active_ms"] += ms - last_key
    return ms


def same_words(text: str) -> str:
    """The text with every run of whitespace (line breaks, tabs, no-break spaces) one space, trimmed."""
    return " ".join(text.split())


def _paste(out: dict[str, Any], detail: Any, ms: int, copied: set[str], shown: str) -> str:
    """One paste's length and "p" when it equals an earlier copy or cut or is part of the page (``shown``), else "x"."""
    size = _size(detail)
    words = same_words(detail) if isinstance(detail, str) else ""
    where = "p" if words and (words in copied or words in shown) else "x"
    out["paste_n"] += 1
    if len(out["paste"]) < 20:
        out["paste"].append([ms, size, where])
    return where


def _log_events(text: str) -> list[tuple[str, Any, float]]:
    log = _json(text, "event log is ")
    if not isinstance(log, list):
        raise TelemetryError("event log is not a JSON list of [kind, detail, time]")
    events, last = [], None
    for n, entry in enumerate(log):
        if not (isinstance(entry, list) and len(entry) in (2, 3) and entry[0] in LOG_KINDS):
            raise TelemetryError(f"event {n} is {str(entry)[:30]}…, not [kind, detail, time] with kind "
                                 f"{'/'.join(LOG_KINDS)}")
        try:  # real logs record some events with no time (["copy", text]): it happened after the one before
            when = datetime.fromisoformat(str(entry[2]).replace("Z", "+00:00")).timestamp() if len(entry) == 3 \
                else last
        except ValueError as exc:
            raise TelemetryError(f"event {n}: time {str(entry[2])[:30]!r} is not ISO 8601") from exc
        events.append([str(entry[0]), entry[1], when])
        last = when if when is not None else last
    first = next((e[2] for e in events if e[2] is not None), 0.0)
    timed = [(kind, detail, first if when is None else when) for kind, detail, when in events]
    return sorted(timed, key=lambda e: e[2])  # stable: an untimed event stays after the one before it


def looks_like_event_log(text: str) -> bool:
    """Whether an answer's value is a ``[kind, detail, time]`` log (so a reader may pick the column)."""
    stripped = text.lstrip()
    if not stripped.startswith("[["):
        return False
    try:
        log = read_json(stripped)
    except ValueError:
        return False
    return isinstance(log, list) and bool(log) and all(
        isinstance(e, list) and len(e) in (2, 3) and e[0] in LOG_KINDS for e in log[:5])
