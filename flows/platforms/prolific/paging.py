"""Prolific's replies read within bounds, whatever the server (docs/security.md)."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx

from flows.core.errors import PlatformError

CALL_DEADLINE_S = 60.0  # one request and its whole reply
RETRIES_DEADLINE_S = 300.0  # one call with all its retries: a slow server cannot hang a run ten times over
MAX_REPLY_BYTES = 32 * 2**20
MAX_JSON_DEPTH = 64
MAX_PAGES = 10_000  # 1,000,000 results at 100 a page
PAGING_DEADLINE_S = 1800.0
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_PLAIN_ID = re.compile(r"[A-Za-z0-9_.~-]{1,128}")


def printable(text: object, limit: int = 300) -> str:
    """``text`` from the server as one short line with no control characters (ESC, CR, bidi)."""
    return " ".join(_CONTROL.sub(" ", str(text)).split())[:limit]


def path_id(value: str, route: str) -> str:
    """A server-provided id as it goes into a URL path: a plain id (letters, digits, ``_.~-``), else refused."""
    if not _PLAIN_ID.fullmatch(value) or value in (".", ".."):
        raise PlatformError(f"Prolific's reply to {route} has an id {printable(value, 40)!r} that is not a plain "
                            "id; check the endpoint URL")
    return value


def within_retries_deadline(started: float, call: str) -> None:
    """Before each attempt of a call begun at ``started``: a PlatformError once RETRIES_DEADLINE_S passed."""
    if time.monotonic() - started > RETRIES_DEADLINE_S:
        raise PlatformError(f"Prolific {call} did not answer within {RETRIES_DEADLINE_S:.0f} s over its retries; "
                            "check the endpoint URL, or run again later")


def bounded_send(http: httpx.Client, method: str, path: str, body: Any, params: Any) -> httpx.Response:
    """One request with its reply read whole within CALL_DEADLINE_S and MAX_REPLY_BYTES."""
    from flows.core.http_clients import within

    deadline = time.monotonic() + CALL_DEADLINE_S
    request = http.build_request(method, path, json=body, params=params)
    late = httpx.ReadTimeout(f"the reply took more than {CALL_DEADLINE_S:.0f} s", request=request)

    def attempt() -> httpx.Response:
        reply = http.send(request, stream=True)
        try:
            chunks, size = [], 0
            for chunk in reply.iter_bytes():
                size += len(chunk)
                if size > MAX_REPLY_BYTES:
                    raise PlatformError(f"Prolific {method} {request.url.path} answered more than "
                                        f"{MAX_REPLY_BYTES // 2**20} MiB; check the endpoint URL")
                if time.monotonic() > deadline:
                    raise late
                chunks.append(chunk)
            reply._content = b"".join(chunks)  # read here, within bounds, instead of by httpx's read()
        finally:
            reply.close()
        return reply
    return within(CALL_DEADLINE_S, attempt, lambda: late)


def bounded_json(content: bytes) -> Any:
    """``content`` parsed, refused (ValueError) when nested deeper than MAX_JSON_DEPTH."""
    try:
        value = json.loads(content)
    except RecursionError as exc:
        raise ValueError("JSON nested too deep") from exc
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ValueError(f"JSON nested deeper than {MAX_JSON_DEPTH}")
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return value


class PageBudget:
    """How far a listing may go: MAX_PAGES, PAGING_DEADLINE_S, and progress on every page."""

    def __init__(self, path: str):
        self.path, self.pages, self.seen = path, 0, set[str]()
        self.deadline = time.monotonic() + PAGING_DEADLINE_S

    def next_page(self, href: str, got: int) -> None:
        """Refuse to ask for another page after one that brought ``got`` results, at ``href``."""
        self.pages += 1
        why = ("it lists more than {MAX_PAGES} pages" if self.pages >= MAX_PAGES
               else f"it took more than {PAGING_DEADLINE_S:.0f} s" if time.monotonic() > self.deadline
               else "its next-page link points at a page already read" if href and href in self.seen
               else "a page with no results links to another" if got == 0 else "")
        if why:
            raise PlatformError(f"Prolific's listing of {printable(self.path, 80)} was stopped: "
                                f"{why.format(MAX_PAGES=MAX_PAGES)}; check the endpoint URL")
        self.seen.add(href)


def page_count(page: dict[str, Any]) -> int:
    meta: dict[str, Any] = page["meta"] if isinstance(page.get("meta"), dict) else {}
    try:
        return int(meta.get("count") or meta.get("total") or 0)
    except (TypeError, ValueError) as exc:
        raise PlatformError(f"Prolific's page count {printable(meta.get('count'), 20)!r} is not a number") from exc


def page_results(page: Any, route: str) -> list[dict[str, Any]]:
    results = page.get("results") if isinstance(page, dict) else None
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        raise PlatformError(f"Prolific's reply to GET {route} has no list of results; check the endpoint")
    return results


def next_href(page: dict[str, Any]) -> str:
    nxt = (page.get("_links") or {}).get("next") if isinstance(page.get("_links"), dict | None) else None
    href = nxt.get("href") if isinstance(nxt, dict) else None
    return href if isinstance(href, str) else ""
