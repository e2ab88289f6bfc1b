"""Run the task server (uvicorn) in a background thread, as ``hitflow serve`` and campaign runs do."""

from __future__ import annotations

import gc
import socket
import threading
import time
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
from flows.taskserver.task_log import bound_repeated_errors, flush_repeated_errors
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
