"""One seed, one dataset: ``make bench-determinism``.

Runs ``hitflow run CONFIG --no-prefect --limit N`` twice with the same seed, each on a fresh
ledger and output folder (side by side, as two processes), and compares the outputs byte for byte.
The two runs' folders are at the same depth under their own parents and named alike, so a path
printed in the report names the same folder (``a/`` or ``b/``) and is normalised before comparing
the report; every other file is compared as written. Writes ``bench/results-determinism.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
COMPARED = ("dataset.csv", "dataset.json", "dataset.raw.csv", "flags.csv", "blocked_workers.csv",
            "blocked_history.csv", "answers.csv", "workers.csv", "sim_workers.json", "report.html")


def run_twice(config: Path, limit: int, work: Path, extra: tuple[str, ...] = ()) -> dict[str, float]:
    """Start both runs, wait for both; real seconds each."""
    started, procs = time.monotonic(), {}
    for name in ("a", "b"):
        (work / name).mkdir(parents=True)
        log = (work / f"{name}.log").open("w")
        procs[name] = subprocess.Popen(
            [str(ROOT / ".venv" / "bin" / "hitflow"), "run", str(config), "--no-prefect", "--limit", str(limit),
             "--db", str(work / name / "h.db"), "--out", str(work / name / "out"), *extra],
            stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    seconds = {}
    for name, proc in procs.items():
        if proc.wait() != 0:
            sys.exit(f"run {name} failed: see {work / f'{name}.log'}")
        seconds[name] = round(time.monotonic() - started, 1)
    return seconds


def compare(work: Path, campaign: str) -> dict[str, Any]:
    """Per output file: identical or not, its SHA-256 and (CSV) how many lines differ."""
    found: dict[str, Any] = {}
    for name in COMPARED:
        a, b = (work / side / "out" / campaign / name for side in ("a", "b"))
        if not a.exists() and not b.exists():
            continue
        da, db = (p.read_bytes() if p.exists() else b"" for p in (a, b))
        if name == "report.html":
            da, db = da.replace(str(work / "a").encode(), b"RUN"), db.replace(str(work / "b").encode(), b"RUN")
        lines_a, lines_b = da.splitlines(), db.splitlines()
        differing = sum(x != y for x, y in zip(lines_a, lines_b, strict=False)) + abs(len(lines_a) - len(lines_b))
        found[name] = {"identical": da == db, "sha256": hashlib.sha256(da).hexdigest(), "lines": len(lines_a),
                       "lines_differing": differing}
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="config/vizwiz_full_scale.toml")
    parser.add_argument("--limit", type=int, default=4000)
    parser.add_argument("--platform", default="mturk")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results-determinism.json"))
    a = parser.parse_args(argv)
    config = (ROOT / a.config).resolve()
    campaign = _campaign_name(config)
    with tempfile.TemporaryDirectory(prefix="hitflow-determinism-") as tmp:
        seconds = run_twice(config, a.limit, Path(tmp), ("--platform", a.platform))
        files = compare(Path(tmp), campaign)
    revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
    result = {"revision": revision.strip(), "config": a.config, "limit": a.limit, "platform": a.platform,
              "mode": "--no-prefect",
              "seconds": seconds, "all_identical": all(f["identical"] for f in files.values()), "files": files,
              "load": os.getloadavg(), "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    Path(a.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for name, f in files.items():
        print(f"{name:22} {'identical' if f['identical'] else 'DIFFERS'}  {f['lines']} lines, "
              f"{f['lines_differing']} differ")
    print(f"two runs of {a.config} --limit {a.limit} ({a.platform}): "
          f"{'byte-identical' if result['all_identical'] else 'NOT identical'}; {seconds} s")
    return 0 if result["all_identical"] else 1


def _campaign_name(config: Path) -> str:
    import tomllib

    return str(tomllib.loads(config.read_text(encoding="utf-8"))["campaign"]["name"])


if __name__ == "__main__":
    sys.exit(main())
