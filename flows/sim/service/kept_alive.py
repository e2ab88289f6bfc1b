"""The simulator server's kept-alive connections, ended when it stops."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading


class KeptAlive:
    """ThreadingHTTPServer mixin: ``close_connections`` after ``server_close`` ends kept-alive connections."""

    def track_connections(self) -> None:
        self._open: dict[socket.socket, threading.Thread] = {}
        self._open_lock = threading.Lock()

    def opened(self, conn: socket.socket) -> None:
        with self._open_lock:
            self._open[conn] = threading.current_thread()

    def closed(self, conn: socket.socket) -> None:
        with self._open_lock:
            self._open.pop(conn, None)

    def handle_error(self, request: object, client_address: tuple[str, int]) -> None:
        """One line, not a traceback, for a request that broke the handler (the client sees a reset)."""
        exc = sys.exc_info()[1]
        if isinstance(exc, BrokenPipeError | ConnectionResetError):  # the client left (Ctrl-C): nothing broke here
            return
        sys.stderr.write(f"hitflow sim: request from {client_address[0]} failed: {type(exc).__name__}: {exc}\n")

    def close_connections(self, wait_s: float = 2.0) -> None:
        with self._open_lock:
            open_now = list(self._open.items())
        for conn, _ in open_now:
            with contextlib.suppress(OSError):  # the client closed it already
                conn.shutdown(socket.SHUT_RDWR)
        for _, thread in open_now:
            if thread is not threading.current_thread():
                thread.join(wait_s)


class CountedConnection:
    """Mixed into the handler of a :class:`KeptAlive` server: each connection counted while it is open."""

    server: KeptAlive
    connection: socket.socket

    def setup(self) -> None:
        super().setup()  # type: ignore[misc]
        self.server.opened(self.connection)

    def finish(self) -> None:
        try:
            super().finish()  # type: ignore[misc]
        finally:
            self.server.closed(self.connection)
