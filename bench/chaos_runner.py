"""Where a chaos bench's simulator and its runs that are not killed live: processes of their own
(``make bench-chaos``, ``make bench-chaos-adaptive``), or this process (the tests: bench.chaos's
``sim=sim_thread``, ``here=True``), which saves a Python's start (~0.8-0.9 s of CPU, mostly imports) for each.
The runs a bench kills are always processes of their own."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HITFLOW = [sys.executable, "-m", "flows.cli"]
ENV = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
SIM_START = "2026-01-05T00:00:00Z"  # every simulator's clock starts here: the same run, the same times


@contextmanager
def sim_process(seed: int = 1, *faults: str) -> Iterator[str]:
    """``hitflow sim serve`` on a free port; yields its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([*HITFLOW, "sim", "serve", "--port", str(port), "--seed", str(seed), "--speed", "0",
                             "--start", SIM_START, *faults],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"{url}/_sim/clock", timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


SimFactory = Callable[..., contextlib.AbstractContextManager[str]]
# How a run that is not run in this process starts: ``hitflow`` ARGS (after HITFLOW) as a process, its output
# dropped, ``preamble`` (Python: a kill hook) run before the command; something ``subprocess.Popen`` gives
# (pid, poll, wait, send_signal, returncode).
Launch = Callable[..., Any]
THEN_HITFLOW = ("\nimport sys\nfrom flows.cli.main import main\nsys.argv = ['hitflow', *sys.argv[1:]]\n"
                "sys.exit(main())\n")


def new_process(args: list[str], preamble: str = "") -> subprocess.Popen[bytes]:
    """``hitflow`` ARGS as a Python started for it (the benches'; the tests fork theirs from a server that
    imported the project once: tests/forked_hitflow.py)."""
    command = [sys.executable, "-c", preamble + THEN_HITFLOW] if preamble else HITFLOW
    return subprocess.Popen([*command, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV,
                            cwd=ROOT)


@contextmanager
def sim_thread(seed: int = 1, *flags: str) -> Iterator[str]:
    """``sim_process``'s simulator (the same ``hitflow sim serve`` options, read by its own parser) on a
    thread of this process; yields its URL. It outlives the runs killed beside it as the process does,
    without a Python of its own to start (~0.8 s of CPU a simulator, mostly imports; the tests' choice)."""
    from flows.cli.parser import _parser
    from flows.sim.service.pacing import Pacing
    from flows.sim.service.server import SimServer

    a = _parser().parse_args(["sim", "serve", "--port", "0", "--seed", str(seed), "--speed", "0",
                              "--start", SIM_START, *flags])
    # built as flows/cli/main.py's cmd_sim_serve builds it
    sim = SimServer(a.host, a.port, a.seed, Path(a.crowd) if a.crowd else None, speed=a.speed,
                    state=Path(a.state) if a.state else None, arrival_mean_s=a.arrival_mean_s, start=a.start)
    faults = sim.market.faults
    faults.throttle_rate, faults.fault_rate, faults.lose_reply_rate = a.throttle_rate, a.fault_rate, a.lose_reply_rate
    sim.httpd.pacing = Pacing(a.latency_ms, a.rate_limit, a.burst)
    with sim:
        yield sim.url


def run_until_clean(args: list[str], folder: Path, attempts: int, timeout_s: float,
                    launch: Launch | None = None) -> int:
    """Run (resume) ``hitflow run`` with ``args`` until it exits 0; the number of runs it took (``launch``:
    each run as it starts them, its output dropped)."""
    for n in range(1, attempts + 1):
        if launch is not None:
            proc = launch(args[len(HITFLOW):])
            if proc.wait(timeout_s) == 0:
                return n
            continue
        done = subprocess.run(args, capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=timeout_s)
        if done.returncode == 0:
            return n
    said = f": {done.stderr.strip()[-600:]}" if launch is None else f" (exit {proc.returncode})"
    raise RuntimeError(f"{folder}: no clean finish in {attempts} runs{said}")


def run_here(args: list[str], folder: Path, attempts: int) -> int:
    """``run_until_clean`` through the CLI's main() in this process (the tests' runs that are not killed: the
    same command, without a Python to start, ~0.9 s of CPU each); the number of runs it took."""
    from flows.cli.main import main

    for n in range(1, attempts + 1):
        code = main(args[len(HITFLOW):])
        if code == 0:
            return n
    raise RuntimeError(f"{folder}: no clean finish in {attempts} runs (exit {code})")
