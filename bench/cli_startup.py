"""CPU time of the `hitflow` commands people wait on: ``--help``, ``status`` on a
small campaign's ledger (and on one waiting for review, whose queue's states the run kept in the ledger) and
``aggregate`` on a 12-row file, each a fresh process as a user starts it, against the 0.5 s target. CPU (user
+ system of the child, from ``os.wait4``), not wall time, after one untimed start; a busy host still raises it
(shared caches and cores: ``import pandas`` alone took 0.37 s at load ~10 and 0.46 s at load 25), so the load
average is printed beside it. Two rows are shown without a verdict: ``import pandas`` alone (the floor of
``aggregate``, which reads and models its file with pandas) and ``status`` on the reviewed campaign with its
kept states removed before each start (what the first ``status`` after a change to the ledger costs: it
builds the queue with pandas and keeps the states for the next).
Run: ``make bench-cli-startup`` (``python -m bench.cli_startup``). The ledgers are made first by 10-image
campaigns on the embedded simulator (not timed)."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HITFLOW = [sys.executable, "-m", "flows.cli"]
TARGET_S = 0.5
# Python writes its bytecode files (without them hitflow's own modules are compiled at every start: ~0.2 s of
# CPU more for `status` on a reviewed campaign): a shell with PYTHONDONTWRITEBYTECODE set would time the compiler
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cpu_of(args: list[str], before: Callable[[], None] | None = None) -> float:
    """User + system CPU seconds of one run of ``args`` (its children included once it has waited for them);
    ``before``: called first, untimed."""
    if before is not None:
        before()
    proc = subprocess.Popen(args, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[2:])} failed ({proc.returncode}): {proc.stderr.read().decode()[-400:]}")
    return usage.ru_utime + usage.ru_stime


def forget_kept(db: Path) -> Callable[[], None]:
    """Remove the review states the run kept (flows/campaigns/kept_states.py): the next status builds them."""
    def forget() -> None:
        with sqlite3.connect(db) as conn:
            conn.execute("DELETE FROM kept_states")
        conn.close()
    return forget


def twelve_rows(folder: Path) -> Path:
    """Four items, three workers each: the 12-row file of the issue's `aggregate`."""
    path = folder / "labels.csv"
    rows = [f"i{item},w{worker},{'pos' if (item + worker) % 3 else 'neg'}" for item in range(4) for worker in range(3)]
    path.write_text("item_id,worker_id,label\n" + "\n".join(rows) + "\n")
    return path


def reviewed(folder: Path) -> Path:
    """The demo config with ``review = "flagged"`` (its items copied beside it: a config's files stay in its
    folder): a run stops for a person, and keeps its review queue's states for `status` to read back."""
    base = ROOT / "config" / "vizwiz_captions.toml"
    text = base.read_text(encoding="utf-8")
    items = re.search(r'(?m)^items = "([^"]+)"', text)
    assert items, "the demo config names no items file"
    (folder / items[1]).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(base.parent / items[1], folder / items[1])
    path = folder / "reviewed.toml"
    path.write_text(text.replace("[policy]\n", '[policy]\nreview = "flagged"\n', 1), encoding="utf-8")
    return path


def commands(folder: Path) -> dict[str, tuple[list[str], Callable[[], None] | None, bool]]:
    """Each row's command, what runs before each start (untimed), and whether the 0.5 s target is its."""
    db, out, waiting = folder / "h.db", folder / "out", folder / "waiting.db"
    subprocess.run([*HITFLOW, "run", "config/vizwiz_captions.toml", "--no-prefect", "--limit", "10", "--db", str(db),
                    "--out", str(out)], cwd=ROOT, env=ENV, check=True, capture_output=True)
    subprocess.run([*HITFLOW, "run", str(reviewed(folder)), "--no-prefect", "--limit", "10", "--db", str(waiting),
                    "--out", str(folder / "out-reviewed")], cwd=ROOT, env=ENV, check=True, capture_output=True)
    with sqlite3.connect(waiting) as conn:  # the run kept them, not the untimed first status below
        kept = conn.execute("SELECT count(*) FROM kept_states").fetchone()[0]
    conn.close()
    if not kept:
        raise SystemExit("the run that stopped for review kept no review states (flows/campaigns/kept_states.py)")
    return {"hitflow --help": ([*HITFLOW, "--help"], None, True),
            "hitflow status": ([*HITFLOW, "status", "--db", str(db)], None, True),
            "hitflow status (review flagged)": ([*HITFLOW, "status", "--db", str(waiting)], None, True),
            "hitflow aggregate (12 rows)": ([*HITFLOW, "aggregate", str(twelve_rows(folder)), "--out",
                                             str(folder / "agg" / "answers.csv")], None, True),
            "  import pandas (its floor)": ([sys.executable, "-c", "import pandas"], None, False),
            "  status, states not kept": ([*HITFLOW, "status", "--db", str(waiting)], forget_kept(waiting), False)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (the median is shown)")
    args = parser.parse_args(argv)
    # CPU time still grows on a busy host (shared caches, hyper-threads): say how busy it was
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory(prefix="hitflow-cli-startup-") as tmp:
        over = 0
        for name, (command, before, targeted) in commands(Path(tmp)).items():
            cpu_of(command, before)  # untimed: a first start may still write bytecode files
            runs = [cpu_of(command, before) for _ in range(args.repeat)]
            median = statistics.median(runs)
            over += targeted and median > TARGET_S
            verdict = ("ok" if median <= TARGET_S else f"OVER the {TARGET_S} s target") if targeted else "(no target)"
            print(f"{name:<32} {median:5.2f} s CPU (median of {len(runs)}: "
                  f"{', '.join(f'{r:.2f}' for r in runs)})  {verdict}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
