"""The simulator keeps quiet: ``hitflow sim serve`` logs no line per request unless asked
(``--log-requests``), and an embedded one never does."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from flows.sim.service.server import SimServer
from tests.forked_hitflow import ForkServer

ROOT = Path(__file__).resolve().parents[1]


def _hit_it(url: str, times: int = 3) -> None:
    for _ in range(times):
        urllib.request.urlopen(f"{url}/_sim/clock", timeout=5).read()


@pytest.mark.parametrize("verbose", [False, True])
def test_an_embedded_simulator_logs_requests_only_when_verbose(verbose: bool, capfd) -> None:
    with SimServer(seed=1, verbose=verbose) as sim:
        _hit_it(sim.url)
    out, err = capfd.readouterr()
    assert (err.count('"GET /_sim/clock HTTP/1.1" 200') == 3) is verbose and "GET /_sim/clock" not in out


def test_sim_serve_is_quiet_by_default(tmp_path: Path, hitflow_forks: ForkServer) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err_file = tmp_path / "stderr.txt"
    with err_file.open("w") as err:
        # a process of its own, forked from the session's fork server: not a fresh interpreter's ~2 s of imports
        proc = hitflow_forks.popen(["sim", "serve", "--port", str(port), "--speed", "0"], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            assert proc.stdout and proc.stdout.readline().startswith("target: simulator at")
            deadline = time.time() + 20
            while True:
                try:
                    _hit_it(f"http://127.0.0.1:{port}", 5)
                    break
                except OSError:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.1)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    assert "GET /_sim/clock" not in err_file.read_text()
