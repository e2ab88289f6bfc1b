"""``make bench-prefect``: the demo campaign under Prefect and with ``--no-prefect``, alternately.

Each run is ``hitflow run config/vizwiz_captions.toml`` in its own process (the command a person
types, start-up included) with a fresh ledger and output folder; Prefect's home is one folder
kept across runs, as a user's is, so its database is migrated once, before the first timed run.
Runs alternate (Prefect, then not) so a change in the machine's load falls on both; each figure
carries the 1-minute load average. Writes ``bench/results-prefect.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.scale import machine
from flows.core.run.prefect_api import TemporaryServer

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results-prefect.json"
DEMO = ROOT / "config" / "vizwiz_captions.toml"


def one_run(prefect: bool, home: Path, api_url: str | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        args = [sys.executable, "-m", "flows.cli", "run", str(DEMO), "--db", f"{tmp}/h.db", "--out", f"{tmp}/out"]
        env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
               "PREFECT_LOGGING_LEVEL": "WARNING"} | ({"PREFECT_API_URL": api_url} if api_url else {})
        load, cpu_before = os.getloadavg()[0], _children_cpu()
        start = time.perf_counter()
        done = subprocess.run(args + ([] if prefect else ["--no-prefect"]), cwd=ROOT, env=env,
                              capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"hitflow run failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    # CPU of the run and of every process it started and waited for (the temporary Prefect server):
    # on a machine shared with other jobs it moves much less than wall time does
    return {"seconds": round(seconds, 2), "cpu_s": round(_children_cpu() - cpu_before, 2),
            "load_avg_1m": round(load, 2)}


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def measure(pairs: int = 3, reuse_server: bool = False) -> dict[str, Any]:
    """``pairs`` runs each way, alternately; medians of wall and CPU seconds and their ratios.
    ``reuse_server``: the Prefect runs use one server started before them (PREFECT_API_URL), as a
    user who keeps ``prefect server start`` running does; its start is not timed."""
    with tempfile.TemporaryDirectory() as home, _server(Path(home), reuse_server) as api_url:
        one_run(True, Path(home), api_url)  # Prefect's database is created and migrated once, untimed
        runs: dict[str, list[dict[str, Any]]] = {"prefect": [], "no_prefect": []}
        for _ in range(pairs):
            for how in ("prefect", "no_prefect"):
                runs[how].append(one_run(how == "prefect", Path(home), api_url))
                print(how, json.dumps(runs[how][-1]), flush=True)
    medians = {how: statistics.median(r["seconds"] for r in rs) for how, rs in runs.items()}
    cpu = {how: statistics.median(r["cpu_s"] for r in rs) for how, rs in runs.items()}
    return {"runs": runs, "median_s": medians, "ratio": round(medians["prefect"] / medians["no_prefect"], 2),
            "median_cpu_s": cpu, "cpu_ratio": round(cpu["prefect"] / cpu["no_prefect"], 2),
            "load_average_1min": [r["load_avg_1m"] for rs in runs.values() for r in rs], "machine": machine()}


@contextmanager
def _server(home: Path, wanted: bool) -> Iterator[str | None]:
    if not wanted:
        yield None
        return
    os.environ["PREFECT_HOME"] = str(home)  # the server's database lives in the runs' Prefect home
    server = TemporaryServer()
    try:
        yield server.wait_ready(600)
    finally:
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--reuse-server", action="store_true", help="Prefect runs use one server kept running")
    a = ap.parse_args()
    out = measure(a.pairs, a.reuse_server)
    out["reuse_server"] = a.reuse_server
    medians, cpu = out["median_s"], out["median_cpu_s"]
    print(f"demo campaign: Prefect {medians['prefect']:.1f} s, --no-prefect {medians['no_prefect']:.1f} s "
          f"(medians of {a.pairs}): {out['ratio']}x (target <= 1.5x); CPU {cpu['prefect']:.1f} s vs "
          f"{cpu['no_prefect']:.1f} s: {out['cpu_ratio']}x; 1-minute load {min(out['load_average_1min']):g}-"
          f"{max(out['load_average_1min']):g} on {out['machine']['cpus']} cores")
    (RESULTS.with_name("results-prefect-reuse.json") if a.reuse_server else RESULTS).write_text(
        json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
