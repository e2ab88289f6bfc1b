"""QC's per-batch CPU (``make bench-qc-batch``): every known rule over campaign-sized batches, today's
code beside the code before the output-speed work (bench/qc_flags_before.py), in the same run.

Batches: 60 seeded campaign-like batches (:func:`campaign_batch`: a few workers doing assignments of a
few images, repeats, canned text, telemetry records, earlier review picks; the demo campaign's batches
are 2 to 280 captions), and real captions (bench/qc_load.py's VizWiz bank) in batches of 50, 300 and
3,000. Each figure is the least CPU time of a few runs (the 2-core machine is shared: wall time says
more about the neighbours). Target: today's QC at most half the CPU of the QC before it
on the campaign-like batches and on the real batches of 50 and 300 captions.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import pandas as pd

from bench.qc_flags_before import before
from bench.qc_load import load_batch
from flows.campaigns.page_text import qc_params
from flows.core.config.config import load_config
from qc.runner import KNOWN_RULES, prepare, run_rules
from qc.submit_rules import CANNED_TEXT

ROOT = Path(__file__).resolve().parents[1]
PARAMS = qc_params(load_config(ROOT / "config" / "vizwiz_captions.toml"), seed=1)
TARGET = 0.5
TEXTS = ["A white mug on a wooden desk next to a laptop computer.", "A white mug on a wooden desk next to a laptop.",
         "A photo of a can of soup on a kitchen counter.", "A photo of a can of beans on a shelf.",
         "A photo of a can of corn on a table top here.", "THE DOG IS SLEEPING ON THE RED COUCH TODAY.",
         "The image is blurry and the quality is poor.", "This is a bottle of water.", "", "   ",
         CANNED_TEXT, "quality issues are too severe to recognize visual content", "dog",
         "A very wonderful view and worth seeing at all times, my friend", "Two cats. They sleep."]


def telemetry(caption: str, rng: random.Random) -> str:
    """A page's record for one caption: typed, partly pasted from outside (after leaving the tab for a
    moment), typed too fast, or none."""
    n = len(caption)
    how = rng.choice(["typed", "typed", "pasted", "fast", "none"])
    if how == "none":
        return ""
    k = rng.randint(n // 3, n) if how == "pasted" and n else 0  # characters pasted
    left = rng.randint(2000, 8900)  # the tab hidden at, shown again at 8,950 ms; the paste at 9,000
    pasted = [[9000, k, "x"]] if k else []
    f = {"typed": n - k, "del": 0, "keys": n - k + 2, "first_ms": 3000,
         "active_ms": rng.choice([100, 900, 20000]) if how == "fast" else 20000, "paste": pasted,
         "paste_n": len(pasted), "paste_x": k, "paste_p": 0, "drop": 0, "copy": 0, "cut": 0, "focus": [], "len": n}
    vis = [[left, "h"], [8950, "v"]] if k else []
    return json.dumps({"v": 1, "loads": 1, "vis": vis, "f": {"caption_0": f}})


def campaign_batch(seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A campaign-like batch: workers doing assignments of a few images each, with a page's params."""
    rng = random.Random(seed)
    workers = [f"W{k}" for k in range(rng.randint(1, 8))]
    images = [str(28000 + k) for k in range(rng.randint(1, 15))]
    rows = []
    for a in range(rng.randint(0, 14)):
        worker, time_s = rng.choice(workers), rng.choice([rng.lognormvariate(5, 0.6), 5.0, float("nan")])
        for image in rng.sample(images, rng.randint(1, min(5, len(images)))):
            caption = rng.choice(TEXTS)
            rows.append({"assignment_id": f"A{a}", "worker_id": worker, "image_id": image, "caption": caption,
                         "work_time_s": time_s, "telemetry": telemetry(caption, rng), "telemetry_field": "caption_0"})
    raw = pd.DataFrame(rows, columns=["assignment_id", "worker_id", "image_id", "caption", "work_time_s",
                                      "telemetry", "telemetry_field"])
    if seed % 3 == 0:
        raw = raw.drop(columns=["telemetry", "telemetry_field"])
    ids = sorted(set(raw["assignment_id"]))
    params = {**PARAMS, "seed": seed, "random_sample_share": rng.choice([0.0, 0.05, 0.3, 1.0]),
              "sampled_before": rng.sample(ids, min(len(ids), rng.randint(0, 2))),
              "decided": rng.sample(ids, min(len(ids), rng.randint(0, 3))),
              "shared_template_min_images": rng.choice([2, 4]), "lone_min_captions": rng.choice([2, 3]),
              "near_template_words": rng.choice([3, 5]), "near_template_consensus": rng.choice([0.05, 0.5])}
    return raw, params


def _fastest(batches: list[tuple[pd.DataFrame, dict[str, Any]]], repeats: int) -> float:
    """The least CPU seconds of ``repeats`` runs of every rule over every batch."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for frame, params in batches:
            run_rules(frame, params, KNOWN_RULES)
        best = min(best, time.process_time() - start)
    return best


def bench_qc_batch(repeats: int = 3) -> dict[str, Any]:
    campaign = [(prepare(raw), params) for raw, params in map(campaign_batch, range(60))]
    real = {n: [(load_batch(n, seed), {**PARAMS, "seed": seed}) for seed in range(max(1, 3000 // n))]
            for n in (50, 300, 3000)}
    out: dict[str, Any] = {"load_average_1min": round(os.getloadavg()[0], 2)}
    for name, batches in [("campaign_like_60", campaign), *((f"real_{n}", b) for n, b in real.items())]:
        now = _fastest(batches, repeats)
        with before():
            then = _fastest(batches, repeats)
        out[name] = {"batches": len(batches), "ms_per_batch": round(1000 * now / len(batches), 2),
                     "ms_per_batch_before": round(1000 * then / len(batches), 2), "ratio": round(now / then, 3)}
    out["target_met"] = all(out[k]["ratio"] <= TARGET for k in ("campaign_like_60", "real_50", "real_300"))
    return out


if __name__ == "__main__":
    found = bench_qc_batch()
    (ROOT / "bench" / "results-qc-batch.json").write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(found, indent=2))
