"""The simulated Prolific API's plumbing: routes, error and list shapes, required fields."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from flows.sim.prolific.prolific_state import ProlificError, ProlificState

Body = dict[str, Any]  # a request's JSON body
Query = dict[str, str]
Reply = tuple[int, Any]  # status, and the JSON (None: no body)
Handler = Callable[[ProlificState, Body, Query, list[str]], Reply]
ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []
PAGE_SIZE = 20


def route(method: str, pattern: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        ROUTES.append((method, re.compile(f"^/api/v1/{pattern}/?$"), fn))
        return fn
    return register


def error(status: int, code: int, title: str, detail: Any) -> dict[str, Any]:
    return {"error": {"status": status, "error_code": code, "title": title, "detail": detail,
                      "additional_information": "/api/v1/errors/", "interactive": False}}


def listing(items: list[dict[str, Any]], query: dict[str, str], path: str) -> dict[str, Any]:
    """Prolific's paged list (``results``, ``_links``, ``meta``) by ``page``/``page_size`` or ``limit``/``offset``."""
    base = query.get("_base", "")
    query = {k: v for k, v in query.items() if k != "_base"}
    if "limit" in query or "offset" in query:
        return _window(items, query, base, path)
    size = max(1, min(int(query.get("page_size", PAGE_SIZE)), 200))
    page = max(1, int(query.get("page", 1)))
    last = max(1, -(-len(items) // size))

    def href(n: int) -> dict[str, str | None]:
        return {"href": f"{base}/api/v1/{path}?{urlencode({**query, 'page': n, 'page_size': size})}"
                if 1 <= n <= last else None, "title": "Page"}

    return {"results": items[(page - 1) * size: page * size],
            "_links": {"self": href(page), "next": href(page + 1), "previous": href(page - 1), "last": href(last)},
            "meta": {"count": len(items)}}


def _window(items: list[dict[str, Any]], query: dict[str, str], base: str, path: str) -> dict[str, Any]:
    limit, offset = max(1, min(int(query.get("limit", PAGE_SIZE)), 200)), max(0, int(query.get("offset", 0)))
    rest = {k: v for k, v in query.items() if k not in ("limit", "offset", "page", "page_size")}

    def href(start: int) -> dict[str, str | None]:
        ok = 0 <= start < len(items) and start != offset
        return {"href": f"{base}/api/v1/{path}?{urlencode({**rest, 'limit': limit, 'offset': start})}"
                if ok else None, "title": "Page"}

    return {"results": items[offset: offset + limit],
            "_links": {"self": href(offset), "next": href(offset + limit), "previous": href(max(0, offset - limit)),
                       "last": href(max(0, len(items) - limit))}, "meta": {"count": len(items)}}


def need(body: dict[str, Any], *keys: str) -> None:
    missing = [k for k in keys if body.get(k) in (None, "", [])]
    if missing:
        raise ProlificError(400, 140001, "Request is not valid", {k: ["This field is required."] for k in missing})
