"""The third security round: the task server against slow and many clients, over real sockets.

A client that trickles its request head or body is cut off; one address (an IPv6 client by its
/64) cannot hold more than its share of connections while others are served and /health
answers; and a flood of identical errors writes one log record, not one per connection."""

from __future__ import annotations

import io
import logging
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from flows.taskserver.task_connections import ConnectionLimits, address_key
from flows.taskserver.task_guard import SessionLimits
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import RepeatSummary, TaskServer

FAST = ConnectionLimits(per_address=3, header_timeout_s=0.5, body_timeout_s=0.5)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[TaskServer]:
    with TaskServer(TaskSite(tmp_path / "h.db", {}, secret=b"s" * 32), limits=FAST) as running:
        yield running


def connect(server: TaskServer, source: str = "127.0.0.1", host: str = "127.0.0.1") -> socket.socket:
    port = int(server.url.rsplit(":", 1)[1])
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect((host, port))
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (or 5 s pass)."""
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return data


def health(sock: socket.socket) -> bytes:
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: tasks\r\nConnection: close\r\n\r\n")
    return read_all(sock)


def test_a_trickled_head_is_cut_off_after_the_header_timeout(server: TaskServer) -> None:
    sock = connect(server)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: tasks\r\n")
    start = time.monotonic()
    for _ in range(80):  # a header line every 0.1 s restarts nothing: the server answers and closes
        sock.sendall(b"X-Slow: 1\r\n")
        if select.select([sock], [], [], 0.1)[0]:
            break
    assert time.monotonic() - start < 4.0  # 0.5 s, with room for a loaded machine
    assert read_all(sock).startswith(b"HTTP/1.1 408")
    assert server.connections.counts["header_timeouts"] == 1


def test_a_trickled_body_is_cut_off_after_the_body_timeout(server: TaskServer) -> None:
    sock = connect(server)
    sock.sendall(b"POST /task/x/submit HTTP/1.1\r\nHost: tasks\r\nContent-Length: 5000\r\n\r\nab")
    start = time.monotonic()
    assert read_all(sock) == b""  # closed without an answer: a request was in progress
    assert time.monotonic() - start < 4.0  # 0.5 s, with room for a loaded machine
    assert server.connections.counts["body_timeouts"] == 1
    assert health(connect(server)).startswith(b"HTTP/1.1 200")  # and the server goes on


def test_the_per_address_cap_refuses_one_address_while_others_are_served(server: TaskServer) -> None:
    held = [connect(server, "127.0.0.2") for _ in range(3)]
    refused = connect(server, "127.0.0.2")
    assert read_all(refused).startswith(b"HTTP/1.1 503")
    assert health(connect(server, "127.0.0.3")).startswith(b"HTTP/1.1 200")
    assert health(connect(server)).startswith(b"HTTP/1.1 200")  # /health from the host itself
    assert server.connections.counts["refused_per_address"] == 1
    held[0].close()
    time.sleep(0.1)
    assert health(connect(server, "127.0.0.2")).startswith(b"HTTP/1.1 200")  # a freed place is taken again


def test_at_the_file_limit_cap_a_newcomer_pushes_out_the_crowds_oldest_slow_connection(tmp_path: Path) -> None:
    limits = ConnectionLimits(per_address=64, max_open=4)
    with TaskServer(TaskSite(tmp_path / "h.db", {}, secret=b"s" * 32), limits=limits) as running:
        crowd = [connect(running, "127.0.0.2") for _ in range(4)]
        for sock in crowd:
            sock.sendall(b"GET /health HTTP/1.1\r\n")  # heads never finished
        time.sleep(0.2)
        assert health(connect(running, "127.0.0.3")).startswith(b"HTTP/1.1 200")
        assert read_all(crowd[0]).startswith(b"HTTP/1.1 408")  # the oldest of the crowd made room
        crowd.append(connect(running, "127.0.0.2"))  # the freed place (4 open again, all the crowd's)
        time.sleep(0.1)
        assert read_all(connect(running, "127.0.0.2")).startswith(b"HTTP/1.1 503")  # it cannot push itself out
        assert running.connections.counts["pushed_out"] == 1 and running.connections.counts["refused_full"] == 1


def test_slow_bodies_from_exempt_loopback_cannot_lock_out_health(tmp_path: Path) -> None:
    """The fourth security round: loopback is exempt from the per-address cap (the simulated crowd comes from it),
    and slow bodies from it held every place: /health answered 503 until their body timeout."""
    limits = ConnectionLimits(per_address=64, max_open=4, body_timeout_s=30)
    with TaskServer(TaskSite(tmp_path / "h.db", {}, secret=b"s" * 32), limits=limits) as running:
        crowd = [connect(running) for _ in range(4)]  # from 127.0.0.1, exempt
        for sock in crowd:
            sock.sendall(b"POST /task/x/submit HTTP/1.1\r\nHost: tasks\r\nContent-Length: 5000\r\n\r\nab")
        time.sleep(0.3)
        assert health(connect(running, "127.0.0.3")).startswith(b"HTTP/1.1 200")
        assert health(connect(running)).startswith(b"HTTP/1.1 200")  # the host's own probe too
        assert running.connections.counts["pushed_out"] == 1 and running.connections.counts["refused_full"] == 0


def test_an_ipv6_client_is_counted_by_its_64(tmp_path: Path) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this host")
    limits = ConnectionLimits(per_address=2, exempt=frozenset())  # ::1 counted like any client
    try:
        running = TaskServer(TaskSite(tmp_path / "h.db", {}, secret=b"s" * 32), host="::1", limits=limits).start()
    except RuntimeError:
        pytest.skip("cannot listen on ::1 here")
    try:
        held = [connect(running, "::1", "::1") for _ in range(2)]
        assert read_all(connect(running, "::1", "::1")).startswith(b"HTTP/1.1 503")
        assert dict(running.connections.by_key) == {"::/64": 2}
        del held
    finally:
        running.stop()
    one_64 = {address_key(f"2001:db8:0:7::{i:x}") for i in range(1, 61)}
    assert one_64 == {"2001:db8:0:7::/64"}
    assert address_key("2001:db8:0:8::1") != address_key("2001:db8:0:7::1")
    assert address_key("::ffff:192.0.2.7") == "192.0.2.7"


def test_sixty_addresses_of_one_64_share_one_session_limit() -> None:
    limits = SessionLimits(per_participant=10, per_address=30)
    allowed = sum(limits.allow(f"person{i}", f"2001:db8:0:7::{i:x}") for i in range(1, 61))
    assert allowed == 30
    assert limits.allow("person-elsewhere", "2001:db8:0:8::1")  # the next /64 is someone else


def test_a_flood_of_slow_and_broken_connections_writes_a_bounded_log(server: TaskServer) -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    loggers = [logging.getLogger(n) for n in ("uvicorn.error", "hitflow.task_server")]
    for log in loggers:
        log.addHandler(handler)
    try:
        for n in range(40):  # 40 malformed requests: uvicorn warns "Invalid HTTP request" for each
            sock = connect(server, f"127.0.1.{n + 1}")
            sock.sendall(b"\x16\x03\x01 not http\r\n\r\n")
            assert read_all(sock).startswith(b"HTTP/1.1 400")
    finally:
        for log in loggers:
            log.removeHandler(handler)
    assert out.getvalue().count("Invalid HTTP request") <= 1  # 0 when an earlier test wrote it this minute


def test_repeated_errors_keep_one_traceback_and_report_their_count() -> None:
    clock = [0.0]
    summary = RepeatSummary(window_s=60, now=lambda: clock[0])
    log, out = logging.getLogger("test.repeats"), io.StringIO()
    handler = logging.StreamHandler(out)
    log.addHandler(handler)
    log.addFilter(summary)
    try:
        for _ in range(1000):
            try:
                raise OSError(24, "Too many open files")
            except OSError:
                log.exception("socket.accept() out of system resource")
        clock[0] = 61.0
        log.error("socket.accept() out of system resource", exc_info=OSError(24, "Too many open files"))
    finally:
        log.removeHandler(handler)
    text = out.getvalue()
    assert text.count("Traceback") == 1 and text.count("out of system resource") == 2
    assert "999 more like this left out in the 61 s before" in text
    assert len(text) < 2000


def test_a_summary_written_at_flush_shows_the_message_not_its_template() -> None:
    clock = [0.0]
    summary = RepeatSummary(window_s=60, now=lambda: clock[0])
    log, out = logging.getLogger("test.repeats.flush"), io.StringIO()
    handler = logging.StreamHandler(out)
    log.addHandler(handler)
    log.addFilter(summary)
    try:
        for port in range(5):
            log.warning("client %s:%d closed the connection early", "10.0.0.7", 5000 + port)
        clock[0] = 12.0
        summary.flush()  # the server stops: the burst had no successor to carry its count
    finally:
        log.removeHandler(handler)
    lines = out.getvalue().splitlines()
    assert lines == ["client 10.0.0.7:5000 closed the connection early",
                     "client 10.0.0.7:5000 closed the connection early [4 more like this left out in the 12 s before]"]
