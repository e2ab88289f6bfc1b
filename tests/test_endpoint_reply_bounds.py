"""Every reply from an endpoint or a simulator is read within a size cap and one deadline for the whole reply
(flows/platforms/clock_line.py for the simulator's routes and a task server's health, bounded_send in
flows/platforms/mturk/adapter.py for boto3). A hostile endpoint here sends a few MB past the cap, a body a
byte at a time, or a head a byte at a time: before, `/_sim/health` of 600 MB took 3.8-5.1 GB, `status` read a
600 MB clock in 1.34 GB, and a trickled reply never ended, since each read had its own timeout."""

from __future__ import annotations

import contextlib
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from flows.core.errors import PlatformError
from flows.core.run.run_context import Target
from flows.platforms import sim_probe
from flows.platforms.mturk import adapter as mturk
from flows.platforms.retry_policy import RetryPolicy
from flows.platforms.targets import advance_sim_clock, sim_ground_truth, sim_item_truth
from tests.forked_hitflow import ForkServer
from tests.local_http import QuietHandler, local_http_server
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
MB = 2**20


class Hostile(QuietHandler):
    """By the path's first part: ``/bigN/...``: N MB with no length, then closed; ``/drip/...``: a head,
    then a byte every 0.2 s; ``/head/...``: the head itself a byte every 0.2 s."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._hostile()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._hostile()

    def _hostile(self) -> None:
        mode = self.path.strip("/").split("/")[0]
        if mode.startswith("big"):
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
            chunk = b" " * 65536
            for _ in range(int(mode[3:]) * 16):
                self.wfile.write(chunk)
            self.close_connection = True
            return
        if mode == "cut":  # a body cut short
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{}")
            self.close_connection = True
            return
        if mode in ("garbage", "headers"):  # not HTTP; more headers than http.client reads
            self.wfile.write(b"SSH-2.0-x\r\n\r\n" if mode == "garbage" else
                             b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 200 + b"\r\n{}")
            self.close_connection = True
            return
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        if mode == "drip":
            self.wfile.write(head)
        for _ in range(150):  # 30 s at most, then the server lets go
            self.wfile.write(head[:1] if mode == "head" else b" ")
            self.wfile.flush()
            time.sleep(0.2)
        self.close_connection = True


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    with local_http_server(Hostile) as base:
        yield base


def _within(seconds: float, call: Callable[[], Any]) -> tuple[Any, float]:
    """``call()``'s outcome (a value or the exception raised) and its time; fails past ``seconds``."""
    outcome: list[Any] = []
    started = time.monotonic()

    def attempt() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"still reading the reply after {seconds} s"
    return outcome[0], time.monotonic() - started


def _peak_mb(call: Callable[[], Any]) -> float:
    tracemalloc.start()
    with contextlib.suppress(Exception):
        call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / MB


def test_a_health_or_clock_reply_past_its_cap_is_not_read_whole(hostile: str) -> None:
    assert _peak_mb(lambda: sim_probe.is_simulator(f"{hostile}/big6")) < 3  # cap 1 MiB; 6 MB sent
    assert _peak_mb(lambda: sim_probe.served_sim_now(f"{hostile}/big6")) < 3  # `hitflow status`'s clock
    with pytest.raises(PlatformError, match=r"reply to POST /big6/_sim/clock is over 1 MiB"):
        advance_sim_clock(Target("sim", f"{hostile}/big6"), 60)
    with pytest.raises(PlatformError, match="over 64 MiB"):
        sim_item_truth(Target("sim", f"{hostile}/big70"))


def test_a_reply_that_is_not_http_is_an_error_of_the_call_not_a_traceback(hostile: str) -> None:
    for mode in ("garbage", "headers"):
        assert sim_probe.is_simulator(f"{hostile}/{mode}") is False
        assert sim_probe.served_sim_now(f"{hostile}/{mode}") is None
        with pytest.raises(PlatformError, match="the simulator's GET /_sim/workers failed"):
            sim_ground_truth(Target("sim", f"{hostile}/{mode}"))
        with pytest.raises(PlatformError, match="the simulator's clock call failed"):
            advance_sim_clock(Target("sim", f"{hostile}/{mode}"), 0)


@pytest.mark.parametrize("mode", ["drip", "head"])
def test_a_trickled_reply_ends_at_the_calls_deadline(hostile: str, mode: str) -> None:
    found, took = _within(9, lambda: sim_probe.is_simulator(f"{hostile}/{mode}"))
    assert found is False and took < 7  # 5 s for the whole health check
    now, took = _within(6, lambda: sim_probe.served_sim_now(f"{hostile}/{mode}"))
    assert now is None and took < 4  # 2 s for `status`'s look at a served clock


def test_an_mturk_endpoints_reply_is_capped_and_bounded_in_time(hostile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setattr(mturk, "REPLY_DEADLINE_S", 2.0, raising=False)
    once = RetryPolicy(attempts=1)
    refused, _ = _within(30, lambda: mturk.balance(mturk.make_client(Target("mturk", f"{hostile}/big70"), once)))
    assert isinstance(refused, PlatformError) and "GetAccountBalance is over 64 MiB" in str(refused)
    for mode in ("garbage", "cut"):  # one line each, not "unexpected ProtocolError"
        with pytest.raises(PlatformError, match="get_account_balance failed"):
            mturk.balance(mturk.make_client(Target("mturk", f"{hostile}/{mode}"), once))
    for slow in (mturk.make_client(Target("mturk", f"{hostile}/{mode}"), once) for mode in ("drip", "head")):
        refused, took = _within(8, lambda: mturk.balance(slow))  # noqa: B023 (called before the next)
        assert isinstance(refused, PlatformError) and took < 5, refused


def test_hitflow_run_against_a_trickling_health_check_stops_in_one_line(hostile: str, tmp_path: Path,
                                                                        hitflow_forks: ForkServer) -> None:
    config, started = small_vizwiz(tmp_path, items=5), time.monotonic()
    # a process of its own forked from the session's server (tests/forked_hitflow.py), not an interpreter started
    done = hitflow_forks.run(["run", str(config), "--endpoint-url", f"{hostile}/drip", "--db", str(tmp_path / "l.db"),
                              "--out", str(tmp_path / "out"), "--no-prefect"], text=True, timeout=60, cwd=tmp_path,
                             env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 2 and "does not answer as a hitflow simulator" in done.stderr, done.stderr[-500:]
    assert "Traceback" not in done.stderr and time.monotonic() - started < 25  # the drip lasts 30 s
