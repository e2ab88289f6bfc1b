"""hitflow's HTTP clients, all with ONE verifying TLS context per process."""

from __future__ import annotations

import functools
import ssl
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import httpx

T = TypeVar("T")


@functools.cache
def tls_context(trust_env: bool = True) -> ssl.SSLContext:
    """The process's verifying TLS context, as httpx would make it for a client with ``trust_env``."""
    import httpx

    return httpx.create_ssl_context(verify=True, trust_env=trust_env)


def http_client(**options: Any) -> httpx.Client:
    """An ``httpx.Client`` with ``options`` (any but ``verify``/``cert``/``http2``) on the shared TLS context."""
    import httpx

    if {"verify", "cert", "http2"} & options.keys():
        # http2 too: one HTTP/2 client would offer h2 on every other client's connections
        raise TypeError("http_client verifies TLS with the shared context: it takes no verify=, cert= or http2=")
    return httpx.Client(verify=tls_context(options.get("trust_env", True)), **options)


def http_get(url: str, *, timeout: float, follow_redirects: bool = False,
             params: dict[str, str] | None = None) -> httpx.Response:
    """``httpx.get`` through a client of :func:`http_client` (the response is read before it closes)."""
    with http_client(timeout=timeout, follow_redirects=follow_redirects) as client:
        return client.get(url, params=params)


def http_url_problem(url: str) -> str:
    """Why ``url`` cannot be a task server's or an endpoint's URL ("" when it can), never quoting it."""
    try:
        parts = urlsplit(url)
        carries = bool(parts.username or parts.password or "@" in parts.netloc or parts.query or parts.fragment)
        int(parts.port or 0)
    except ValueError:  # a bracket or a port urllib cannot read: refused, and nothing of it shown
        return "must be a URL urllib can read (not shown: it may hold a credential)"
    if carries:
        return ("must not carry credentials (a user or password before the host, a query or a fragment; not "
                "shown): give the bare URL, and the credential by the environment")
    if not url.startswith(("http://", "https://")) or not parts.hostname or not url.isprintable() or " " in url:
        return "must be an http(s) URL such as http://127.0.0.1:8765 (not shown: it may hold a credential)"
    return ""


def within(seconds: float, work: Callable[[], T], late: Callable[[], BaseException]) -> T:
    """``work()``'s result when it ends within ``seconds``, else ``late()`` raised (``work`` on a daemon thread)."""
    outcome: list[T | BaseException] = []

    def attempt() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # handed to the caller's thread
            outcome.append(exc)

    worker = threading.Thread(target=attempt, name="hitflow-bounded-call", daemon=True)
    worker.start()
    worker.join(seconds)
    if not outcome:
        raise late()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]
