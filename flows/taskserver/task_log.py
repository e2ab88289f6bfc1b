"""A bounded log for the task server: an error that repeats is counted, not written again."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

LOGGERS = ("asyncio", "uvicorn.error", "hitflow.task_server")
MAX_KINDS = 1000  # message templates are few; this bounds the table if a caller formats its own


class RepeatSummary(logging.Filter):
    def __init__(self, window_s: float = 60.0, now: Callable[[], float] = time.monotonic):
        super().__init__()
        self.window_s = window_s
        self.now = now
        # kind -> [window start, left out, the message as written at the window's start]
        self._kinds: dict[tuple[str, int, str, str], list[float | str]] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "repeat_summary", False):
            return True
        exc_type = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
        kind = (record.name, record.levelno, str(record.msg), exc_type)
        with self._lock:
            t, seen = self.now(), self._kinds.get(kind)
            if seen is not None and t - float(seen[0]) < self.window_s:
                seen[1] = int(seen[1]) + 1
                return False
            if len(self._kinds) >= MAX_KINDS:
                self._kinds.clear()
            # formatted here, once a window: a summary written at flush shows the text, not its template
            self._kinds[kind] = [t, 0, _message(record)]
        if seen is not None:  # written before: the count, and the exception in one line
            record.msg = f"{_message(record)} [{_one_line(record)}{int(seen[1])} more like this left out " \
                         f"in the {t - float(seen[0]):.0f} s before]"
            record.args, record.exc_info, record.exc_text, record.stack_info = None, None, None, None
        return True

    def flush(self) -> None:
        """Write what is still only counted (when the server stops: a burst may have no successor)."""
        with self._lock:
            t, pending = self.now(), [(k, tuple(v)) for k, v in self._kinds.items() if v[1]]
            for kind, _ in pending:
                self._kinds[kind][1] = 0
        for (name, level, _, _), (start, left_out, message) in pending:
            logging.getLogger(name).log(level, "%s [%d more like this left out in the %.0f s before]",
                                        str(message).splitlines()[0][:300] if message else "", left_out,
                                        t - float(start), extra={"repeat_summary": True})


def _message(record: logging.LogRecord) -> str:
    """The record's text with its arguments, or its bare template when they do not fit it."""
    try:
        return record.getMessage()
    except (TypeError, ValueError):
        return str(record.msg)


def _one_line(record: logging.LogRecord) -> str:
    if not record.exc_info or record.exc_info[1] is None:
        return ""
    return f"{type(record.exc_info[1]).__name__}: {record.exc_info[1]}; "


def bound_repeated_errors(window_s: float = 60.0) -> None:
    """Put one RepeatSummary on the task server's loggers (once per process)."""
    if _installed() is not None:
        return
    summary = RepeatSummary(window_s)
    for name in LOGGERS:
        logging.getLogger(name).addFilter(summary)


def _installed() -> RepeatSummary | None:
    return next((f for f in logging.getLogger(LOGGERS[0]).filters if isinstance(f, RepeatSummary)), None)


def flush_repeated_errors() -> None:
    summary = _installed()
    if summary is not None:
        summary.flush()
