"""CPU time of the `hitflow` commands people wait on (issue 57 point 5): ``--help``, ``status`` on a
small campaign's ledger and ``aggregate`` on a 12-row file, each a fresh process as a user starts it,
against the 0.5 s target. CPU (user + system of the child, from ``os.wait4``), not wall time, so a
busy machine changes the figure little. Run: ``make bench-cli-startup`` (``python -m bench.cli_startup``).
The ledger is made first by a 10-image campaign on the embedded simulator (not timed)."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HITFLOW = [sys.executable, "-m", "flows.cli"]
TARGET_S = 0.5


def cpu_of(args: list[str]) -> float:
    """User + system CPU seconds of one run of ``args`` (its children included once it has waited for them)."""
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[2:])} failed ({proc.returncode}): {proc.stderr.read().decode()[-400:]}")
    return usage.ru_utime + usage.ru_stime


def twelve_rows(folder: Path) -> Path:
    """Four items, three workers each: the 12-row file of the issue's `aggregate`."""
    path = folder / "labels.csv"
    rows = [f"i{item},w{worker},{'pos' if (item + worker) % 3 else 'neg'}" for item in range(4) for worker in range(3)]
    path.write_text("item_id,worker_id,label\n" + "\n".join(rows) + "\n")
    return path


def commands(folder: Path) -> dict[str, list[str]]:
    db, out = folder / "h.db", folder / "out"
    subprocess.run([*HITFLOW, "run", "config/vizwiz_captions.toml", "--no-prefect", "--limit", "10", "--db", str(db),
                    "--out", str(out)], cwd=ROOT, check=True, capture_output=True)
    return {"hitflow --help": [*HITFLOW, "--help"],
            "hitflow status": [*HITFLOW, "status", "--db", str(db)],
            "hitflow aggregate (12 rows)": [*HITFLOW, "aggregate", str(twelve_rows(folder)), "--out",
                                            str(folder / "agg" / "answers.csv")]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (the median is shown)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hitflow-cli-startup-") as tmp:
        over = 0
        for name, command in commands(Path(tmp)).items():
            runs = [cpu_of(command) for _ in range(args.repeat)]
            median = statistics.median(runs)
            over += median > TARGET_S
            verdict = "ok" if median <= TARGET_S else f"OVER the {TARGET_S} s target"
            print(f"{name:<30} {median:5.2f} s CPU (median of {len(runs)}: "
                  f"{', '.join(f'{r:.2f}' for r in runs)})  {verdict}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
