"""The simulator's clock calls over one kept-alive HTTP connection per thread.

A run reads and moves the simulator's virtual clock thousands of times (every poll round, every
window check). ``urllib.request.urlopen`` opens a new TCP connection for each call, and the simulator
starts a thread for each connection: ~0.8 ms of CPU a call, against ~0.2 ms on a connection kept
(bench/per_run_cpu.py). The call is the same HTTP request with the same reply and the same errors as
``urlopen`` gives (a refused connection as ``URLError``, a non-2xx reply as ``HTTPError``, a timeout
as ``TimeoutError``), with one difference: a redirect is refused as an ``HTTPError``, not followed
(a clock POSTed to a redirect would have been re-sent as a GET; the simulator never redirects).

Where urllib may use a proxy (an ``http_proxy`` variable in the environment, or in urllib's opener) or
the URL is not plain http, the call goes through ``urlopen`` itself, as before.
"""

from __future__ import annotations

import http.client
import io
import os
import select
import threading
import urllib.error
import urllib.request
from urllib.parse import urlsplit

_HELD = threading.local()  # .line: ((pid, host, port), HTTPConnection), the thread's one kept connection


def post_json(url: str, body: bytes, timeout: float) -> bytes:
    """POST ``body`` (JSON) to ``url``; the reply's body, as ``urlopen(Request(url, body), timeout)`` reads it."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname or _proxy_in_environment():
        return _through_urllib(url, body, timeout)
    conn = _connection(parts.hostname, parts.port or http.client.HTTP_PORT, timeout)
    try:
        conn.request("POST", parts.path + (f"?{parts.query}" if parts.query else ""), body,
                     {"Content-Type": "application/json"})
    except OSError as err:  # urllib's own wording for a refused or broken connection
        _drop()
        raise urllib.error.URLError(err) from err
    try:
        reply = conn.getresponse()
        data = reply.read()
    except BaseException:
        _drop()
        raise
    if not 200 <= reply.status < 300:
        _drop()
        raise urllib.error.HTTPError(url, reply.status, reply.reason, reply.headers, io.BytesIO(data))
    return data


def _through_urllib(url: str, body: bytes, timeout: float) -> bytes:
    req = urllib.request.Request(url, method="POST", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.read()  # type: ignore[no-any-return]


def _proxy_in_environment() -> bool:
    """Whether urllib may send plain http through a proxy: an ``http_proxy`` (whatever its case) in the
    environment now, or in urllib's opener (built from the environment at its first ``urlopen``)."""
    if any(len(name) == 10 and name.lower() == "http_proxy" for name in os.environ):
        return True
    opener = getattr(urllib.request, "_opener", None)
    return opener is not None and any("http" in getattr(h, "proxies", {}) for h in opener.handlers)


def _connection(host: str, port: int, timeout: float) -> http.client.HTTPConnection:
    """The thread's kept connection to ``host:port``; a new one for another endpoint, after a fork, or
    when the kept one was closed by the server (a stopped simulator ends its connections)."""
    key = (os.getpid(), host, port)
    held = getattr(_HELD, "line", None)
    if held is not None:
        if held[0] == key and held[1].sock is not None and not _closed_by_server(held[1].sock):
            held[1].sock.settimeout(timeout)
            return held[1]
        _drop()
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
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
