"""QC speed with every rule on, over a batch built from real VizWiz captions (part of ``make bench``):
today's QC beside the QC before the speed work, in the same run.

200,000 captions: 40,000 images x 5 workers' captions taken from the demo bank of real
captions (config/items/vizwiz_demo_captions.csv, each bank image reused with a per-image
word so texts stay distinct), 2,000 workers with five-image assignments, 10% canned text,
and a few abusers: one pasted template on many images, instruction echoes, all-caps text.
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from bench import qc_reference as reference
from flows.campaigns.page_text import qc_params
from flows.core.config.config import load_config
from flows.platforms.submission_formats import read_submissions
from qc.runner import KNOWN_RULES, prepare, run_rules
from qc.submit_rules import CANNED_TEXT

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ("A very wonderful view and worth seeing at all times, my friend",
             "Describe all parts of the image that may be important to a person who is blind")


def load_batch(n: int = 200_000, seed: int = 3) -> pd.DataFrame:
    bank = pd.read_csv(ROOT / "config" / "items" / "vizwiz_demo_captions.csv", dtype=str, keep_default_na=False)
    by_image = [list(g["caption"])[:5] for _, g in bank.groupby("image_id") if len(g) >= 5]
    rng = random.Random(seed)
    rows = []
    for k in range(n):
        image, slot = k // 5, k % 5
        worker = f"W{(image // 5 * 5 + slot * 7) % 2000}"
        roll = rng.random()
        if roll < 0.10:
            caption = CANNED_TEXT
        elif roll < 0.12:
            caption = TEMPLATES[rng.randrange(len(TEMPLATES))]
        else:
            caption = f"{by_image[image % len(by_image)][slot].rstrip(' .')} near mark{image}."
            caption = caption.upper() if roll < 0.125 else caption
        rows.append((f"A{image // 5}-{slot}", worker, f"I{image}", caption, rng.lognormvariate(5.5, 0.5)))
    frame = pd.DataFrame(rows, columns=["assignment_id", "worker_id", "image_id", "caption", "work_time_s"])
    return prepare(frame)


def _timed(run: Callable[[], pd.DataFrame]) -> tuple[float, float, float, pd.DataFrame]:
    load = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), time.process_time()
    flags = run()
    return time.perf_counter() - start, time.process_time() - cpu_start, load, flags


def bench_qc_all_rules(n: int = 200_000, repeats: int = 3) -> dict[str, Any]:
    """``hitflow qc``'s work on ``n`` captions (read the submissions file, prepare, every rule) by
    today's QC and by the QC before the speed work (bench/qc_reference.py), ``repeats`` times each,
    alternately, so both see the same neighbours on this shared machine: the fastest and the median
    run of each, CPU beside wall seconds, the load average at each start, and whether the flag tables
    are identical."""
    params = qc_params(load_config(ROOT / "config" / "vizwiz_captions.toml"), seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "submissions.csv"
        load_batch(n).drop(columns="is_precanned").to_csv(path, index=False)
        ways = {"new": lambda: run_rules(prepare(read_submissions(path)), params, KNOWN_RULES),
                "old": lambda: reference.run_rules(reference.prepare(reference.read_submissions(path)), params,
                                                   KNOWN_RULES)}
        runs: dict[str, list[tuple[float, float, float, pd.DataFrame]]] = {"new": [], "old": []}
        for _ in range(repeats):
            for name, run in ways.items():
                reference.forget_batch()
                runs[name].append(_timed(run))
    new, old = runs["new"], runs["old"]
    flags = new[-1][3]
    out: dict[str, Any] = {"captions": n, "rules": len(KNOWN_RULES), "repeats": repeats,
                           "same_flags": all(r[3].equals(o[3]) for r, o in zip(new, old, strict=True)),
                           "flags": len(flags), "load_average_1min": [round(r[2], 2) for r in new + old]}
    for name, got in runs.items():
        walls, cpus = [r[0] for r in got], [r[1] for r in got]
        out |= {f"{name}_s": round(min(walls), 2), f"{name}_s_median": round(statistics.median(walls), 2),
                f"{name}_cpu_s": round(min(cpus), 2), f"{name}_cpu_s_median": round(statistics.median(cpus), 2)}
    out["speedup"] = round(out["old_s_median"] / out["new_s_median"], 2)
    out["speedup_cpu"] = round(out["old_cpu_s_median"] / out["new_cpu_s_median"], 2)
    out["flags_by_rule"] = {str(k): int(v) for k, v in sorted(flags["rule"].value_counts().to_dict().items())}
    return out


def bench_qc_cli(n: int = 200_000, repeats: int = 3, config: str = "config/vizwiz_captions.toml") -> dict[str, Any]:
    """``hitflow qc FILE --config CONFIG`` as a user runs it (a process of its own: start-up included), on
    ``n`` captions and on their first 25 rows (start-up alone), ``repeats`` times each, alternately: wall
    and CPU (user + system, from the children's rusage) seconds, the fastest and the median, and the load."""
    with tempfile.TemporaryDirectory() as tmp:
        batch = load_batch(n).drop(columns="is_precanned")
        files = {"big": Path(tmp) / "big.csv", "small": Path(tmp) / "small.csv"}
        batch.to_csv(files["big"], index=False)
        batch.head(25).to_csv(files["small"], index=False)
        got: dict[str, list[tuple[float, float, float]]] = {"big": [], "small": []}
        for _ in range(repeats):
            for name, path in files.items():
                got[name].append(_cli_run(path, Path(tmp) / "flags.csv", ROOT / config))
    out: dict[str, Any] = {"captions": n, "config": config, "repeats": repeats}
    for name, runs in got.items():
        label = "200k" if name == "big" else "25_rows"
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        out |= {f"wall_s_{label}": round(min(walls), 2), f"wall_s_{label}_median": round(statistics.median(walls), 2),
                f"cpu_s_{label}": round(min(cpus), 2), f"cpu_s_{label}_median": round(statistics.median(cpus), 2),
                f"load_average_1min_{label}": [r[2] for r in runs]}
    return out


def _cli_run(path: Path, out: Path, config: Path) -> tuple[float, float, float]:
    load = round(os.getloadavg()[0], 2)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "flows.cli", "qc", str(path), "--out", str(out), "--config", str(config)],
                   check=True, capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, load


if __name__ == "__main__":
    print(json.dumps(bench_qc_all_rules(), indent=2))
    print(json.dumps(bench_qc_cli(), indent=2))
