"""An ExternalQuestion's page fetched within bounds (docs/security.md); a refusal says what to do instead."""

from __future__ import annotations

import codecs
import contextlib
import ipaddress
import socket
import time
import zlib
from collections.abc import Iterable, Iterator
from urllib.parse import urljoin, urlsplit

import httpx

from flows.core.http_clients import http_client, within

MAX_PAGE_BYTES = 16 * 2**20  # a page for one task, with inline images and scripts, is far smaller
FETCH_DEADLINE_S = 30.0  # the whole fetch: every redirect and the body
MAX_REDIRECTS = 5
CHUNK = 64 * 1024
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
SAVE_IT = "save the page as a file and run hitflow new NAME --from that file"


class FetchRefused(Exception):
    """The page was not fetched: one line saying why and what to do."""


def allowed_networks(texts: Iterable[str]) -> tuple[Network, ...]:
    """``--allow-address`` values (an address or a network: 127.0.0.1, 10.0.0.0/8) as networks."""
    try:
        return tuple(ipaddress.ip_network(text.strip(), strict=False) for text in texts)
    except ValueError as exc:
        raise FetchRefused(f"--allow-address: {exc}; give an address or a network such as 127.0.0.1 or "
                           "10.0.0.0/8") from exc


def fetch_page(url: str, allowed: tuple[Network, ...] = ()) -> str:
    """The page at ``url`` as text, within every bound above; raises FetchRefused."""
    seconds = FETCH_DEADLINE_S  # the worker checks the same deadline; within() is for a step blocked past it
    return within(seconds + 0.05, lambda: _fetch(url, allowed, time.monotonic() + seconds),
                  lambda: FetchRefused(f"the page took more than {seconds:.0f} s; {SAVE_IT}"))


def _fetch(url: str, allowed: tuple[Network, ...], deadline: float) -> str:
    with http_client(follow_redirects=False, trust_env=False) as client:
        for _ in range(MAX_REDIRECTS + 1):
            target, host = _checked(url, allowed)
            with _sent(client, target, host, deadline) as reply:
                if reply.is_redirect:
                    url = urljoin(url, reply.headers.get("location", ""))
                    continue
                if reply.status_code >= 400:
                    raise FetchRefused(f"the page answered HTTP {reply.status_code}; {SAVE_IT}")
                return page_text(_body(reply, deadline), reply.charset_encoding)
    raise FetchRefused(f"the page redirected more than {MAX_REDIRECTS} times; {SAVE_IT}")


# text codecs no page is written in: idna, punycode, unicode_escape, and UTF-7 (browsers refuse it: it hides markup)
NOT_PAGE_CHARSETS = ("idna", "punycode", "unicode-escape", "raw-unicode-escape", "utf-7", "undefined")


def page_text(body: bytes, charset: str | None) -> str:
    """``body`` in its declared charset when a page can be in it, else UTF-8; undecodable bytes become U+FFFD."""
    try:
        codec = codecs.lookup(charset or "utf-8")
        if codec._is_text_encoding and codec.name not in NOT_PAGE_CHARSETS:
            return body.decode(codec.name, errors="replace")
    except (LookupError, UnicodeError, ValueError, TypeError):  # an unknown name, a codec failing as it reads
        pass
    return body.decode("utf-8", errors="replace")


def _checked(url: str, allowed: tuple[Network, ...]) -> tuple[str, str]:
    """(the URL with its host replaced by the checked address, the host)."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError as exc:
        raise FetchRefused(f"the page's URL is not one a browser can open ({exc}); {SAVE_IT}") from exc
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise FetchRefused(f"only http and https pages are fetched, not {parts.scheme or 'this'}:; {SAVE_IT}")
    try:
        found = {info[4][0] for info in socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)}
    except (OSError, UnicodeError) as exc:
        raise FetchRefused(f"the page's host {parts.hostname[:80]!r} was not found ({exc}); {SAVE_IT}") from exc
    addresses = sorted(ipaddress.ip_address(str(a).split("%")[0]) for a in found)
    barred = [a for a in addresses if not _public(a) and not any(a in net for net in allowed
                                                                 if a.version == net.version)]
    if barred:
        raise FetchRefused(f"the page's host {parts.hostname[:80]} is at {barred[0]}, a private, loopback or "
                           "link-local address: pages from inside the network are not fetched; pass "
                           f"--allow-address {barred[0]} if that is the page you mean, or {SAVE_IT}")
    address = str(addresses[0])
    netloc = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
    return parts._replace(netloc=netloc).geturl(), parts.hostname


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:  # ::ffff:127.0.0.1 is loopback
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


@contextlib.contextmanager
def _sent(client: httpx.Client, target: str, host: str, deadline: float) -> Iterator[httpx.Response]:
    """The request to the checked address, its host in ``Host`` and in TLS's SNI, within the deadline."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise FetchRefused(f"the page took more than {FETCH_DEADLINE_S:.0f} s; {SAVE_IT}")
    request = client.build_request("GET", target, headers={"Host": host, "Accept-Encoding": "gzip, deflate"},
                                   timeout=httpx.Timeout(left), extensions={"sni_hostname": host})
    try:
        reply = client.send(request, stream=True)
    except httpx.TimeoutException as exc:
        raise FetchRefused(f"the page took more than {FETCH_DEADLINE_S:.0f} s; {SAVE_IT}") from exc
    except httpx.HTTPError as exc:
        raise FetchRefused(f"the page could not be fetched ({type(exc).__name__}); {SAVE_IT}") from exc
    try:
        yield reply
    finally:
        reply.close()


def _body(reply: httpx.Response, deadline: float) -> bytes:
    """The body, decoded, within the byte caps and the deadline."""
    declared = reply.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_PAGE_BYTES:
        raise FetchRefused(f"the page is {int(declared)} bytes, over the {MAX_PAGE_BYTES // 2**20} MiB page limit")
    out = bytearray()
    encoding = reply.headers.get("content-encoding", "").strip().lower()
    for piece in _decoded(_raw(reply, deadline), encoding, deadline):
        out += piece
        if len(out) > MAX_PAGE_BYTES:
            raise FetchRefused(f"the page decompresses to more than the {MAX_PAGE_BYTES // 2**20} MiB page limit")
    return bytes(out)


def _raw(reply: httpx.Response, deadline: float) -> Iterator[bytes]:
    read = 0
    try:
        for chunk in reply.iter_raw():
            read += len(chunk)
            if read > MAX_PAGE_BYTES:
                raise FetchRefused(f"the page is over the {MAX_PAGE_BYTES // 2**20} MiB page limit")
            if time.monotonic() > deadline:
                raise FetchRefused(f"the page took more than {FETCH_DEADLINE_S:.0f} s; {SAVE_IT}")
            yield chunk
    except httpx.TimeoutException as exc:
        raise FetchRefused(f"the page took more than {FETCH_DEADLINE_S:.0f} s; {SAVE_IT}") from exc
    except httpx.HTTPError as exc:
        raise FetchRefused(f"the page could not be read to its end ({type(exc).__name__}); {SAVE_IT}") from exc


def _decoded(chunks: Iterator[bytes], encoding: str, deadline: float) -> Iterator[bytes]:
    """``chunks`` decompressed a bounded piece at a time (a 300 KB gzip body never becomes 1.6 GB at once)."""
    if encoding in ("", "identity"):
        yield from chunks
        return
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise FetchRefused(f"the page came {encoding[:40]}-encoded, which is not read here; {SAVE_IT}")
    try:
        yield from _inflated(chunks, "gzip" in encoding, deadline)
    except zlib.error as exc:
        raise FetchRefused(f"the page's {encoding} body is damaged ({exc}); {SAVE_IT}") from exc


def _inflated(chunks: Iterator[bytes], gzip: bool, deadline: float) -> Iterator[bytes]:
    """Each chunk's output in pieces of at most CHUNK bytes; every turn makes progress and checks the deadline."""
    inflater, members = zlib.decompressobj(wbits=47 if gzip else 15), 0  # 47: gzip or zlib header
    for chunk in chunks:
        data, full = chunk, False
        while data or full:  # full: the last piece filled CHUNK, so more output may be waiting
            if time.monotonic() > deadline:
                raise FetchRefused(f"the page took more than {FETCH_DEADLINE_S:.0f} s; {SAVE_IT}")
            if inflater.eof:  # a member ended: gzip may hold another; after deflate's stream, nothing counts
                if not gzip:
                    return
                inflater, members = zlib.decompressobj(wbits=47), members + 1
            try:
                piece = inflater.decompress(data, CHUNK)
            except zlib.error:
                if members:  # bytes after a whole member that are no member: trailing bytes, ignored
                    return
                raise
            full = len(piece) == CHUNK
            data = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
            if piece:
                yield piece
    if not inflater.eof:
        yield inflater.flush()
