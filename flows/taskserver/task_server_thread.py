"""Run the task server (uvicorn) in a background thread, as ``hitflow serve`` and campaign runs do."""

from __future__ import annotations

import gc
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import replace

import uvicorn

from flows.taskserver.task_connections import (
    ConnectionLimits,
    ConnectionTable,
    backlog_for,
    guarded_protocol,
    open_file_budget,
    raise_file_limit,
)
from flows.taskserver.task_server import TaskSite, make_app

DEFAULT_LIMITS = ConnectionLimits()


def server_config(site: TaskSite, host: str = "127.0.0.1", port: int = 0, trusted_proxies: tuple[str, ...] = (),
                  limits: ConnectionLimits = DEFAULT_LIMITS) -> uvicorn.Config:
    """uvicorn's settings for the task server (forwarded headers only from ``proxies``)."""
    if trusted_proxies:
        site.limit_loopback = True  # behind a proxy on loopback the real client comes from the header
    limits = replace(limits, exempt=limits.exempt | frozenset(trusted_proxies))
    file_limit = raise_file_limit()
    table = ConnectionTable(limits, limits.max_open or open_file_budget(file_limit))
    config = uvicorn.Config(make_app(site), host=host, port=port, log_level="warning", lifespan="off",
                            access_log=False, proxy_headers=bool(trusted_proxies),
                            forwarded_allow_ips=list(trusted_proxies) or None, server_header=False,
                            http=guarded_protocol(table), backlog=backlog_for(file_limit))
    bound_repeated_errors()  # after uvicorn's Config, which sets up its loggers
    return config


def check_listenable(host: str, port: int) -> None:
    """Bind the address once before uvicorn does, so a port in use is a one-line error."""
    if port == 0:
        return
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                         flags=socket.AI_PASSIVE)[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(address)


def serve_forever(config: uvicorn.Config) -> None:
    """Run the server until it is stopped (``hitflow serve``), then write the counted repeats."""
    check_listenable(config.host, config.port)
    # What the imports made is frozen, so a full collection walks only what serving makes.
    gc.freeze()
    try:
        uvicorn.Server(config).run()
    finally:
        flush_repeated_errors()


class TaskServer:
    """``url`` once started; ``with TaskServer(site) as server: ...`` stops it on exit."""

    def __init__(self, site: TaskSite, host: str = "127.0.0.1", port: int = 0,
                 trusted_proxies: tuple[str, ...] = (), limits: ConnectionLimits = DEFAULT_LIMITS):
        self.site = site
        self.server = uvicorn.Server(server_config(site, host, port, trusted_proxies, limits))
        self.connections: ConnectionTable = self.server.config.http.table  # type: ignore[union-attr]  # server_config's
        self.host = host
        self.url = ""
        self._thread: threading.Thread | None = None

    def start(self) -> TaskServer:
        check_listenable(self.host, self.server.config.port)
        self._thread = threading.Thread(target=self.server.run, name="hitflow-task-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the task server did not start; is the port free?")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://{self.host}:{port}"
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        flush_repeated_errors()

    def __enter__(self) -> TaskServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ---- a bounded log for the task server: an error that repeats is counted, not written again ----
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
