"""The fourth security round: the Prolific client against a hostile server (a loopback server on port 0 that
answers as no Prolific would): paging that never progresses is stopped, a reply sent a byte at a time
meets a deadline, deep JSON and terminal escapes in errors or ids are one clean line."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import ClassVar

import pytest

from flows.core.errors import PlatformError
from flows.platforms.prolific import adapter as prolific
from flows.platforms.prolific import paging
from flows.platforms.retry_policy import RetryPolicy
from tests.local_http import QuietHandler, local_http_server


class Hostile(QuietHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        Hostile.hits.append(self.path)
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        if self.path.startswith("/api/v1/loop/"):  # the next page is this page, forever
            self.json({"results": [{"id": "a"}], "_links": {"next": {"href": f"{base}/api/v1/loop/"}}})
        elif self.path.startswith("/api/v1/empty/"):  # empty pages, each linking to a new one
            self.json({"results": [], "_links": {"next": {"href": f"{base}/api/v1/empty/?p={len(Hostile.hits)}"}}})
        elif self.path.startswith("/api/v1/deep/"):
            self.reply(b"[" * 200_000 + b"]" * 200_000, "application/json")
        elif self.path.startswith("/api/v1/nested/"):
            self.reply(json.dumps({"results": [], "x": json.loads("[" * 100 + "]" * 100)}).encode(), "application/json")
        elif self.path.startswith("/api/v1/escape/"):
            self.json({"error": {"title": "\x1b[2J\x1b]0;owned\x07 bad", "detail": "line\r\nnext\x9b1m"}}, 400)
        elif self.path.startswith("/api/v1/slowhead/"):  # the head itself a byte every 0.1 s
            try:
                for byte in b"HTTP/1.1 200 OK\r\nX-Pad: " + b"a" * 60:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
            self.close_connection = True
        elif self.path.startswith("/api/v1/slow/"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            try:
                for _ in range(60):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:  # the client gave up, as it should
                pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.json({"id": "../workspaces/\x1b[31mx"})  # an id that would walk the API's paths

    def json(self, body: object, status: int = 200) -> None:
        self.reply(json.dumps(body).encode(), "application/json", status)


@pytest.fixture(scope="module")
def client() -> Iterator[prolific.ProlificClient]:
    with local_http_server(Hostile) as url:
        made = prolific.make_client(url, simulator=True)
        made.retry = RetryPolicy(attempts=1)
        yield made


def test_a_next_link_to_itself_is_stopped_at_once(client: prolific.ProlificClient) -> None:
    Hostile.hits.clear()
    with pytest.raises(PlatformError, match="a page already read"):
        prolific.every_page(client, "loop/")
    assert len(Hostile.hits) == 2


def test_empty_pages_linking_on_are_stopped(client: prolific.ProlificClient) -> None:
    Hostile.hits.clear()
    with pytest.raises(PlatformError, match="no results links to another"):
        prolific.every_page(client, "empty/")
    assert len(Hostile.hits) == 1


def test_paging_has_a_page_budget(client: prolific.ProlificClient, monkeypatch: pytest.MonkeyPatch) -> None:
    budget = paging.PageBudget("x/")
    monkeypatch.setattr(paging, "MAX_PAGES", 3)
    budget.next_page("p1", 1)
    budget.next_page("p2", 1)
    with pytest.raises(PlatformError, match="more than 3 pages"):
        budget.next_page("p3", 1)


def test_deep_json_is_one_line_not_a_recursion_error(client: prolific.ProlificClient) -> None:
    for route in ("deep/", "nested/"):
        with pytest.raises(PlatformError, match="not JSON"):
            prolific.call(client, "GET", route)


def test_terminal_escapes_in_an_error_are_stripped(client: prolific.ProlificClient) -> None:
    with pytest.raises(PlatformError) as refused:
        prolific.call(client, "GET", "escape/")
    text = str(refused.value)
    assert "bad" in text and "next" in text
    assert not any(c in text for c in "\x1b\x07\r\n\x9b")


def test_an_id_that_is_not_plain_is_refused_before_use_in_a_url(client: prolific.ProlificClient) -> None:
    with pytest.raises(PlatformError, match="not a plain id") as refused:
        prolific.create_study(client, {"name": "x"})
    assert "\x1b" not in str(refused.value)
    with pytest.raises(PlatformError, match="not a plain id"):
        prolific.get_study(client, "../workspaces")


def test_a_reply_sent_a_byte_at_a_time_meets_the_call_deadline(client: prolific.ProlificClient,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paging, "CALL_DEADLINE_S", 1.0)
    started = time.monotonic()
    with pytest.raises(PlatformError, match="ReadTimeout"):
        prolific.call(client, "GET", "slow/")
    assert time.monotonic() - started < 4
    started = time.monotonic()
    with pytest.raises(PlatformError, match="ReadTimeout"):
        prolific.call(client, "GET", "slowhead/")  # each read had its own timeout: 7 s here, hours at 29 s a byte
    assert time.monotonic() - started < 4


def test_a_slow_server_cannot_hang_a_call_over_its_retries(client: prolific.ProlificClient,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Each attempt meets the call deadline, and the retries together meet one more: ten attempts of a
    slow reply are not ten deadlines."""
    monkeypatch.setattr(paging, "CALL_DEADLINE_S", 0.5)
    monkeypatch.setattr(paging, "RETRIES_DEADLINE_S", 1.2)
    monkeypatch.setattr(client, "retry", RetryPolicy(attempts=10, first_wait_s=0.01, max_wait_s=0.01))
    Hostile.hits.clear()
    started = time.monotonic()
    with pytest.raises(PlatformError, match="did not answer within 1 s over its retries"):
        prolific.call(client, "GET", "slow/")
    assert time.monotonic() - started < 4 and 2 <= len(Hostile.hits) < 10

