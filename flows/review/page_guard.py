"""What the local pages send on every response, whatever answers it."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# For a response whose route set no CSP (plain-text refusals and errors): it may load nothing at all.
STRICT_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
# The page's mark in a browser tab (a small SVG of our own), so /favicon.ico is no 404.
FAVICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" '
           'fill="#1f4e79"/><path d="M3 4h10l-4 5v4l-2-1V9z" fill="#fff"/></svg>')


class EveryResponse:
    """ASGI wrapper adding nosniff, no-store and :data:`STRICT_CSP` to any response that lacks them, and the pages'
    own origin as referrer on every one (the review page's POSTs carry it for the CSRF check; no other site gets it)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"referrer-policy"]
                present = {k.lower() for k, _ in headers}
                for name, value in ((b"content-security-policy", STRICT_CSP), (b"x-content-type-options", "nosniff"),
                                    (b"cache-control", "no-store")):
                    if name not in present:
                        headers.append((name, value.encode()))
                headers.append((b"referrer-policy", b"same-origin"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_guarded)


async def favicon(request: Request) -> Response:
    """Open to anyone (it is the same picture for everybody): a browser asks before it has signed in."""
    return Response(FAVICON, media_type="image/svg+xml")
