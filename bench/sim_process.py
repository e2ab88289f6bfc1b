"""A simulator in its own process for ``make bench-scale``: ``hitflow sim serve`` on a free port.

The simulator stands in for MTurk: its marketplace (every HIT's page, every assignment's answer)
grows with the campaign by design, as MTurk's does. Run in the campaign's own process, as the
embedded simulator is, it hid hitflow's memory behind its own (at 330,000 images its pages alone
are over a gigabyte), so the bench runs it beside the campaign and reports both peaks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from flows.core.run.prefect_api import free_port


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (VmHWM in /proc/PID/status), in MiB; 0 when unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU seconds so far (fields 14 and 15 of /proc/PID/stat); 0 when unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 1)


def health(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/_sim/health", timeout=10) as resp:
        return json.loads(resp.read())  # type: ignore[no-any-return]


class SimProcess:
    """``url`` while running; ``stop()`` returns the simulator's peak RSS and its call count."""

    def __init__(self, proc: subprocess.Popen[bytes], url: str):
        self.proc, self.url = proc, url

    def stop(self) -> dict[str, Any]:
        """Figures first, then Ctrl-C (it closes its state file); a simulator slow to stop is killed:
        its figures are taken, and a 39,181-image run's lost its results waiting on it under load."""
        calls = health(self.url)["calls"]
        peak, cpu = peak_rss_mb(self.proc.pid), cpu_seconds(self.proc.pid)
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=600)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return {"sim_peak_rss_mb": peak, "sim_cpu_s": cpu, "platform_calls": calls}


def _start(command: list[str], err: IO[bytes]) -> subprocess.Popen[bytes]:
    """The simulator's process, which Ctrl-C stops. A bench started in the background (``nohup ... &``)
    ignores SIGINT, which a child inherits: its simulator ignored the stop and was killed 10 minutes
    later. A handler, unlike an ignored signal, is not inherited: the child starts with the default."""
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def sim_process(state: Path, seed: int, crowd: Path) -> Iterator[SimProcess]:
    """``hitflow sim serve`` with its clock moved only by the run (``--speed 0``), state in ``state``."""
    port = free_port()
    log = state.with_suffix(".log")  # a file, not a pipe nobody reads: a chatty simulator would block on a full one
    with log.open("wb") as err:
        proc = _start([sys.executable, "-m", "flows.cli", "sim", "serve", "--port", str(port), "--state", str(state),
                       "--seed", str(seed), "--crowd", str(crowd), "--speed", "0"], err)
    url = f"http://127.0.0.1:{port}"
    sim = SimProcess(proc, url)
    try:
        for _ in range(600):
            if proc.poll() is not None:
                raise RuntimeError(f"the simulator stopped: {log.read_text(errors='replace')[-300:]}")
            try:
                health(url)
                break
            except OSError:
                time.sleep(0.1)
        yield sim
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
