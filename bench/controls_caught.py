"""``python -m bench.controls_caught``: controls where they count, on the tuning pages with control items and a
controls file the size users write (10-15 items): bench/controls_pages/ (``--controls`` items, default 12) and
the two pages of bench/gate_pages/ with controls (half as many control items as items, at least 6), on the MTurk
and Prolific simulators with the default crowd, summed over ``--seeds``. Per page and route: contrarian and
random-clicking workers with 2 or more pages (or stopped by the quiz before a second) and those caught
(bench/controls_first.py's ``judge``), those blocked, honest workers blocked, and bad-profile assignments approved
unnoticed (bench/gate_bench.py's ``judge``). Nothing here is a test; figures go to stdout."""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from bench import controls_first, gate_bench, gate_setup

SETUPS = ("animal_kind:1", "weather_one:1", "dish_tags:2", "caption_rating:1", "review_sentiment:4", "spam_check:1")
PAGES2 = Path(__file__).resolve().parent / "gate_pages2"


def prepare_spam_check(folder: Path, items: int) -> Path:
    """bench/gate_pages2/spam_check imported as a user imports it, with its own controls file (10 items)."""
    from bench.newcomer_kit import edit_config
    from flows.custom.scaffold_import import scaffold_from

    for name in ("spam_check.html", "spam_check_items.csv"):
        shutil.copyfile(PAGES2 / name, folder / name)
    items_file = folder / "spam_check_items.csv"
    config = scaffold_from("spam_check", folder / "spam_check.html", folder, items=items_file)[0][0]
    shutil.copyfile(PAGES2 / "spam_check_controls.csv", config.parent / "spam_check_controls.csv")
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("\nseed = 1", '\ntruth = {spam = "gold_spam"}\nseed = 1'), encoding="utf-8")
    missing = edit_config(config, {"batches": "3", "assignments_per_image": "3", "images_per_hit": "1",
                                   "budget": '"100000.00 USD"', "controls": '"spam_check_controls.csv"',
                                   "control_share": "0.2"})
    if missing:
        raise RuntimeError(f"the imported config has no {missing}")
    return config


def one_run(name: str, per_page: int, route: str, items: int, seed: int, cap: int) -> dict[str, Any]:
    from flows.core.config.config import load_config
    from flows.driver.campaign_run import run_campaign
    from flows.sim.people.crowd_model import HONEST_PROFILES

    with tempfile.TemporaryDirectory(prefix="caught-") as tmp:
        folder = Path(tmp)
        gate_page = next((p for p in gate_setup.PAGES if p.name == name), None)
        size = items * per_page
        config = gate_setup.prepare(gate_page, folder, size) if gate_page else prepare_spam_check(folder, size) \
            if name == "spam_check" else controls_first.prepare(folder, name, size, per_page, cap)
        cfg = load_config(config)
        db_path, out, sim = folder / f"{route}.db", folder / f"out-{route}", folder / f"sim-{route}"
        run_campaign(config, db_path=db_path, out_root=out, limit=size, seed=seed, platform=route,
                     progress=lambda _m: None, sim_state=sim)
        truth = json.loads((out / cfg.name / "sim_workers.json").read_text(encoding="utf-8"))
        profiles = {w["worker_id"]: w["profile"] for w in truth}
        with sqlite3.connect(db_path) as db:
            quiz = json.loads(db.execute("SELECT config_json FROM campaigns").fetchone()[0]).get("quiz")
            caught = controls_first.judge(db, cfg.name, profiles,
                                          controls_first.quiz_scores(db, quiz) if route == "mturk" else None)
            blocked = {r[0] for r in db.execute("SELECT worker_id FROM blocks WHERE campaign = ?", [cfg.name])}
            db.row_factory = sqlite3.Row
            gate = gate_bench.judge(db, cfg.name, profiles, set(HONEST_PROFILES), ())
        pages: dict[str, int] = {}
        for a in gate_bench_work(db_path, cfg.name):
            pages[a] = pages.get(a, 0) + 1
        bad = {w for w in pages if profiles.get(w) in controls_first.TARGETS}
        failed_quiz = {w for w, ok in controls_first.quiz_scores(db, quiz).items() if not ok} if route == "mturk" \
            else set()
        # blocked or stopped: of those with 2+ pages, or stopped (blocked, or failed MTurk's quiz) before a second
        targets = {w for w in bad if pages[w] >= 2} | (bad & blocked) | {w for w in failed_quiz
                                                                         if profiles.get(w) in controls_first.TARGETS}
        loose = sorted(f"{profiles[w]}:{pages.get(w, 0)}p" for w in targets - blocked - failed_quiz)
        return {**caught, "targets_blocked": len(targets & (blocked | failed_quiz)), "stop_targets": len(targets),
                "not_stopped": loose,
                "bad_assignments": gate["bad_assignments"],
                "unnoticed": gate["unnoticed"], "quiz": f"{len(quiz['key'])}/{quiz['mark']}" if quiz else "none"}


def gate_bench_work(db_path: Path, campaign: str) -> list[str]:
    with sqlite3.connect(db_path) as db:
        return [r[0] for r in db.execute("SELECT worker_id FROM assignments WHERE campaign = ? AND batch > 0",
                                         [campaign])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=30, help="pages a campaign (default 30)")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--routes", default="mturk,prolific")
    parser.add_argument("--pages", default=",".join(SETUPS))
    parser.add_argument("--controls", type=int, default=12)
    args = parser.parse_args()
    for setup in args.pages.split(","):
        name, per_page = setup.split(":")
        for route in args.routes.split(","):
            t: dict[str, Any] = {}
            for seed in map(int, args.seeds.split(",")):
                controls_first.add(t, one_run(name, int(per_page), route, args.items, seed, args.controls))
            share = f"{100 * t['unnoticed'] / t['bad_assignments']:.0f}%" if t["bad_assignments"] else "n/a"
            print(f"{name} {per_page}/page {route:<8} quiz {t['quiz']} | bad 2+p caught {t['caught']}/{t['targets']} "
                  f"(missed: {', '.join(t['missed']) or 'none'}) | blocked or stopped {t['targets_blocked']}/"
                  f"{t['stop_targets']} (not: {', '.join(t['not_stopped']) or 'none'}) | quiz failed bad "
                  f"{t['bad_failed']}/{t['bad_took']} honest {t['honest_failed']}/{t['honest_took']} | honest blocked "
                  f"{t['honest_blocked']} of {t['honest']} | unnoticed {t['unnoticed']}/{t['bad_assignments']} "
                  f"({share})", flush=True)


if __name__ == "__main__":
    main()
