"""``make bench-scale``: the VizWiz campaign at 500, 4,000 and 39,181 images on the simulator.

Each size and seed runs ``config/vizwiz_full_scale.toml`` (``--limit N``) end to end in its own
process (so peak RSS is that run's), against a simulator the child starts itself, and reports
wall time per phase, peak RSS, platform calls and QC quality against the simulator's truth.
Then the same 1,000 HITs are posted under a realistic latency and rate limit
(``hitflow sim serve --latency-ms``) by a plain sequential boto3 loop and by hitflow's thread
pool. Figures go to ``bench/results-scale.json``; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_full_scale.toml"
CROWD = ROOT / "config" / "crowds" / "vizwiz_full_scale.toml"
RESULTS = ROOT / "bench" / "results-scale.json"
HONEST = ("diligent", "typo_prone")
STEP_PHASES = {"publish batch": "publish", "collect submissions": "collect", "run QC": "qc",
               "approve or reject": "decide", "block flagged workers": "block"}


def _timed(phases: dict[str, float], phase: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kw: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kw)
        finally:
            phases[phase] += time.perf_counter() - start
    return wrapper


def run_one(size: int, seed: int) -> dict[str, Any]:
    """One campaign end to end in this process, as ``hitflow run CONFIG --no-prefect`` runs it (the
    embedded simulator keeps its state file next to the ledger): phases, RSS, calls, quality."""
    from flows import campaign, outputs, targets
    from flows.campaign_run import run_campaign
    from flows.config import load_config

    phases: dict[str, float] = defaultdict(float)
    campaign._prepare = _timed(phases, "plan", campaign._prepare)  # type: ignore[attr-defined]
    outputs.spellcheck_frame = _timed(phases, "spell_correct", outputs.spellcheck_frame)  # type: ignore[attr-defined]
    outputs.render_report = _timed(phases, "report", outputs.render_report)  # type: ignore[attr-defined]
    sims: list[Any] = []

    def call(name: str, fn: Any, run: Any, batch: int) -> dict[str, Any]:
        phase = STEP_PHASES.get(name.rsplit(" ", 1)[0], "other")
        return _timed(phases, phase, fn)(run, batch)  # type: ignore[no-any-return]

    def progress(_message: str) -> None:  # the session's simulator, for its calls and its crowd
        if not sims:
            sims.extend(entry[0] for entry in targets._SHARED.values())

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        summary = run_campaign(CONFIG, db_path=Path(tmp) / "ledger.db", out_root=tmp, limit=size, seed=seed,
                               call=call, progress=progress)
        total = time.perf_counter() - start
        state_mb = sum(f.stat().st_size for f in (Path(tmp) / "sim").iterdir()) / 2**20
    market = sims[0].market
    timed = sum(v for k, v in phases.items() if k in STEP_PHASES.values() or k == "plan")
    phases["export"] = total - timed - phases["spell_correct"] - phases["report"]
    return {"images": size, "seed": seed, "wall_s": round(total, 1),
            "phases_s": {k: round(v, 2) for k, v in sorted(phases.items())},
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "platform_calls": market.calls, "workers": len(market.workers), "captions": summary["captions"],
            "sim_state_mb": round(state_mb, 1), "load_avg_1m": round(os.getloadavg()[0], 2),
            "quality": quality(summary["truth"], gated_out(market.workers.values(), load_config(CONFIG)))}


def quality(truth: Any, gated: dict[str, int]) -> dict[str, Any]:
    """Per profile: workers, who worked, who the approval filters kept out, who was blocked.

    Honest workers wrongly blocked: blocked / worked. Bad workers caught: (blocked + kept out by
    the filters) / (worked + kept out). A worker who never worked for another reason (arrived
    after the last HIT, left before it) did no harm and is counted in neither."""
    rows = {r["profile"]: {"workers": int(r["workers"]), "worked": int(r["worked"]),
                           "gated_out": gated.get(r["profile"], 0), "idle": int(r["gated_out"]) - gated.get(
                               r["profile"], 0), "blocked": int(r["blocked"])}
            for r in truth.to_dict("records")}
    honest = [r for p, r in rows.items() if p in HONEST]
    bad = [r for p, r in rows.items() if p not in HONEST]
    return {"profiles": rows,
            "honest_wrongly_blocked": round(sum(r["blocked"] for r in honest)
                                            / max(1, sum(r["worked"] for r in honest)), 4),
            "bad_caught": round(sum(r["blocked"] + r["gated_out"] for r in bad)
                                / max(1, sum(r["worked"] + r["gated_out"] for r in bad)), 4)}


def gated_out(workers: Any, cfg: Any) -> dict[str, int]:
    """Per profile: workers the config's approval filters keep out (they never see a HIT)."""
    out: dict[str, int] = defaultdict(int)
    for w in workers:
        if w.hits_approved <= cfg.gating.min_hits_approved or w.percent_approved < cfg.gating.min_percent_approved:
            out[w.profile] += 1
    return dict(out)


def posting(n_hits: int, latency_ms: float, rate: float) -> dict[str, Any]:
    """The same HITs posted by a sequential boto3 loop and by hitflow's pool, under latency."""
    from flows import mturk_adapter as mturk
    from flows.batch_publish import POST_THREADS
    from flows.sim.forms import html_question
    from flows.sim.pacing import Pacing
    from flows.sim.server import SimServer
    from flows.templates import render, sample_context

    page = html_question(render("caption.html.j2", sample_context("caption")))
    out: dict[str, Any] = {"hits": n_hits, "latency_ms": latency_ms, "rate_limit_per_s": rate,
                           "threads": POST_THREADS}
    for how in ("sequential_boto3", "hitflow_pool"):
        with SimServer(seed=5) as sim:
            sim.httpd.pacing = Pacing(latency_ms, rate)
            client = mturk.make_client(mturk.Target("sim", sim.url))
            hit_type = mturk.create_hit_type(client, {"Title": "t", "Description": "d", "Reward": "0.55",
                                                      "AssignmentDurationInSeconds": 3600,
                                                      "AutoApprovalDelayInSeconds": 259200})

            def post(i: int, client: Any = client, hit_type: str = hit_type) -> None:
                client.create_hit_with_hit_type(HITTypeId=hit_type, MaxAssignments=5, LifetimeInSeconds=86400,
                                                Question=page, UniqueRequestToken=f"bench-{i}")

            start = time.perf_counter()
            if how == "sequential_boto3":
                for i in range(n_hits):
                    post(i)
            else:
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(POST_THREADS) as pool:
                    list(pool.map(post, range(n_hits)))
            seconds = time.perf_counter() - start
            out[how] = {"seconds": round(seconds, 1), "hits_per_s": round(n_hits / seconds, 1),
                        "throttled": sim.httpd.pacing.throttled}
    out["ratio"] = round(out["hitflow_pool"]["hits_per_s"] / out["sequential_boto3"]["hits_per_s"], 2)
    return out


def markdown_table(results: dict[str, Any]) -> str:
    """The README's table: one row per run, then the posting comparison."""
    phases = ["publish", "collect", "qc", "decide", "block", "spell_correct", "export", "report"]
    lines = ["| images | seed | wall s | " + " | ".join(phases) + " | peak RSS MB | platform calls | workers "
             "| honest wrongly blocked | bad caught |",
             "|" + "---|" * (len(phases) + 8)]
    for r in results["runs"]:
        if "error" in r:
            lines.append(f"| {r['images']} | {r['seed']} | failed: {' '.join(r['error'])} |")
            continue
        q = r["quality"]
        lines.append(f"| {r['images']:,} | {r['seed']} | {r['wall_s']} | "
                     + " | ".join(str(r["phases_s"].get(p, 0)) for p in phases)
                     + f" | {r['peak_rss_mb']} | {r['platform_calls']:,} | {r['workers']:,} "
                     f"| {q['honest_wrongly_blocked']:.1%} | {q['bad_caught']:.1%} |")
    p = results["posting"]
    lines += ["", f"Posting {p['hits']:,} HITs at {p['latency_ms']:g} ms per call, rate limit "
              f"{p['rate_limit_per_s']:g}/s: sequential boto3 loop {p['sequential_boto3']['hits_per_s']} HITs/s, "
              f"hitflow's {p['threads']}-thread pool {p['hitflow_pool']['hits_per_s']} HITs/s "
              f"({p['hitflow_pool']['throttled']} throttled calls retried): **{p['ratio']}x**."]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--one", nargs=2, type=int, metavar=("IMAGES", "SEED"), help="child: one run, JSON to stdout")
    ap.add_argument("--sizes", default="500,4000,39181")
    ap.add_argument("--seeds", default="1,2,3", help="seeds for every size but the largest")
    ap.add_argument("--full-seeds", default="1", help="seeds for the largest size")
    ap.add_argument("--post-hits", type=int, default=1000)
    ap.add_argument("--latency-ms", type=float, default=150.0)
    ap.add_argument("--rate-limit", type=float, default=50.0)
    ap.add_argument("--table", action="store_true", help="print the README table from results-scale.json")
    a = ap.parse_args()
    if a.table:
        print(markdown_table(json.loads(RESULTS.read_text())))
        return
    if a.one:
        print(json.dumps(run_one(*a.one)))
        return
    sizes = [int(s) for s in a.sizes.split(",")]
    runs = []
    for size in sizes:
        for seed in (a.full_seeds if size == max(sizes) else a.seeds).split(","):
            child = subprocess.run([sys.executable, "-m", "bench.scale", "--one", str(size), seed], cwd=ROOT,
                                   capture_output=True, text=True, check=False)
            if child.returncode:
                runs.append({"images": size, "seed": int(seed), "error": child.stderr.strip().splitlines()[-1:]})
            else:
                runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
            print(json.dumps(runs[-1]), flush=True)
    post = posting(a.post_hits, a.latency_ms, a.rate_limit)
    print(json.dumps(post), flush=True)
    RESULTS.write_text(json.dumps({"machine": "2 cores shared, simulator in-process", "runs": runs,
                                   "posting": post}, indent=1) + "\n")


if __name__ == "__main__":
    main()
