"""The simulator's clock calls go over one kept-alive connection per thread (flows/platforms/clock_line.py):
the same request gets the same reply and the same errors as ``urllib.request.urlopen`` (the old way, kept
there as ``_through_urllib`` and compared with here), a stopped simulator's connection is replaced,
and with a proxy in the environment the call goes through urllib as before."""

from __future__ import annotations

import json
import threading
import urllib.error

import pytest

from flows.core.run.run_context import Target
from flows.platforms import clock_line
from flows.platforms.clock_line import _through_urllib, post_json
from flows.platforms.targets import advance_sim_clock
from flows.sim.service.server import SimServer
from tests.local_http import QuietHandler, local_http_server


def _now(body: bytes) -> float:
    return float(json.loads(body)["now"])


def test_kept_calls_move_the_clock_as_urllib_calls_do_on_one_connection() -> None:
    with SimServer(seed=1) as sim:
        url, move = f"{sim.url}/_sim/clock", lambda s: json.dumps({"advance_seconds": s}).encode()
        start = _now(_through_urllib(url, move(0), 30))
        assert _now(post_json(url, move(60), 30)) == start + 60
        kept = clock_line._HELD.line[1]
        assert _now(_through_urllib(url, move(0), 30)) == start + 60  # the old way sees the same clock
        assert _now(post_json(url, move(3600), 30)) == start + 3660
        assert clock_line._HELD.line[1] is kept and kept.sock is not None
        assert advance_sim_clock(Target("sim", sim.url), 0) == start + 3660


def test_a_refused_reply_is_the_http_error_urllib_raises() -> None:
    with SimServer(seed=1) as sim:
        url = f"{sim.url}/_sim/clock"
        for body in (b"not json", b'{"advance_seconds": "x"}', b"[]"):
            with pytest.raises(urllib.error.HTTPError) as old:
                _through_urllib(url, body, 30)
            with pytest.raises(urllib.error.HTTPError) as new:
                post_json(url, body, 30)
            assert (new.value.code, new.value.read()) == (old.value.code, old.value.read())
        assert _now(post_json(url, b'{"advance_seconds": 0}', 30)) > 0  # the next call on a new connection


def test_a_stopped_simulator_is_refused_as_urllib_refuses_and_the_next_one_answers() -> None:
    with SimServer(seed=1) as first:
        url = f"{first.url}/_sim/clock"
        post_json(url, b'{"advance_seconds": 0}', 30)
    with pytest.raises(urllib.error.URLError) as old:
        _through_urllib(url, b'{"advance_seconds": 0}', 30)
    with pytest.raises(urllib.error.URLError) as new:
        post_json(url, b'{"advance_seconds": 0}', 30)  # the kept connection was closed by the stop
    assert type(new.value.reason) is type(old.value.reason)
    with SimServer(seed=1) as second:
        assert _now(post_json(f"{second.url}/_sim/clock", b'{"advance_seconds": 5}', 30)) > 0


def test_each_thread_keeps_its_own_connection() -> None:
    with SimServer(seed=1) as sim:
        url, kept = f"{sim.url}/_sim/clock", []

        def call() -> None:
            post_json(url, b'{"advance_seconds": 1}', 30)
            kept.append(clock_line._HELD.line[1])

        threads = [threading.Thread(target=call) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len({id(c) for c in kept}) == 4


class ServerError(QuietHandler):
    def do_POST(self) -> None:
        self.send_response(500)
        self.send_header("Content-Length", "4")
        self.end_headers()
        self.wfile.write(b"oops")


def test_an_http_1_0_server_error_reads_as_urllibs(monkeypatch: pytest.MonkeyPatch) -> None:
    with local_http_server(ServerError) as base:
        with pytest.raises(urllib.error.HTTPError) as old:
            _through_urllib(f"{base}/_sim/clock", b"{}", 30)
        with pytest.raises(urllib.error.HTTPError) as new:
            post_json(f"{base}/_sim/clock", b"{}", 30)
        assert (new.value.code, new.value.read()) == (old.value.code, old.value.read()) == (500, b"oops")


def test_with_a_proxy_set_the_call_goes_through_urllib(monkeypatch: pytest.MonkeyPatch) -> None:
    through: list[str] = []
    monkeypatch.setattr(clock_line, "_through_urllib", lambda url, body, timeout, *_: through.append(url) or b"{}")
    with SimServer(seed=1) as sim:
        url = f"{sim.url}/_sim/clock"
        assert _now(post_json(url, b'{"advance_seconds": 0}', 30)) > 0 and not through
        monkeypatch.setenv("Http_Proxy", "http://127.0.0.1:9")
        assert post_json(url, b'{"advance_seconds": 0}', 30) == b"{}" and through == [url]
        monkeypatch.delenv("Http_Proxy")
        assert post_json(url.replace("http:", "HTTPS:"), b"{}", 30) == b"{}" and len(through) == 2
