"""``make bench-as-run``: ``hitflow run config/vizwiz_full_scale.toml --no-prefect`` as a user runs it
(the embedded simulator, in hitflow's own process), under ``/usr/bin/time -v``.

``bench/scale.py`` runs the simulator in a process of its own and so counts hitflow without it;
a user's run holds both. Here the command runs as typed, and a sampler reads the child's VmRSS from
``/proc/PID/status`` every ``--every`` seconds beside the last progress line it printed, so the
peak comes with the step it fell in. The peak reported is ``/usr/bin/time``'s "Maximum resident
set size" (ru_maxrss, KiB, shown in MiB); the samples only say where it was.
Writes ``as_run_embedded`` in ``bench/results-scale.json`` (``--save``); nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results-scale.json"
CONFIG = ROOT / "config" / "vizwiz_full_scale.toml"
STEP = re.compile(r"(batch \d+|outputs|plan|qualification|report|dataset|spell)", re.I)


def child_rss_mb(pid: int) -> float:
    """The resident set of ``pid``'s newest child (``/usr/bin/time``'s hitflow), in MiB; 0 when gone."""
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        status = Path(f"/proc/{kids[-1]}/status").read_text() if kids else ""
    except OSError:
        return 0.0
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(found.group(1)) / 1024 if found else 0.0


def run_as_user(config: Path, every: float, extra: list[str], hitflow: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["/usr/bin/time", "-v", str(hitflow), "run", str(config), "--no-prefect",
               "--db", f"{tmp}/hitflow.db", "--out", f"{tmp}/out", *extra]
        env = {**os.environ, "HITFLOW_STAGING": f"{tmp}/staging"}
        load_start, start = os.getloadavg()[0], time.perf_counter()
        child = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        step = ["start"]
        samples: list[tuple[float, float, str]] = []
        done = threading.Event()

        def sample() -> None:
            while not done.wait(every):
                samples.append((round(time.perf_counter() - start, 1), round(child_rss_mb(child.pid), 1), step[0]))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        assert child.stdout is not None and child.stderr is not None
        stdout = child.stdout
        out = threading.Thread(target=_follow, args=(stdout, step), daemon=True)
        out.start()
        err = child.stderr.read()
        code = child.wait()
        done.set()
        sampler.join()
        out.join()
    return summary(cmd, code, err, samples, load_start, time.perf_counter() - start)


def _follow(stdout: Any, step: list[str]) -> None:
    """Keeps ``step[0]`` the last progress line the run printed."""
    for line in stdout:
        if line.strip():
            step[0] = line.strip()[:80]


def summary(cmd: list[str], code: int, err: str, samples: list[tuple[float, float, str]], load_start: float,
            wall: float) -> dict[str, Any]:
    def field(name: str) -> float:
        found = re.search(rf"{re.escape(name)}: ([\d.:]+)", err)
        return float(found.group(1)) if found and ":" not in found.group(1) else 0.0

    peak = max(samples, key=lambda s: s[1]) if samples else (0.0, 0.0, "")
    by_step: dict[str, float] = {}
    for _, mb, step in samples:
        found = STEP.search(step)
        key = found.group(1).lower() if found else step[:40]
        by_step[key] = max(by_step.get(key, 0.0), mb)
    return {"command": " ".join(cmd[2:]), "exit": code, "peak_rss_mb": round(field("Maximum resident set size (kbytes)")
                                                                              / 1024, 1),
            "wall_s": round(wall, 1), "user_s": field("User time (seconds)"), "sys_s": field("System time (seconds)"),
            "sampled_peak_mb": peak[1], "sampled_peak_at_s": peak[0], "sampled_peak_after": peak[2],
            "sampled_peak_by_step_mb": by_step, "load_avg_1m_start": round(load_start, 2),
            "load_avg_1m_end": round(os.getloadavg()[0], 2),
            "timeline_mb": [[t, mb] for t, mb, _ in samples[::max(1, len(samples) // 60)]],
            "measured": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "stderr_tail": err.strip().splitlines()[-3:]
            if code else []}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", type=Path, default=CONFIG)
    ap.add_argument("--every", type=float, default=0.25, help="seconds between RSS samples")
    ap.add_argument("--commit", default="", help="what was measured (recorded with the figures)")
    ap.add_argument("--hitflow", type=Path, default=ROOT / ".venv" / "bin" / "hitflow", help="the command to run")
    ap.add_argument("--save", action="store_true", help="add the run to as_run_embedded in results-scale.json")
    ap.add_argument("extra", nargs="*", help="more hitflow run options (after --)")
    a = ap.parse_args()
    result = {"commit": a.commit, **run_as_user(a.config, a.every, a.extra, a.hitflow)}
    print(json.dumps(result, indent=1))
    if a.save:
        results = json.loads(RESULTS.read_text())
        results.setdefault("as_run_embedded", {}).setdefault("runs", []).append(result)
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
