"""Calls to a simulator's ``/_sim/`` and a task server's ``/health`` on a kept-alive connection."""

from __future__ import annotations

import functools
import http.client
import io
import math
import os
import select
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from flows.core.errors import PlatformError

_HELD = threading.local()  # .line: ((pid, host, port), _Line), the thread's one kept connection
MAX_REPLY_BYTES = 2**20  # a clock's or a health's answer is ~100 bytes
MAX_LIST_BYTES = 64 * 2**20  # /_sim/workers and /_sim/items of a 40,000-image campaign: a few MB


def post_json(url: str, body: bytes, timeout: float, cap: int = MAX_REPLY_BYTES) -> bytes:
    """POST ``body`` (JSON) to ``url``; the reply's body, as ``urlopen(Request(url, body), timeout)`` reads it."""
    return call("POST", url, body, timeout, cap)


def call(method: str, url: str, body: bytes | None, timeout: float, cap: int = MAX_REPLY_BYTES) -> bytes:
    """One request's reply body within ``timeout`` seconds and ``cap`` bytes; a reply that is not HTTP is a URLError."""
    try:
        return _call(method, url, body, timeout, cap)
    except http.client.HTTPException as err:
        raise urllib.error.URLError(f"not an HTTP reply ({type(err).__name__})") from err


def _call(method: str, url: str, body: bytes | None, timeout: float, cap: int) -> bytes:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):  # a ledger's URL is data: never a file:// or ftp:// read
        raise urllib.error.URLError(f"not an http(s) URL: {parts.scheme[:20]}:")
    if parts.scheme != "http" or not parts.hostname or _proxy_in_environment():
        return _through_urllib(url, body, timeout, cap, method)
    conn = _connection(parts.hostname, parts.port or http.client.HTTP_PORT, timeout)
    conn.deadline = time.monotonic() + timeout
    try:
        conn.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body,
                     {"Content-Type": "application/json"} if body is not None else {})
    except OSError as err:  # urllib's own wording for a refused or broken connection
        _drop()
        raise urllib.error.URLError(err) from err
    try:
        reply = conn.getresponse()
        data = bounded_body(reply, cap, f"{method} {parts.path}")
    except BaseException:
        _drop()
        raise
    if not 200 <= reply.status < 300:
        _drop()
        raise urllib.error.HTTPError(url, reply.status, reply.reason, reply.headers, io.BytesIO(data))
    return data


def bounded_body(reply: http.client.HTTPResponse, cap: int, route: str) -> bytes:
    """The body of ``reply`` (read through :class:`_Line`'s deadline), refused past ``cap`` bytes."""
    declared, data = reply.getheader("Content-Length") or "", bytearray()
    if not (declared.isdigit() and int(declared) > cap):
        while len(data) <= cap and (chunk := reply.read1(65536)):
            data += chunk
        if len(data) <= cap:
            reply.read()  # b"": marks the reply done, so the kept connection takes the next request
            return bytes(data)
    reply.close()
    raise PlatformError(f"the reply to {route} is over {cap // 2**20} MiB; is the endpoint hitflow's simulator "
                        "(hitflow sim) or task server?")


def _through_urllib(url: str, body: bytes | None, timeout: float, cap: int = MAX_REPLY_BYTES,
                    method: str = "POST") -> bytes:
    deadline = time.monotonic() + timeout
    opener = urllib.request.build_opener(_Handler(deadline))
    req = urllib.request.Request(url, method=method, data=body, headers={"Content-Type": "application/json"})
    with opener.open(req, timeout=timeout) as resp:
        return bounded_body(resp, cap, f"{method} {urlsplit(url).path}")


class _Deadline(io.RawIOBase):
    """The socket's file, each read waiting only for the time left before ``deadline``."""

    def __init__(self, raw: Any, sock: socket.socket, deadline: float):
        self.raw, self.sock, self.deadline = raw, sock, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the reply took longer than its deadline")
        self.sock.settimeout(left)
        return self.raw.readinto(buffer)  # type: ignore[no-any-return]

    def close(self) -> None:
        self.raw.close()
        super().close()


class _Reply(http.client.HTTPResponse):
    def __init__(self, sock: socket.socket, *args: Any, deadline: float, **options: Any):
        super().__init__(sock, *args, **options)
        self.fp = io.BufferedReader(_Deadline(self.fp.detach(), sock, deadline))  # head and body, as read


class _Line(http.client.HTTPConnection):
    """A connection whose replies (head and body) are read within ``deadline`` (time.monotonic())."""

    def __init__(self, *args: Any, deadline: float = math.inf, **options: Any):
        super().__init__(*args, **options)
        self.deadline = deadline

    def getresponse(self) -> http.client.HTTPResponse:
        self.response_class = functools.partial(_Reply, deadline=self.deadline)  # type: ignore[assignment]
        return super().getresponse()


class _TlsLine(_Line, http.client.HTTPSConnection):
    pass


class _Handler(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    """urllib's http and https handlers (in their place: the proxies stay urllib's), on bounded connections."""

    def __init__(self, deadline: float):
        from flows.core.http_clients import tls_context

        urllib.request.HTTPSHandler.__init__(self, context=tls_context())
        self.deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_Line, req, deadline=self.deadline)  # type: ignore[arg-type]

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_TlsLine, req, context=self._context, deadline=self.deadline)  # type: ignore


def _proxy_in_environment() -> bool:
    """Whether urllib may send plain http through a proxy (``http_proxy`` in the environment or urllib's opener)."""
    if any(len(name) == 10 and name.lower() == "http_proxy" for name in os.environ):
        return True
    opener = getattr(urllib.request, "_opener", None)
    return opener is not None and any("http" in getattr(h, "proxies", {}) for h in opener.handlers)


def _connection(host: str, port: int, timeout: float) -> _Line:
    """The thread's kept connection to ``host:port``; a new one for another endpoint, a fork, or a closed one."""
    key = (os.getpid(), host, port)
    held = getattr(_HELD, "line", None)
    if held is not None:
        if held[0] == key and held[1].sock is not None and not _closed_by_server(held[1].sock):
            held[1].sock.settimeout(timeout)
            return held[1]  # type: ignore[no-any-return]
        _drop()
    conn = _Line(host, port, timeout=timeout)
    _HELD.line = (key, conn)
    return conn


def _closed_by_server(sock: object) -> bool:
    """An idle kept connection with something to read has been closed (or broken) by its server."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)  # type: ignore[arg-type]
    return bool(poller.poll(0))


def _drop() -> None:
    held = getattr(_HELD, "line", None)
    _HELD.line = None
    if held is not None and held[0][0] == os.getpid():  # a forked child leaves its parent's socket be
        held[1].close()
