"""What the task server puts between the internet and its routes (docs/security.md)."""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from flows.taskserver.task_connections import address_key

MTURK_SUBMIT_ORIGINS = ("https://www.mturk.com", "https://workersandbox.mturk.com")
MTURK_FRAME_ORIGINS = ("https://worker.mturk.com", "https://www.mturk.com", "https://workersandbox.mturk.com")


class BodyTooLarge(Exception):
    """The request body is larger than the route accepts (HTTP 413)."""


class BadLength(Exception):
    """Content-Length is not a non-negative integer (HTTP 400)."""


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of an http(s) URL, or None for anything else."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


# every handler attribute of a tag (a stray match in text only adds a hash no handler has)
_HANDLER_CODE = re.compile(r"""\son[a-z]+\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)


def static_handler_hashes(page: str, template: str) -> set[str]:
    """CSP hashes of the page's inline event handlers (onclick=...) spelt as they run in its template: those run,
    as on MTurk; a handler whose code holds an item's value (anything the template does not spell) stays blocked."""
    found = set()
    for m in _HANDLER_CODE.finditer(page):
        raw = m.group(1) if m.group(1) is not None else m.group(2)
        if raw.strip() and raw in template:
            digest = hashlib.sha256(html.unescape(raw).encode()).digest()
            found.add(f"'sha256-{base64.b64encode(digest).decode()}'")
    return found


def content_security_policy(nonce: str, image_origins: Iterable[str] = (), form_origins: Iterable[str] = (),
                            page_origins: Iterable[str] = (), handler_hashes: Iterable[str] = ()) -> str:
    """The CSP: own nonced scripts and styles, ``page_origins``, the template's own inline handlers, image hosts,
    submit origins; framed by MTurk."""
    images = " ".join(sorted(set(image_origins)))
    forms = " ".join(sorted(set(form_origins)))
    extra = "".join(f" {o}" for o in sorted(set(page_origins)))
    hashes = sorted(set(handler_hashes))
    handlers = "".join(f" {h}" for h in ["'unsafe-hashes'", *hashes]) if hashes else ""
    return "; ".join([
        "default-src 'none'", f"script-src 'nonce-{nonce}'{extra}{handlers}", f"style-src 'nonce-{nonce}'{extra}",
        f"img-src 'self' data: {images}".rstrip(), f"form-action 'self' {forms}".rstrip(),
        f"frame-ancestors 'self' {' '.join(MTURK_FRAME_ORIGINS)}", "base-uri 'none'", "object-src 'none'"])


class SecurityHeaders:
    """ASGI middleware: a fresh CSP nonce per request and the headers on every response."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        state["csp_nonce"] = secrets.token_urlsafe(18)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                csp = content_security_policy(state["csp_nonce"], state.get("image_origins", ()),
                                              state.get("form_origins", ()), state.get("page_origins", ()),
                                              state.get("handler_hashes", ()))
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in (b"content-security-policy", b"x-content-type-options",
                                                b"referrer-policy")]
                headers += [(b"content-security-policy", csp.encode()), (b"x-content-type-options", b"nosniff"),
                            (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store")]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def bounded_body(request: Request, limit: int) -> bytes:
    """The body, refused past ``limit`` bytes, by Content-Length or while it streams."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise BadLength(declared[:40])
        if int(declared) > limit:
            raise BodyTooLarge(declared)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(str(size))
        chunks.append(chunk)
    return b"".join(chunks)


@dataclass
class SessionLimits:
    """At most ``per_participant`` and ``per_address`` new sessions within ``window_s`` (IPv6 by /64)."""

    per_participant: int = 6
    per_address: int = 30
    window_s: float = 600.0
    now: Callable[[], float] = time.monotonic
    _seen: dict[str, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def allow(self, participant: str, address: str) -> bool:
        """Count one new session for both keys, or refuse (counting nothing) when either is full."""
        keys = [(f"p:{participant}", self.per_participant), (f"a:{address_key(address)}", self.per_address)]
        with self._lock:
            t = self.now()
            for key, _ in keys:
                times = self._seen.setdefault(key, deque())
                while times and times[0] <= t - self.window_s:
                    times.popleft()
            if any(len(self._seen[key]) >= cap for key, cap in keys):
                return False
            for key, _ in keys:
                self._seen[key].append(t)
            if len(self._seen) > 100_000:  # forget idle keys so the table cannot grow without end
                self._seen = {k: v for k, v in self._seen.items() if v}
            return True


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"
