"""``hitflow qc``'s peak memory and CPU on 200,000 captions (``make bench-qc-memory``).

Writes the 200,000 captions of bench/qc_load.py (40,000 images x 5 workers, 22.8 MB) to a file and runs
``hitflow qc FILE --out FLAGS`` under ``/usr/bin/time -v`` in a process of its own, start-up included:
peak RSS (``Maximum resident set size``) and CPU (user + system). ``--other TREE`` runs the same command
with that checkout's code first on ``PYTHONPATH`` (e.g. ``git worktree add /tmp/base <commit>``),
alternating with this tree's, so both are measured side by side on the same host and load; the two
flag files must be byte-identical. Target: at most 300 MB peak and 3 s of CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HITFLOW = Path(sys.executable).with_name("hitflow")


def write_captions(path: Path, n: int = 200_000) -> Path:
    from bench.qc_load import load_batch

    load_batch(n).drop(columns="is_precanned").to_csv(path, index=False)
    return path


def timed_qc(captions: Path, flags: Path, tree: Path | None) -> dict[str, float]:
    """One ``hitflow qc`` under /usr/bin/time -v: peak RSS in MB, CPU and wall in seconds."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    done = subprocess.run(["/usr/bin/time", "-v", str(HITFLOW), "qc", str(captions), "--out", str(flags)],
                          capture_output=True, text=True, env=env, cwd=tree or ROOT, check=True)

    def field(name: str) -> str:
        found = re.search(rf"{re.escape(name)}: (\S+)", done.stderr)
        assert found is not None, done.stderr[-500:]
        return found.group(1)

    wall = [float(p) for p in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")]
    return {"peak_mb": round(int(field("Maximum resident set size (kbytes)")) / 1024, 1),
            "cpu_s": round(float(field("User time (seconds)")) + float(field("System time (seconds)")), 2),
            "wall_s": round(wall[-1] + 60 * sum(wall[:-1]), 2)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--other", type=Path, help="another checkout to measure alternately (its code on PYTHONPATH)")
    parser.add_argument("--captions", type=Path, help="write the 200,000 captions here and keep them")
    a = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        captions = write_captions(a.captions or Path(tmp) / "captions.csv")
        trees = {"this": None, **({"other": a.other.resolve()} if a.other else {})}
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(a.runs):
            for name, tree in trees.items():
                runs[name].append(timed_qc(captions, Path(tmp) / f"flags-{name}.csv", tree))
        same = None if a.other is None else (Path(tmp) / "flags-this.csv").read_bytes() == (
            Path(tmp) / "flags-other.csv").read_bytes()
    summary = {name: {key: statistics.median(r[key] for r in rs) for key in rs[0]} | {"runs": rs}
               for name, rs in runs.items()}
    result = {"captions": 200_000, "load": os.getloadavg()[0], "same_flags": same, **summary}
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
