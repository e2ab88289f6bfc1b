"""QC speed with every rule on, over a batch built from real VizWiz captions (part of ``make bench``).

200,000 captions: 40,000 images x 5 workers' captions taken from the demo bank of real
captions (config/items/vizwiz_demo_captions.csv, each bank image reused with a per-image
word so texts stay distinct), 2,000 workers with five-image assignments, 10% canned text,
and a few abusers: one pasted template on many images, instruction echoes, all-caps text.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

import pandas as pd

from flows.campaigns.page_text import qc_params
from flows.core.config import load_config
from qc.runner import KNOWN_RULES, prepare, run_rules
from qc.submit_rules import CANNED_TEXT
from qc.text_similarity import fit_vectors

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


def bench_qc_all_rules(n: int = 200_000, repeats: int = 3) -> dict[str, Any]:
    """Every rule over ``n`` captions, ``repeats`` times from a cold TF-IDF fit: the fastest and the
    median run (the 2-core machine is shared, so one run says more about the neighbours than about
    QC), CPU time beside wall time, and the load average when it started."""
    frame = load_batch(n)
    params = qc_params(load_config(ROOT / "config" / "vizwiz_captions.toml"), seed=1)
    load_before = os.getloadavg()[0]
    walls, cpus = [], []
    for _ in range(repeats):
        fit_vectors.cache_clear()  # time the TF-IDF fit too
        start, cpu_start = time.perf_counter(), time.process_time()
        flags = run_rules(frame, params, KNOWN_RULES)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu_start)
    per_rule = flags["rule"].value_counts().to_dict()
    return {"captions": n, "rules": len(KNOWN_RULES), "repeats": repeats,
            "qc_s": round(min(walls), 2), "qc_s_median": round(statistics.median(walls), 2),
            "qc_cpu_s": round(min(cpus), 2), "qc_cpu_s_median": round(statistics.median(cpus), 2),
            "load_average_1min": round(load_before, 2), "flags": len(flags),
            "flags_by_rule": {str(k): int(v) for k, v in sorted(per_rule.items())}}


if __name__ == "__main__":
    print(bench_qc_all_rules())
