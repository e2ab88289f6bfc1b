"""``make bench-scale``: the VizWiz campaign at 500, 4,000 and 39,181 images, and COCO's size
(330,000 images x 5 captions), on the simulator.

Each size and seed runs ``config/vizwiz_full_scale.toml`` (``--limit N``; past 39,181 a copy with
``items = "generate:N"``) end to end in its own process (so peak RSS is that run's), against a
simulator in a process of its own that the child starts, and reports wall time per phase, peak
RSS (overall and per phase, bench/rss_phases.py; the simulator's apart), platform calls and QC
quality against the simulator's truth.
Then the same 1,000 HITs are posted under a realistic latency and rate limit
(``hitflow sim serve --latency-ms``) by a plain sequential boto3 loop and by hitflow's thread
pool. Figures go to ``bench/results-scale.json``; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from bench.rss_phases import PhaseRss, rss_mb

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_full_scale.toml"
CROWD = ROOT / "config" / "crowds" / "vizwiz_full_scale.toml"
RESULTS = ROOT / "bench" / "results-scale.json"
HONEST = ("diligent", "typo_prone")
VIZWIZ_IMAGES = 39181
VIZWIZ_BATCHES = 5  # config/vizwiz_full_scale.toml's batches
BATCH_IMAGES = -(-VIZWIZ_IMAGES // VIZWIZ_BATCHES)  # 7,837 images: the batch every bigger run keeps
STEP_PHASES = {"publish batch": "publish", "collect submissions": "collect", "run QC": "qc",
               "approve or reject": "decide", "block flagged workers": "block"}


def _timed(phases: dict[str, float], phase: str, fn: Callable[..., Any], rss: PhaseRss | None = None
           ) -> Callable[..., Any]:
    def wrapper(*args: Any, **kw: Any) -> Any:
        start = time.perf_counter()
        before = rss.enter(phase) if rss else ""
        try:
            return fn(*args, **kw)
        finally:
            phases[phase] += time.perf_counter() - start
            if rss:
                rss.enter(before)
    return wrapper


def run_one(size: int, seed: int, keep: str = "") -> dict[str, Any]:
    """One campaign end to end in this process, as ``hitflow run CONFIG --no-prefect --endpoint-url``
    runs it against a simulator in its own process (bench/sim_process.py): phases, RSS, calls, quality.
    ``keep``: a folder (new or empty) that keeps the run's ledger, simulator state and outputs."""
    from bench.sim_process import sim_process
    from flows.core.run.malloc_arenas import limit_malloc_arenas
    from flows.driver import campaign, campaign_run
    from flows.driver.campaign_run import run_campaign

    limit_malloc_arenas()  # as `hitflow run` does before its threads start

    phases: dict[str, float] = defaultdict(float)
    load_start = round(os.getloadavg()[0], 2)
    with PhaseRss() as rss, kept_or_temporary(keep) as tmp:
        campaign._prepare = _timed(phases, "plan", campaign._prepare, rss)  # type: ignore[attr-defined]
        campaign_run.write_campaign_outputs = _timed(phases, "outputs", campaign_run.write_campaign_outputs, rss)  # type: ignore[attr-defined]

        def call(name: str, fn: Any, run: Any, batch: int) -> dict[str, Any]:
            return _timed(phases, STEP_PHASES.get(name.rsplit(" ", 1)[0], "other"), fn, rss)(run, batch)  # type: ignore[no-any-return]

        start = time.perf_counter()
        config = config_for(size, Path(tmp))
        with sim_process(Path(tmp) / "sim.db", seed, crowd_for(config)) as sim:
            start = time.perf_counter()
            summary = run_campaign(config, endpoint_url=sim.url,
                                   db_path=Path(tmp) / "ledger.db", out_root=tmp, limit=size,
                                   seed=seed, call=call, progress=partial(_log, start, rss))
            total = time.perf_counter() - start
            simulator = sim.stop()
        state_mb = (Path(tmp) / "sim.db").stat().st_size / 2**20
        ledger_mb = (Path(tmp) / "ledger.db").stat().st_size / 2**20
    timed = sum(v for k, v in phases.items() if k in STEP_PHASES.values() or k == "plan")
    phases["other"] = total - timed - phases["outputs"]
    return {"images": size, "seed": seed, "wall_s": round(total, 1),
            "phases_s": {k: round(v, 2) for k, v in sorted(phases.items())},
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "peak_rss_mb_by_phase": rss.rounded(), "sim_peak_rss_mb": simulator["sim_peak_rss_mb"],
            "platform_calls": simulator["platform_calls"], "workers": int(summary["truth"]["workers"].sum()),
            "captions": summary["captions"], "sim_state_mb": round(state_mb, 1), "ledger_mb": round(ledger_mb, 1),
            "load_avg_1m": round(os.getloadavg()[0], 2), "load_avg_1m_start": load_start,
            "cpu_s": cpu_seconds(), "sim_cpu_s": simulator["sim_cpu_s"],
            "batches": batches_for(size), "images_per_batch": -(-size // batches_for(size)),
            "quality": quality(summary["truth"])}


@contextmanager
def kept_or_temporary(keep: str) -> Iterator[str]:
    """``keep`` (made, and refused unless empty: two runs' ledgers would mix), else a temporary folder."""
    if not keep:
        with tempfile.TemporaryDirectory() as tmp:
            yield tmp
        return
    Path(keep).mkdir(parents=True, exist_ok=True)
    if any(Path(keep).iterdir()):
        raise SystemExit(f"--keep {keep}: the folder is not empty")
    yield keep


def cpu_seconds() -> float:
    """User + system CPU seconds of this process (the campaign and its ledger) so far."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return round(use.ru_utime + use.ru_stime, 1)


def _log(start: float, rss: PhaseRss, message: str) -> None:
    """The run's progress on stderr with the time and memory so far (a long run read while it runs)."""
    if "batch" in message and ("HITs" in message or "QC" in message or "decisions" in message):
        print(f"{time.perf_counter() - start:7.0f} s  rss {rss_mb():6.0f} MB  {message}", file=sys.stderr, flush=True)


def config_for(size: int, tmp: Path) -> Path:
    """The full-scale config, or past VizWiz's 39,181 images a copy asking for ``size`` generated
    images (``items = "generate:N"``; COCO is ~330,000 images x 5 captions) with the budget scaled
    and as many batches as keep each batch the 39,181 run's size (memory follows the batch: five
    batches of 66,000 images held 330,000 captions in QC and outputs at once)."""
    if size <= VIZWIZ_IMAGES:
        return CONFIG
    text = CONFIG.read_text()
    for old, new in ((f'"generate:{VIZWIZ_IMAGES}"', f'"generate:{size}"'),
                     ('name = "vizwiz_full_scale"', f'name = "generated_{size}"'),
                     ('budget_usd = "30000.00"', f'budget_usd = "{30000 * size / VIZWIZ_IMAGES * 1.05:.2f}"'),
                     (f"\nbatches = {VIZWIZ_BATCHES} ", f"\nbatches = {batches_for(size)} ")):
        if old not in text:
            raise RuntimeError(f"{CONFIG} no longer says {old.strip()}; update bench/scale.py")
        text = text.replace(old, new)
    (tmp / "crowds").mkdir(exist_ok=True)  # a config's files live in its folder (flows/core/config/config.py)
    bank = CROWD.parent.parent / "items" / "vizwiz_demo_captions.csv"  # the crowd file's "../items/..." (no
    (tmp / "items").mkdir(exist_ok=True)  # symlink: a crowd file's paths stay in its folder, links followed)
    shutil.copyfile(bank, tmp / "items" / bank.name)
    crowd, funds = CROWD.read_text(), 'balance = "100000.00"'  # the simulated requester's: ~$26,000 per 39,181
    if funds not in crowd:
        raise RuntimeError(f"{CROWD} no longer says {funds}; update bench/scale.py")
    (tmp / "crowds" / CROWD.name).write_text(crowd.replace(funds, f'balance = "{100000 * size / VIZWIZ_IMAGES:.2f}"'))
    path = tmp / f"generated_{size}.toml"
    path.write_text(text)
    return path


def crowd_for(config: Path) -> Path:
    """The crowd file beside ``config`` (a scaled copy past 39,181 images, whose funds grow with the
    size; the simulator must be given this one, or a 330,000-image run runs out of money at batch 20)."""
    scaled = config.parent / "crowds" / CROWD.name
    return scaled if config != CONFIG and scaled.exists() else CROWD


def batches_for(size: int) -> int:
    """Batches of at most the 39,181 run's 7,837 images (its 5 batches); 43 at 330,000 images."""
    return VIZWIZ_BATCHES if size <= VIZWIZ_IMAGES else -(-size // BATCH_IMAGES)


def quality(truth: Any) -> dict[str, Any]:
    """Per profile: workers, who worked, who the gate kept out, who was blocked (the run's own
    table against the simulator's truth, postprocess/report_data.blocking_vs_truth).

    Honest workers wrongly blocked: blocked / worked. Bad workers caught: (blocked + kept out by
    the gate) / (worked + kept out). A worker who never worked for another reason (arrived
    after the last HIT, left before it) did no harm and is counted in neither."""
    rows = {r["profile"]: {"workers": int(r["workers"]), "worked": int(r["worked"]),
                           "gated_out": int(r["gated_out"]), "idle": int(r["never_reached"]),
                           "blocked": int(r["blocked"])}
            for r in truth.to_dict("records")}
    honest = [r for p, r in rows.items() if p in HONEST]
    bad = [r for p, r in rows.items() if p not in HONEST]
    return {"profiles": rows,
            "honest_wrongly_blocked": round(sum(r["blocked"] for r in honest)
                                            / max(1, sum(r["worked"] for r in honest)), 4),
            "bad_caught": round(sum(r["blocked"] + r["gated_out"] for r in bad)
                                / max(1, sum(r["worked"] + r["gated_out"] for r in bad)), 4)}


def posting(n_hits: int, latency_ms: float, rate: float) -> dict[str, Any]:
    """The same HITs posted under latency by a plain sequential boto3 loop and by hitflow's own
    publish step (its thread pool, every HIT written to the ledger before and after it is posted)."""
    from flows.campaigns.campaign_plan import plan_items
    from flows.core.pages.mturk_forms import html_question
    from flows.core.pages.templates import render, sample_context
    from flows.platforms.mturk import adapter as mturk
    from flows.platforms.mturk.batch_publish import POST_THREADS, publish_batch

    page = html_question(render("caption.html.j2", sample_context("caption")))
    out: dict[str, Any] = {"hits": n_hits, "latency_ms": latency_ms, "rate_limit_per_s": rate,
                           "threads": POST_THREADS}
    for how in ("sequential_boto3", "hitflow_publish"):
        with paced_run(latency_ms, rate) as (run, sim):
            if how == "sequential_boto3":
                client = run.client
                hit_type = mturk.create_hit_type(client, {"Title": "t", "Description": "d", "Reward": "0.55",
                                                          "AssignmentDurationInSeconds": 3600,
                                                          "AutoApprovalDelayInSeconds": 259200})
                start = time.perf_counter()
                for i in range(n_hits):
                    client.create_hit_with_hit_type(HITTypeId=hit_type, MaxAssignments=5, LifetimeInSeconds=86400,
                                                    Question=page, UniqueRequestToken=f"bench-{i}")
            else:  # one batch of n_hits HITs: the campaign's five batches over 25 x n_hits images
                plan_items(run, n_hits * run.cfg.images_per_hit * run.cfg.batches)
                start = time.perf_counter()
                assert publish_batch(run, 1)["posted_now"] == n_hits
            seconds = time.perf_counter() - start
            out[how] = {"seconds": round(seconds, 1), "hits_per_s": round(n_hits / seconds, 1),
                        "throttled": sim.httpd.pacing.throttled, "hits_on_platform": len(sim.market.hits)}
    out["ratio"] = round(out["hitflow_publish"]["hits_per_s"] / out["sequential_boto3"]["hits_per_s"], 2)
    out["load_avg_1m"] = round(os.getloadavg()[0], 2)
    return out


@contextmanager
def paced_run(latency_ms: float, rate: float) -> Iterator[tuple[Any, Any]]:
    """A Run of the full-scale config against a simulator that answers after ``latency_ms`` and
    throttles above ``rate`` calls per second (MTurk's ThrottlingException)."""
    from flows.campaigns.campaign_plan import Run
    from flows.campaigns.task_pages import task_page
    from flows.core.config.config import load_config
    from flows.core.ledger.store import Store
    from flows.platforms.mturk import adapter as mturk
    from flows.sim.service.pacing import Pacing
    from flows.sim.service.server import SimServer

    with tempfile.TemporaryDirectory() as tmp, SimServer(seed=5, crowd_file=CROWD) as sim:
        sim.httpd.pacing = Pacing(latency_ms, rate)
        target = mturk.Target("sim", sim.url)

        def wait(seconds: float) -> None:  # the virtual clock moves on; no real waiting
            sim.market.advance(seconds)

        yield Run(load_config(CONFIG), Store(Path(tmp) / "ledger.db"), mturk.make_client(target), target,
                  lambda _m: None, wait, page=task_page), sim


def paced_campaign(images: int, latency_ms: float, rate: float) -> dict[str, Any]:
    """A whole campaign under latency and throttling: what publish, collection and decisions cost
    when every call takes a network round trip."""
    from flows.driver.campaign import run_batches

    phases: dict[str, float] = defaultdict(float)

    def call(name: str, fn: Any, run: Any, batch: int) -> dict[str, Any]:
        return _timed(phases, STEP_PHASES.get(name.rsplit(" ", 1)[0], "other"), fn)(run, batch)  # type: ignore[no-any-return]

    with paced_run(latency_ms, rate) as (run, sim):
        start = time.perf_counter()
        run_batches(run, call, images)
        total = time.perf_counter() - start
        calls, throttled = sim.market.calls, sim.httpd.pacing.throttled
    return {"images": images, "latency_ms": latency_ms, "rate_limit_per_s": rate, "wall_s": round(total, 1),
            "phases_s": {k: round(v, 1) for k, v in sorted(phases.items())}, "platform_calls": calls,
            "throttled": throttled, "load_avg_1m": round(os.getloadavg()[0], 2)}


def markdown_table(results: dict[str, Any]) -> str:
    """The README's tables: one row per run, quality per profile, then the runs under latency."""
    phases = ["plan", "publish", "collect", "qc", "decide", "block", "outputs", "other"]
    lines = ["| images | seed | batches (images each) | wall s | " + " | ".join(phases) + " | peak RSS MB | CPU s "
             "| platform calls | workers | load (1 min) | honest wrongly blocked | bad caught | simulator peak RSS MB "
             "| simulator CPU s |", "|" + "---|" * (len(phases) + 13)]
    for r in results["runs"]:
        if "error" in r:
            lines.append(f"| {r['images']} | {r['seed']} | failed: {' '.join(r['error'])} |")
            continue
        q = r["quality"]
        batches = f"{r['batches']} ({r['images_per_batch']:,})" if "batches" in r else "5"
        lines.append(f"| {r['images']:,} | {r['seed']} | {batches} | {r['wall_s']} | "
                     + " | ".join(str(r["phases_s"].get(p, 0)) for p in phases)
                     + f" | {r['peak_rss_mb']} | {r.get('cpu_s', '')} | {r['platform_calls']:,} | {r['workers']:,} "
                     f"| {r['load_avg_1m']} | {q['honest_wrongly_blocked']:.1%} | {q['bad_caught']:.1%} "
                     f"| {r.get('sim_peak_rss_mb', 'in-process')} | {r.get('sim_cpu_s', '')} |")
    lines += ["", profile_table(results["runs"])]
    if p := results.get("posting"):
        lines += ["", f"Posting {p['hits']:,} HITs at {p['latency_ms']:g} ms per call, rate limit "
                  f"{p['rate_limit_per_s']:g}/s (load {p['load_avg_1m']}): sequential boto3 loop "
                  f"{p['sequential_boto3']['hits_per_s']} HITs/s, hitflow's publish step ({p['threads']} threads, "
                  f"ledger writes included) {p['hitflow_publish']['hits_per_s']} HITs/s "
                  f"({p['hitflow_publish']['throttled']} throttled calls retried): **{p['ratio']}x**."]
    if c := results.get("paced_campaign"):
        lines += ["", f"A whole {c['images']:,}-image campaign at {c['latency_ms']:g} ms per call, rate limit "
                  f"{c['rate_limit_per_s']:g}/s (load {c['load_avg_1m']}): {c['wall_s']} s, "
                  + ", ".join(f"{k} {v} s" for k, v in c["phases_s"].items() if v)
                  + f"; {c['platform_calls']:,} calls, {c['throttled']} throttled."]
    return "\n".join(lines)


def profile_table(runs: list[dict[str, Any]]) -> str:
    """Per profile, summed over every run: workers who worked, kept out by the filters, blocked."""
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in runs:
        for profile, row in r.get("quality", {}).get("profiles", {}).items():
            for key in ("worked", "gated_out", "blocked"):
                totals[profile][key] += row[key]
    lines = ["| profile (all runs) | worked | kept out by filters | blocked | |", "|---|---|---|---|---|"]
    for profile, t in sorted(totals.items(), key=lambda kv: (kv[0] not in HONEST, kv[0])):
        judged = t["worked"] + (0 if profile in HONEST else t["gated_out"])
        caught = t["blocked"] + (0 if profile in HONEST else t["gated_out"])
        what = "wrongly blocked" if profile in HONEST else "caught"
        lines.append(f"| {profile} | {t['worked']} | {t['gated_out']} | {t['blocked']} "
                     f"| {caught / max(1, judged):.1%} {what} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--one", nargs=2, type=int, metavar=("IMAGES", "SEED"), help="child: one run, JSON to stdout")
    ap.add_argument("--keep", default="", metavar="DIR", help="with --one: keep the run's ledger and outputs in DIR")
    ap.add_argument("--sizes", default="500,4000,39181,330000", help="images per run (330000: COCO's size)")
    ap.add_argument("--seeds", default="1,2,3", help="seeds for the sizes under VizWiz's 39,181 images")
    ap.add_argument("--full-seeds", default="1", help="seeds for 39,181 images and over")
    ap.add_argument("--post-hits", type=int, default=1000)
    ap.add_argument("--paced-images", type=int, default=1000, help="a whole campaign under latency (0: none)")
    ap.add_argument("--latency-ms", type=float, default=150.0)
    ap.add_argument("--rate-limit", type=float, default=50.0)
    ap.add_argument("--update", action="store_true",
                    help="keep results-scale.json; replace only what runs now (--post-hits 0: no posting)")
    ap.add_argument("--table", action="store_true", help="print the README table from results-scale.json")
    a = ap.parse_args()
    if a.table:
        print(markdown_table(json.loads(RESULTS.read_text())))
        return
    if a.one:
        print(json.dumps(run_one(a.one[0], a.one[1], keep=a.keep)))
        return
    results: dict[str, Any] = json.loads(RESULTS.read_text()) if a.update else {"runs": []}
    results["machine"] = machine()
    sizes = [int(s) for s in a.sizes.split(",") if int(s)]
    for size in sizes:
        for seed in (a.full_seeds if size >= VIZWIZ_IMAGES else a.seeds).split(","):
            run = child_run(size, int(seed))
            results["runs"] = sorted([r for r in results["runs"] if (r["images"], r["seed"]) != (size, int(seed))]
                                     + [run], key=lambda r: (r["images"], r["seed"]))
            save(results, run)
    if a.post_hits:
        results["posting"] = posting(a.post_hits, a.latency_ms, a.rate_limit)
        save(results, results["posting"])
    if a.paced_images:
        results["paced_campaign"] = paced_campaign(a.paced_images, a.latency_ms, a.rate_limit)
        save(results, results["paced_campaign"])


def child_run(size: int, seed: int) -> dict[str, Any]:
    """One run in its own process, so its peak RSS is its own; its progress passes through to stderr
    (a 330,000-image run is read while it runs)."""
    child = subprocess.Popen([sys.executable, "-m", "bench.scale", "--one", str(size), str(seed)], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    last: list[str] = []
    assert child.stderr is not None and child.stdout is not None
    for line in child.stderr:
        print(line, end="", file=sys.stderr, flush=True)
        last = [line.strip()] if line.strip() else last
    out = child.stdout.read()
    if child.wait():
        return {"images": size, "seed": seed, "error": last}
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def machine() -> dict[str, Any]:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "?") if Path("/proc/cpuinfo").exists() else "?"
    return {"cpus": os.cpu_count(), "cpu": model, "python": sys.version.split()[0],
            "note": "the campaign and its ledger in one process, the simulator in another (bench/sim_process.py); "
                    "the host's 2 cores are shared with other jobs, so each figure carries the 1-minute load average "
                    "at its end"}


def save(results: dict[str, Any], latest: dict[str, Any]) -> None:
    """Print the latest figure and keep the file current (a long run stopped early keeps what it has)."""
    print(json.dumps(latest), flush=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
