"""Security benchmarks (``make bench-security``): figures, not tests.

1. spell-correcting one 210 KB caption (before the fix: 23.6 s, quadratic);
2. memory while a 600 MB body is streamed at the task server (before: buffered, 250 MB ->
   1.44 GB RSS); the server runs in this process, so this process's RSS is the server's;
3. 20 concurrent identical submits x 10 rounds: HTTP statuses and time per round;
4. hostile inputs per surface: inputs tried, tracebacks, HTTP 500s, secrets leaked and
   inputs wrongly accepted, for the review page, the Prolific adapter's reading of replies, the
   simulator's control routes, config paths and the import of foreign pages
   (bench/hostile_surfaces.py), printed as a table;
5. the slow-client figure: 2,000 slow connections for 20 s against a task server at the raised
   open-file limit the deploy unit gives it (bench/slow_clients.run, a shorter run than
   ``make bench-slow-clients``): /health p50/p99, submits landed / tried, bytes logged;
6. what a hostile or large input costs in CPU (bench/input_bounds.py): a page's pattern against 10,000-character
   answers, ``hitflow aggregate`` on 10,000 fields, a dry run over 300,000 items.
"""

from __future__ import annotations

import json
import socket
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from postprocess.spellcheck import correct_caption
from tests.test_security_server import serve
from tests.test_spellcheck_linear import make_corrector, words
from tests.test_task_server import answers_for, visit

SLOW_SECONDS = 20.0  # measured seconds of the slow-client attack (after its 8 s ramp)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_spellcheck() -> dict[str, float]:
    text = words(52_000)
    correct = make_corrector()
    start = time.perf_counter()
    correct_caption(text, set(), correct)
    return {"caption_kb": round(len(text.encode()) / 1024, 1), "seconds": round(time.perf_counter() - start, 3)}


def bench_big_body(s: dict[str, Any]) -> dict[str, float]:
    host, port = s["url"].removeprefix("http://").split(":")
    before, peak, sent = rss_mb(), 0.0, 0
    chunk = b"x" * (1 << 20)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(f"POST /task/{s['cfg'].name}/submit HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                     .encode())
        try:
            while sent < 600 << 20:
                sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                sent += len(chunk)
                peak = max(peak, rss_mb())
        except OSError:
            pass  # refused and closed
        sock.settimeout(10)
        head = sock.recv(64)
    # uvicorn discards what follows a refused body without keeping it: the figure that matters is RSS
    return {"mb_sent": round(sent / (1 << 20), 1), "answer": head.split(b"\r\n")[0].decode(),
            "rss_growth_mb": round(peak - before, 1)}


def bench_identical_submits(s: dict[str, Any], rounds: int = 10) -> dict[str, Any]:
    statuses: dict[int, int] = {}
    times = []
    url = f"{s['url']}/task/{s['cfg'].name}/submit"
    for r in range(rounds):
        values = answers_for(visit(s, f"b{r}", f"bench{r}").text)
        start = time.perf_counter()
        with ThreadPoolExecutor(20) as pool:
            for code in pool.map(lambda v: httpx.post(url, data=v, timeout=60).status_code, [values] * 20):
                statuses[code] = statuses.get(code, 0) + 1
        times.append(time.perf_counter() - start)
    stored = s["store"].table("assignments").count
    return {"statuses": statuses, "stored": stored, "median_round_s": round(sorted(times)[len(times) // 2], 3)}


def main() -> None:
    results: dict[str, Any] = {"spellcheck_210kb": bench_spellcheck()}
    with tempfile.TemporaryDirectory() as tmp:
        gen = serve(Path(tmp), places=10)
        s = next(gen)
        results["streamed_600mb_body"] = bench_big_body(s)
        results["identical_submits_20x10"] = bench_identical_submits(s)
        gen.close()
    from bench.hostile_surfaces import surface_counts

    results["hostile_surfaces"] = surface_counts()
    from bench.slow_clients import raised_file_limit, run

    results["slow_clients"] = {k: v for k, v in run(connections=2000, seconds=SLOW_SECONDS,
                                                     server_nofile=raised_file_limit()).items() if k != "log_tail"}
    from bench.input_bounds import bench_aggregate_fields, bench_dry_run, bench_patterns

    results["input_bounds"] = {"pattern_checks": bench_patterns(), "aggregate_10000_fields": bench_aggregate_fields(),
                               "dry_run_300000_items": bench_dry_run()}
    print(json.dumps(results, indent=2))
    print(surface_table(results["hostile_surfaces"]))
    print(slow_client_line(results["slow_clients"]))


def surface_table(counts: dict[str, dict[str, int]]) -> str:
    """One row per hostile surface: inputs tried and every count that should be 0."""
    keys = ("tried", "tracebacks", "http_500", "secrets_leaked", "wrongly_accepted")
    rows = [f"{'surface':<26}" + "".join(f"{k:>18}" for k in keys)]
    rows += [f"{name:<26}" + "".join(f"{c[k]:>18}" for k in keys) for name, c in counts.items()]
    return "\n".join(rows)


def slow_client_line(f: dict[str, Any]) -> str:
    return (f"slow clients: {f['attack']['connections']} connections for {SLOW_SECONDS:g} s "
            f"at {f['server_nofile']} open files: "
            f"/health p50 {f['health_p50_ms']} ms, p99 {f['health_p99_ms']} ms ({f['health_failed']} failed), "
            f"submits landed {f['submits_landed']}/{f['submits_tried']}, "
            f"log bytes {f['log_bytes_during_attack']}")


if __name__ == "__main__":
    main()
