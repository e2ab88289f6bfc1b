"""The task server's connections against slow and many clients (uvicorn times neither a request's head nor its body)."""

from __future__ import annotations

import asyncio
import ipaddress
import random
import resource
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

# uvicorn's listen backlog (each accepted one a file before it is counted): small under a small limit.
SMALL_BACKLOG, LARGE_BACKLOG = 128, 1024
FIXED_FILES = 256  # the ledger's SQLite files per worker thread, logs, the listening socket


@dataclass(frozen=True)
class ConnectionLimits:
    per_address: int = 64  # a household or lab behind one NAT opens ~6 per browser
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0  # a submit is a few KB, at most 256 KB
    max_open: int = 0  # 0: from the open-file limit (open_file_budget)
    exempt: frozenset[str] = frozenset({"127.0.0.1", "::1"})


def address_key(host: str) -> str:
    """The key a client is counted by: an IPv4 address, or an IPv6 address's /64."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def raise_file_limit() -> int:
    """Raise this process's open-file limit to its hard limit; the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass  # keep what we have; the cap below follows it
    return soft


def backlog_for(file_limit: int) -> int:
    return LARGE_BACKLOG if file_limit >= 16 * LARGE_BACKLOG else SMALL_BACKLOG


def open_file_budget(file_limit: int) -> int:
    """How many client connections fit under the file limit, with room for the ledger and new sockets."""
    return max(16, file_limit - 3 * backlog_for(file_limit) - FIXED_FILES)


@dataclass
class ConnectionTable:
    """Open connections per address key, and those awaiting their head, oldest first (event loop only)."""

    limits: ConnectionLimits
    max_open: int
    by_key: Counter[str] = field(default_factory=Counter)
    awaiting_head: dict[Any, None] = field(default_factory=dict)
    awaiting_by_key: dict[str, dict[Any, None]] = field(default_factory=dict)
    open: int = 0
    counts: Counter[str] = field(default_factory=Counter)  # refused, timed out, pushed out: for benches

    def admit(self, conn: GuardedH11Protocol, host: str) -> bool:
        key, exempt = address_key(host), host in self.limits.exempt
        if not exempt and self.by_key[key] >= self.limits.per_address:
            self.counts["refused_per_address"] += 1
            return False
        if self.open >= self.max_open:
            victim = self.victim(key, exempt)
            if victim is None:
                self.counts["refused_full"] += 1
                return False
            self.counts["pushed_out"] += 1
            victim.close_slow(b"408 Request Timeout")
        conn.key = key
        self.by_key[key] += 1
        self.open += 1
        return True

    def victim(self, key: str, exempt: bool) -> GuardedH11Protocol | None:
        """At the cap: the oldest head-sending connection of the address holding most (max-min fair)."""
        if len(self.awaiting_by_key) > 256:
            return next(iter(self.awaiting_head), None)
        heaviest = max(self.awaiting_by_key, key=self.by_key.__getitem__, default=None)
        if heaviest is None or (not exempt and self.by_key[heaviest] <= self.by_key[key] + 1):
            return None
        return next(iter(self.awaiting_by_key[heaviest]))

    def await_head(self, conn: GuardedH11Protocol) -> None:
        if conn.key is not None:
            self.awaiting_head[conn] = None
            self.awaiting_by_key.setdefault(conn.key, {})[conn] = None

    def head_arrived(self, conn: GuardedH11Protocol) -> None:
        self.awaiting_head.pop(conn, None)
        waiting = self.awaiting_by_key.get(conn.key or "")
        if waiting is not None:
            waiting.pop(conn, None)
            if not waiting:
                del self.awaiting_by_key[conn.key or ""]

    def release(self, conn: GuardedH11Protocol) -> None:
        self.head_arrived(conn)
        if conn.key is not None:
            self.by_key[conn.key] -= 1
            if self.by_key[conn.key] <= 0:
                del self.by_key[conn.key]
            self.open -= 1
            conn.key = None


def plain_response(status: bytes, text: bytes = b"") -> bytes:
    return (b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
            b"content-length: " + str(len(text)).encode() + b"\r\n\r\n" + text)


BUSY = plain_response(b"503 Service Unavailable", b"Too many open connections from your address. "
                      b"Close some pages and try again in a minute.\n")


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the table's admission and the head and body deadlines."""

    table: ConnectionTable  # set per server by guarded_protocol()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.key: str | None = None
        self.deadline: asyncio.TimerHandle | None = None
        self.sending_body = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.table.admit(self, self.client[0] if self.client else ""):
            transport.write(BUSY)
            transport.close()
            return
        self._await_head()

    def _await_head(self) -> None:
        # between 3/4 and all of the timeout: a crowd that connected at once is not cut off at once
        self._set_deadline(self.table.limits.header_timeout_s * random.uniform(0.75, 1.0), "header_timeouts")
        self.table.await_head(self)

    def _set_deadline(self, seconds: float, reason: str) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
        self.deadline = self.loop.call_later(seconds, self._timed_out, reason)

    def _timed_out(self, reason: str) -> None:
        self.deadline = None
        self.table.counts[reason] += 1
        self.close_slow(b"408 Request Timeout")

    def close_slow(self, status: bytes) -> None:
        """Close a connection that is too slow; a 408 when no request is in progress."""
        self.table.head_arrived(self)  # (it has not, but it no longer awaits one)
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(plain_response(status))
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        before = self.cycle
        super().data_received(data)
        cycle = self.cycle
        if cycle is not None and cycle is not before:  # a request head arrived
            self.table.head_arrived(self)
            self._set_deadline(self.table.limits.body_timeout_s, "body_timeouts")
            if cycle.more_body:  # still sending (its body): at the cap it may be pushed out as a slow head is
                self.sending_body = True
                self.table.await_head(self)
        if cycle is not None and not cycle.more_body and self.deadline is not None \
                and (self.sending_body or self not in self.table.awaiting_head):
            self.deadline.cancel()  # the body is complete: the app answers in its own time
            self.deadline = None
            self.table.head_arrived(self)
            self.sending_body = False

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()  # the next request's head (uvicorn's keep-alive closes an idle one sooner)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        self.table.release(self)
        super().connection_lost(exc)


def guarded_protocol(table: ConnectionTable) -> type[GuardedH11Protocol]:
    """A protocol class bound to one server's table (uvicorn builds protocols from the class)."""
    return type("TaskServerProtocol", (GuardedH11Protocol,), {"table": table})
