"""How well a run's plan predicts the time people take on a page of one's own, on every route.

Three pages a user would write (bench/timing_pages/: a one-item slider, two "which photo is sharper" pairs with a
reason, five reviews' sentiment), each imported with ``hitflow new NAME --from PAGE --items CSV`` in a folder of its
own, ``images_per_hit`` set to the page's items, and run as written (the plan ``hitflow new`` writes: MTurk's reward
and assignment duration, the [prolific] figures from the page) on the simulator on MTurk, Prolific and invite links.
Per route it prints the honest people's median time (simulated profiles in HONEST_PROFILES, from the run's
sim_workers.json) against the plan's estimate (MTurk and links: the page's minutes, as the dry run says them;
Prolific: the study's estimated_completion_time and, with items bundled, its items a place), the honest submissions
Prolific timed out, and the hourly pay by the median against Prolific's floor.

Run: ``python -m bench.timing_pages`` (about 20 s a page and route on 2 cores); ``--pages slider`` for one,
``--per-page slider=2`` for the items a page the dry run's whole-minute note names; ``--keep`` leaves the folders."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
from pathlib import Path

from flows.core.config.prolific_section import PROLIFIC_MIN_HOURLY
from flows.sim.people.crowd_model import HONEST_PROFILES

HERE = Path(__file__).resolve().parent / "timing_pages"
PAGES = {"slider": 1, "sharper": 2, "sentiment": 5}  # page -> items a page
ROUTES = ("mturk", "prolific", "links")


def hitflow(cwd: Path, *args: str) -> str:
    done = subprocess.run(["hitflow", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"hitflow {' '.join(args)} (exit {done.returncode}): {(done.stderr or done.stdout)[-400:]}")
    return done.stdout + done.stderr


def imported(root: Path, page: str, items: int) -> Path:
    """``hitflow new`` in a folder of its own, the page's items a page set as a user sets them."""
    root.mkdir(parents=True)
    for f in (f"{page}.html", f"{page}_items.csv"):
        shutil.copy(HERE / f, root / f)
    hitflow(root, "new", page, "--from", f"{page}.html", "--items", f"{page}_items.csv")
    config = root / "config" / f"{page}.toml"
    text = re.sub(r"(?m)^images_per_hit = \d+", f"images_per_hit = {items}", config.read_text(encoding="utf-8"))
    config.write_text(text, encoding="utf-8")
    return config


def measured(root: Path, page: str, route: str) -> dict[str, float | int | str]:
    """Run the route and read its honest times (accept to submit) and Prolific's time-outs from the ledger."""
    from flows.campaigns.page_plan import unit_line
    from flows.campaigns.task_kinds import load_campaign

    out = hitflow(root, "run", f"config/{page}.toml", "--no-prefect", "--platform", route)
    cfg = load_campaign(str(root / "config" / f"{page}.toml"))
    workers = json.loads((root / "runs" / page / "sim_workers.json").read_text(encoding="utf-8"))
    profile = {w["worker_id"]: w["profile"] for w in workers}
    db = sqlite3.connect(root / "runs" / "hitflow.db")
    rows = db.execute("SELECT worker_id, submit_time - accept_time FROM assignments WHERE campaign = ? AND "
                      "submit_time IS NOT NULL AND accept_time IS NOT NULL", [page]).fetchall()
    honest = [s / 60 for w, s in rows if profile.get(w.removeprefix("invite:")) in HONEST_PROFILES]
    out_rows = db.execute("SELECT participant_id FROM platform_submissions WHERE campaign = ? AND status = "
                          "'TIMED-OUT'", [page]).fetchall()
    subs = db.execute("SELECT count(*) FROM platform_submissions WHERE campaign = ?", [page]).fetchone()[0]
    minutes = unit_line(cfg)[1]
    p = cfg.prolific
    estimate = float(p.estimated_minutes) if route == "prolific" else minutes
    reward = float(p.reward) if route == "prolific" else float(cfg.reward)
    median = statistics.median(honest) if honest else float("nan")
    slow_out = [profile.get(pid, "?") for (pid,) in out_rows]
    return {"route": route, "n": len(honest), "median": median, "estimate": estimate, "ratio": median / estimate,
            "timed_out": sum(pr in HONEST_PROFILES for pr in slow_out), "subs": subs,
            "out_profiles": ",".join(sorted(set(slow_out))), "hourly": reward * 60 / median if honest else 0.0,
            "maximum": p.maximum_minutes if route == "prolific" else cfg.assignment_duration_s / 60,
            "items": cfg.images_per_hit, "said": "; ".join(re.findall(r"(?m)^(?:the plan|warning|note):.*$", out))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", nargs="*", default=list(PAGES), choices=list(PAGES))
    ap.add_argument("--routes", nargs="*", default=list(ROUTES), choices=list(ROUTES))
    ap.add_argument("--per-page", nargs="*", default=[], metavar="PAGE=N", help="items a page other than PAGES's")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    per_page = {**PAGES, **{k: int(v) for k, v in (x.split("=") for x in a.per_page)}}
    base = Path(tempfile.mkdtemp(prefix="timing-pages-"))
    floor = float(PROLIFIC_MIN_HOURLY["GBP"])
    print(f"{'page':10} {'route':8} {'items':>5} {'honest':>6} {'median':>7} {'estimate':>8} {'ratio':>6} "
          f"{'max':>5} {'timed out':>9} {'pay/h':>7}")
    worst = 0.0
    try:
        for page in a.pages:
            for route in a.routes:
                root = base / f"{page}-{route}"
                imported(root, page, per_page[page])
                m = measured(root, page, route)
                worst = max(worst, abs(float(m["ratio"]) - 1))
                pay = f"{m['hourly']:.2f}" + ("" if route != "prolific" else " ok" if m["hourly"] >= floor else " LOW")
                print(f"{page:10} {route:8} {m['items']:>5} {m['n']:>6} {m['median']:>7.2f} {m['estimate']:>8.2f} "
                      f"{m['ratio']:>6.2f} {m['maximum']:>5.0f} {str(m['timed_out']) + '/' + str(m['subs']):>9} "
                      f"{pay:>7}  {m['out_profiles']}", flush=True)
                if m["said"]:
                    print(f"    {m['said']}", flush=True)
        print(f"worst |median/estimate - 1|: {worst:.2f} (done-when: under 0.25 on every route)")
    finally:
        if a.keep:
            print(f"kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
