"""Slow clients against the task server (``make bench-slow-clients``): figures, not tests.

The task server runs in its own process (so its log and memory are its own) at the open-file
limit it is given: 1,024 first, the usual soft limit the issue 28 review attacked at, then this
host's hard limit, as the deploy unit's ``LimitNOFILE`` gives it. This process then keeps 2,000
slow connections going from 40 loopback addresses (127.0.0.0/8 is all local on Linux): half send
a request head a line every 2 s and never finish it (slowloris), half send a whole head for a
200 KB submit and trickle its body a byte every 2 s; each one reconnects half a second after the
server drops it. Meanwhile ``/health`` is asked every half second on a new connection, and real
participants open the task page and submit it, each from an address of its own.

Printed per file limit: /health latency (p50, p99, max) and failures, submits landed / tried,
bytes the server logged, its RSS before and at peak, and how the attack fared.
``run(...)`` returns the same figures (bench/security.py reports them too).
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import tempfile
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


async def probe_health(url: str, stop: asyncio.Event, latencies: list[float], failures: list[str]) -> None:
    transport = httpx.AsyncHTTPTransport(local_address="127.0.3.250")  # an address the attack does not use
    async with httpx.AsyncClient(transport=transport, limits=httpx.Limits(max_keepalive_connections=0)) as http:
        while not stop.is_set():
            start = time.perf_counter()
            try:
                answer = await http.get(f"{url}/health", timeout=5)
                if answer.status_code == 200:
                    latencies.append(time.perf_counter() - start)
                else:
                    failures.append(str(answer.status_code))
            except httpx.HTTPError as exc:
                failures.append(type(exc).__name__)
            await asyncio.sleep(0.5)


async def participant(url: str, campaign: str, n: int) -> bool:
    """One person from an address of their own: open the page, submit it; True when it landed."""
    from tests.test_task_server import answers_for

    transport = httpx.AsyncHTTPTransport(local_address=f"127.0.4.{1 + n % 250}")
    async with httpx.AsyncClient(transport=transport, base_url=url, timeout=20) as http:
        try:
            page = await http.get(f"/task/{campaign}", params={"PROLIFIC_PID": f"person{n}", "STUDY_ID": STUDY,
                                                                "SESSION_ID": f"bench{n}"})
            if page.status_code != 200:
                return False
            done = await http.post(f"/task/{campaign}/submit", data=answers_for(page.text))
            return done.status_code == 303
        except httpx.HTTPError:
            return False


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def attack_and_measure(url: str, campaign: str, size: int, seconds: float, people: int,
                             server_pid: int) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    attack = Attack(host, int(port), campaign, size, addresses=40)
    workers = [asyncio.create_task(attack.one(n)) for n in range(size)]
    await asyncio.sleep(5)  # let the attack ramp up before measuring
    stop, latencies, failures = asyncio.Event(), [], []  # type: ignore[var-annotated]
    probe = asyncio.create_task(probe_health(url, stop, latencies, failures))
    landed, peak_rss, start = 0, rss_mb(server_pid), time.monotonic()
    for n in range(people):
        landed += await participant(url, campaign, n)  # (a local: nothing else changes it meanwhile)
        peak_rss = max(peak_rss, rss_mb(server_pid))
        await asyncio.sleep(max(0.0, start + (n + 1) * seconds / people - time.monotonic()))
    stop.set()
    attack.stop.set()
    await probe
    for worker in workers:
        worker.cancel()
    await asyncio.gather(*workers, return_exceptions=True)
    return {"health_p50_ms": round(percentile(latencies, 0.5) * 1000, 1),
            "health_p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
            "health_max_ms": round(max(latencies, default=float("nan")) * 1000, 1),
            "health_answered": len(latencies), "health_failed": len(failures),
            "submits_landed": landed, "submits_tried": people, "server_peak_rss_mb": round(peak_rss, 1),
            "attack": {"connections": size, "opened": attack.opened, "peak_open_client_side": attack.peak_open,
                       "cut_off_by_server": attack.dropped, "connect_failures": attack.failed}}


def run(connections: int = 2000, seconds: float = 30.0, server_nofile: int = 1024, people: int = 30) -> dict[str, Any]:
    """Start a task server at ``server_nofile`` open files, attack it, and return the figures."""
    raise_own_file_limit()
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
                figures = asyncio.run(attack_and_measure(url, campaign, connections, seconds, people, server.pid))
                server.stdin.close()
                server.wait(timeout=60)
            finally:
                server.kill()
        return {"server_nofile": server_nofile, **figures, "server_rss_before_mb": round(rss_before, 1),
                "log_bytes_during_attack": log_path.stat().st_size - log_before,
                "log_tail": log_path.read_text(errors="replace")[-600:]}


def main() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    raised = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    results = {f"nofile_{n}": run(server_nofile=n) for n in (1024, raised)}
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2], int(sys.argv[3]))
    else:
        main()
