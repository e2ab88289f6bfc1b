"""Slow clients against the task server (``make bench-slow-clients``): figures, not tests.

The task server runs in its own process (so its log and memory are its own) at the open-file
limit it is given: 1,024 first, the usual soft limit the third security round's review attacked at, then this
host's hard limit, as the deploy unit's ``LimitNOFILE`` gives it. A second process (its own
file limit raised to the hard limit) keeps 2,000 slow connections going from 40 loopback
addresses (127.0.0.0/8 is all local on Linux): half send a request head a line every 2 s and
never finish it (slowloris), half send a whole head for a 200 KB submit and trickle its body a
byte every 2 s; each one reconnects half a second after the server drops it.
Meanwhile this process asks ``/health`` every half second on a new connection, and 30
participants open the task page and submit it, each from an address of its own.

Printed per file limit: /health latency (p50, p99, max) and failures, submits landed / tried,
bytes the server logged, its RSS before and at peak, and how the attack fared.
``run(...)`` returns the same figures (for bench/security.py).
"""

from __future__ import annotations

import asyncio
import gc
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

STUDY = "s" * 24
ROOT = Path(__file__).resolve().parents[1]


def raise_own_file_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def serve(folder: str, nofile: int) -> None:
    """The server process: an open Prolific study with 100 units' worth of places, until stdin closes."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    from tests.test_security_server import serve as serve_campaign

    running = serve_campaign(Path(folder), places=500, limit=500)
    s = next(running)
    gc.freeze()  # as `hitflow serve` does (flows/taskserver/task_server_thread.serve_forever)
    print(s["url"], s["cfg"].name, flush=True)
    sys.stdin.read()
    next(running, None)  # past the yield: the server stops


class Attack:
    """``size`` slow connections kept going until ``stop`` is set."""

    def __init__(self, host: str, port: int, campaign: str, size: int, addresses: int):
        self.host, self.port, self.campaign = host, port, campaign
        self.size, self.addresses = size, addresses
        self.stop = asyncio.Event()
        self.open = self.peak_open = self.opened = self.dropped = self.failed = 0

    async def one(self, n: int) -> None:
        source = f"127.0.{1 + n % self.addresses // 250}.{2 + n % self.addresses % 250}"
        while not self.stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port, local_addr=(source, 0))
            except OSError:
                self.failed += 1
                await asyncio.sleep(0.5)
                continue
            self.opened += 1
            self.open += 1
            self.peak_open = max(self.peak_open, self.open)
            try:
                cut_off = await self.trickle(reader, writer, body=n % 2 == 1)
                self.dropped += cut_off  # (not `+= await`: that reads the count before the await)
            except OSError:
                self.dropped += 1
            finally:
                self.open -= 1
                writer.close()
            await asyncio.sleep(0.5)

    async def trickle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, body: bool) -> bool:
        """Send a head (and a body) slowly until stopped; True when the server answered or closed first."""
        if body:
            writer.write(f"POST /task/{self.campaign}/submit HTTP/1.1\r\nHost: tasks\r\n"
                         f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200000\r\n\r\n"
                         .encode())
        else:
            writer.write(b"GET /health HTTP/1.1\r\nHost: tasks\r\n")
        while not self.stop.is_set():
            await writer.drain()
            try:
                await asyncio.wait_for(reader.read(4096), timeout=2)
                return True  # an answer (408, 503) or the connection closed
            except TimeoutError:
                writer.write(b"a" if body else b"X-Slow: 1\r\n")
        return False


async def attack(url: str, campaign: str, size: int, seconds: float) -> dict[str, int]:
    """The attacking process: ``size`` slow connections for ``seconds``, then its counts."""
    host, port = url.removeprefix("http://").split(":")
    crowd = Attack(host, int(port), campaign, size, addresses=40)
    workers = [asyncio.create_task(crowd.one(n)) for n in range(size)]
    await asyncio.sleep(seconds)
    crowd.stop.set()
    for worker in workers:
        worker.cancel()
    await asyncio.gather(*workers, return_exceptions=True)
    return {"connections": size, "addresses": crowd.addresses, "opened": crowd.opened,
            "peak_open_client_side": crowd.peak_open, "cut_off_by_server": crowd.dropped,
            "connect_failures": crowd.failed}


def probe_health(url: str, stop: threading.Event, latencies: list[float], failures: list[str]) -> None:
    """/health every half second, each time on a new connection from an address the attack does not use."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.3.250"), timeout=5,
                      headers={"Connection": "close"}) as http:
        while not stop.wait(0.5):
            start = time.perf_counter()
            try:
                answer = http.get(f"{url}/health")
                (latencies.append(time.perf_counter() - start) if answer.status_code == 200
                 else failures.append(str(answer.status_code)))
            except httpx.HTTPError as exc:
                failures.append(type(exc).__name__)


def participant(url: str, campaign: str, n: int) -> bool:
    """One person from an address of their own: open the page, submit it; True when it landed."""
    from tests.test_task_server import answers_for

    with httpx.Client(transport=httpx.HTTPTransport(local_address=f"127.0.4.{1 + n % 250}"), base_url=url,
                      timeout=20) as http:
        try:
            page = http.get(f"/task/{campaign}", params={"PROLIFIC_PID": f"person{n}", "STUDY_ID": STUDY,
                                                          "SESSION_ID": f"bench{n}"})
            if page.status_code != 200:
                return False
            return http.post(f"/task/{campaign}/submit", data=answers_for(page.text)).status_code == 303
        except httpx.HTTPError:
            return False


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def measure(url: str, campaign: str, seconds: float, people: int, server_pid: int) -> dict[str, Any]:
    """/health latency and participants' submits for ``seconds`` (the attack runs in its own process)."""
    stop, latencies, failures = threading.Event(), [], []  # type: ignore[var-annotated]
    probe = threading.Thread(target=probe_health, args=(url, stop, latencies, failures))
    probe.start()
    landed, peak_rss, start = 0, rss_mb(server_pid), time.monotonic()
    for n in range(people):
        landed += participant(url, campaign, n)
        peak_rss = max(peak_rss, rss_mb(server_pid))
        time.sleep(max(0.0, start + (n + 1) * seconds / people - time.monotonic()))
    stop.set()
    probe.join()
    return {"health_p50_ms": round(percentile(latencies, 0.5) * 1000, 1),
            "health_p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
            "health_max_ms": round(max(latencies, default=float("nan")) * 1000, 1),
            "health_answered": len(latencies), "health_failed": len(failures),
            "submits_landed": landed, "submits_tried": people, "server_peak_rss_mb": round(peak_rss, 1)}


def run(connections: int = 2000, seconds: float = 30.0, server_nofile: int = 1024, people: int = 30) -> dict[str, Any]:
    """Start a task server at ``server_nofile`` open files, attack it from another process with
    ``connections`` slow connections, measure from this one, and return the figures."""
    ramp = 8.0  # the attack's connections open before measuring starts
    with tempfile.TemporaryDirectory() as folder:
        log_path = Path(folder) / "server.log"
        with log_path.open("wb") as log:
            server = subprocess.Popen([sys.executable, "-m", "bench.slow_clients", "--serve", folder,
                                       str(server_nofile)], cwd=ROOT, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=log, text=True)
            try:
                assert server.stdout is not None and server.stdin is not None
                url, campaign = server.stdout.readline().split()
                rss_before, log_before = rss_mb(server.pid), log_path.stat().st_size
                attacker = subprocess.Popen([sys.executable, "-m", "bench.slow_clients", "--attack", url, campaign,
                                             str(connections), str(ramp + seconds)], cwd=ROOT,
                                            stdout=subprocess.PIPE, text=True)
                time.sleep(ramp)
                figures = measure(url, campaign, seconds, people, server.pid)
                figures["attack"] = json.loads(attacker.communicate(timeout=120)[0])
                server.stdin.close()
                server.wait(timeout=60)
            finally:
                server.kill()
        return {"server_nofile": server_nofile, **figures, "server_rss_before_mb": round(rss_before, 1),
                "log_bytes_during_attack": log_path.stat().st_size - log_before,
                "log_tail": log_path.read_text(errors="replace")[-600:]}


def raised_file_limit() -> int:
    """This host's hard open-file limit (at most 65,536), as the deploy unit's LimitNOFILE gives the server."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)


def main() -> None:
    results = {f"nofile_{n}": run(server_nofile=n) for n in (1024, raised_file_limit())}
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1:2] == ["--attack"]:
        raise_own_file_limit()
        print(json.dumps(asyncio.run(attack(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])))))
    else:
        main()
