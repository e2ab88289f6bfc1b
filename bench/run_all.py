"""Benchmarks: ``make bench``. Figures go to stdout and bench/results.json; nothing here is a test.

1. simulator throughput: post 1,000 HITs x 5 assignments through boto3 and the adapter's
   thread pool, let the virtual clock run, fetch every assignment;
2. QC: the seed's rules over 100,000 captions, and every rule (the real-spammer QC work's text rules too)
   over 200,000 captions built from real ones, read from a submissions file, beside the QC before
   the speed work (bench/qc_load.py, bench/qc_reference.py);
3. spell-correction: 5,000 real-looking captions with typos, and 200,000 varied captions with
   their own misspellings beside the pre-index corrector's time, scaled from a sample measured
   in the same run (bench/spelling_speed.py), and both correctors' choices on the real VizWiz
   validation captions;
4. the demo campaign under Prefect and with --no-prefect, alternately (bench/prefect_overhead.py);
5. end to end, 300 HITs x 5 at 150 ms per call: hitflow against a naive boto3 loop (bench/latency.py);
6. answers: a 1,000-item classification campaign with 20 consistently-wrong workers, its
   answers' accuracy beside majority vote's and who was blocked before the last batch, on 5% control
   items alone, with the agreement rule, and pooled with agreement (the default), 10 items a page
   (bench/answers_accuracy.py; ``make bench-answers`` runs both crowds at three seeds, at 10 and 20
   items a page);
7. adaptive overlap: that campaign with 4 wrong workers, fixed 5 against adaptive overlap on
   MTurk-sim and Prolific-sim, seed 1 (bench/adaptive_campaign.py; ``make bench-adaptive-campaign`` and
   ``-prolific`` run eight seeds each);
8. calibration: ECE, mean confidence and the reliability table beside accuracy on Snow et al.'s
   real labels and the simulator's 1,000-item campaign (bench/calibration.py, ``make bench-calibration``).
9. every `hitflow aggregate --method` on 92,721 labels against majority vote (bench/aggregation_speed.py,
   ``make bench-aggregation-speed``);
10. the answers' confidence per public set and method, with and without controls, at 6 and 15 bins with the worst
   bin, and the adaptive replay's accuracy and share (bench/answers_calibration.py,
   ``make bench-answers-calibration``).

The last lines printed are the speed work's four figures, each beside its baseline measured in this run,
the ratio, the target and the load average, then the answers work's answers lines beside majority vote
(about 23 minutes in all; the naive loop is 5, the answers about 2, adaptive overlap about 5).
"""

from __future__ import annotations

import json
import random
import resource
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd

from bench import (
    adaptive_campaign,
    aggregation_speed,
    answers_accuracy,
    answers_calibration,
    calibration,
    latency,
    prefect_overhead,
)
from bench.qc_load import bench_qc_all_rules, bench_qc_cli
from bench.spelling_speed import bench_spelling_200k, compare_on_vizwiz
from flows.core.outputs.spelling_cache import spelling_index
from flows.core.pages.mturk_forms import html_question
from flows.core.pages.templates import render, sample_context
from flows.platforms.mturk import adapter as mturk
from flows.platforms.targets import advance_sim_clock
from flows.sim.service.server import SimServer
from postprocess.spellcheck import spellcheck_frame
from qc.runner import prepare, run_rules
from qc.submit_rules import CANNED_TEXT

ROOT = Path(__file__).resolve().parents[1]


def bench_simulator(n_hits: int = 1000) -> dict[str, float]:
    page = html_question(render("caption.html.j2", sample_context("caption")))
    with SimServer(seed=5) as sim:
        target = mturk.Target("sim", sim.url)
        client = mturk.make_client(target)
        type_id = mturk.create_hit_type(client, {"Title": "t", "Description": "d", "Reward": "0.55",
                                                 "AssignmentDurationInSeconds": 3600,
                                                 "AutoApprovalDelayInSeconds": 259200})
        start = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            hit_ids = list(pool.map(lambda i: mturk.create_hit(
                client, type_id, {"MaxAssignments": 5, "LifetimeInSeconds": 604800, "Question": page},
                f"bench-{i}")[0], range(n_hits)))
        posted = time.perf_counter() - start
        advance_sim_clock(target, 2 * 86400)
        with ThreadPoolExecutor(8) as pool:
            counts = list(pool.map(lambda h: len(mturk.list_submissions(client, h)), hit_ids))
        total = time.perf_counter() - start
    return {"hits": n_hits, "assignments": sum(counts), "post_s": round(posted, 2),
            "post_and_collect_s": round(total, 2), "hits_per_s": round(n_hits / posted, 1)}


def bench_qc(n: int = 100_000) -> dict[str, float]:
    rng = random.Random(1)
    words = ["a", "dog", "cat", "red", "blue", "table", "chair", "bottle", "with", "on", "near", "the", "of",
             "small", "large", "blurry"]
    rows = [(f"a{i // 5}", f"W{(i // 5) % 400}", f"i{i % 20000}",
             CANNED_TEXT if rng.random() < 0.1 else " ".join(rng.choices(words, k=rng.randint(6, 14))),
             rng.lognormvariate(5.5, 0.5)) for i in range(n)]
    frame = prepare(pd.DataFrame(rows, columns=["assignment_id", "worker_id", "image_id", "caption", "work_time_s"]))
    start = time.perf_counter()
    flags = run_rules(frame, {"seed": 1})
    return {"captions": n, "qc_s": round(time.perf_counter() - start, 2), "flags": len(flags)}


def bench_spelling(n: int = 5000) -> dict[str, float]:
    bank = pd.read_csv(ROOT / "config" / "items" / "vizwiz_demo_captions.csv")["caption"].tolist()
    rng = random.Random(2)

    def typo(text: str) -> str:
        out = []
        for w in text.split(" "):
            if len(w) > 4 and w.isalpha() and rng.random() < 0.1:
                j = rng.randrange(1, len(w) - 2)
                w = w[:j] + w[j + 1] + w[j] + w[j + 2:]
            out.append(w)
        return " ".join(out)

    frame = pd.DataFrame({"caption": [typo(rng.choice(bank)) for _ in range(n)],
                          "worker_id": [f"w{i % 60}" for i in range(n)]})
    start = time.perf_counter()
    out = spellcheck_frame(frame, index=spelling_index())  # from the disk cache, as the product loads it
    return {"captions": n, "spell_s": round(time.perf_counter() - start, 2),
            "changed": int((out["edits"] != "").sum())}


def main() -> None:
    adaptive = [adaptive_campaign.measure(1000, 4, 1, adaptive_campaign.route_rule(route), "auto", route, 1)
                for route in ("mturk", "prolific")]
    results: dict[str, Any] = {"simulator": bench_simulator(), "qc": bench_qc(), "qc_all_rules": bench_qc_all_rules(),
               "qc_cli": bench_qc_cli(),
               "spelling": bench_spelling(), "spelling_200k": bench_spelling_200k(),
               "spelling_vizwiz_vs_pyspellchecker": compare_on_vizwiz(),
               "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
               "prefect_overhead": prefect_overhead.measure(pairs=3),
               "latency": latency.measure(hits=300, latency_ms=150.0, rate_limit=100.0),
               "answers": answers_accuracy.measure_all(1000, [20], [1]),
               "adaptive": adaptive, "calibration": calibration.measure(),
               "answers_calibration": answers_calibration.measure(),
               "aggregation_speed": aggregation_speed.measure()}
    print(json.dumps(results, indent=2))
    (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print("\n".join(summary(results) + answers_accuracy.summary_lines(results["answers"])
                    + [adaptive_campaign.summary_line(run) for run in adaptive]
                    + calibration.lines(results["calibration"])
                    + answers_calibration.lines(results["answers_calibration"])
                    + [aggregation_speed.summary_line(results["aggregation_speed"])]))


def summary(results: dict[str, Any]) -> list[str]:
    """One line per issue-33 figure: the figure, its baseline from this same run, the ratio, the target,
    and the 1-minute load average(s) while it was measured (2 cores shared: read CPU beside wall)."""
    spell, qc, pre, lat = (results[k] for k in ("spelling_200k", "qc_all_rules", "prefect_overhead", "latency"))
    cli = results["qc_cli"]
    return [
        f"spelling {spell['captions']:,} varied captions ({spell['unique_unknown_words']:,} misspellings): "
        f"{spell['spell_s']} s wall, {spell['spell_cpu_s']} s CPU (target <= 30 s) | pyspellchecker loop "
        f"~{spell['baseline_estimate_s']} s wall, ~{spell['baseline_estimate_cpu_s']} s CPU (from "
        f"{spell['baseline_sample_captions']:,} captions) | {spell['speedup_vs_baseline']}x wall, "
        f"{spell['speedup_vs_baseline_cpu']}x CPU | load {spell['load_average_1min']}",
        f"QC {qc['captions']:,} captions, read + prepare + {qc['rules']} rules: {qc['new_s_median']} s wall "
        f"(best {qc['new_s']}), {qc['new_cpu_s_median']} s CPU (target <= 5 s) | before the speed work "
        f"{qc['old_s_median']} s wall, {qc['old_cpu_s_median']} s CPU | {qc['speedup']}x wall, "
        f"{qc['speedup_cpu']}x CPU, same flags: {qc['same_flags']} | load {_loads(qc['load_average_1min'])}",
        f"hitflow qc {cli['captions']:,} captions through the CLI (start-up included): "
        f"{cli['wall_s_200k_median']} s wall, {cli['cpu_s_200k_median']} s CPU (target <= 3 s) "
        f"| 25 rows {cli['wall_s_25_rows_median']} s wall, {cli['cpu_s_25_rows_median']} s CPU "
        f"| load {_loads(cli['load_average_1min_200k'])}",
        f"demo campaign under Prefect: {pre['median_s']['prefect']} s wall, {pre['median_cpu_s']['prefect']} s CPU "
        f"| --no-prefect {pre['median_s']['no_prefect']} s wall, {pre['median_cpu_s']['no_prefect']} s CPU | "
        f"{pre['ratio']}x wall, {pre['cpu_ratio']}x CPU (target <= 1.5x) | load {_loads(pre['load_average_1min'])}",
        f"end to end {lat['hits']} HITs x 5 at {lat['latency_ms']:g} ms per call: hitflow "
        f"{lat['hitflow']['seconds']} s | naive boto3 loop {lat['naive_boto3']['seconds']} s | "
        f"{lat['ratio']}x (target >= 10x) | load {lat['hitflow']['load_avg_1m']}, "
        f"{lat['naive_boto3'].get('load_avg_1m', '?')}",
    ]


def _loads(values: list[float]) -> str:
    return f"{min(values)}-{max(values)}" if values else "?"


if __name__ == "__main__":
    main()
