"""``python -m bench.controls_first``: controls where they count, on pages of our own (bench/controls_pages/),
imported as a new user imports them, with a controls file and the items' known answers, on the MTurk and
Prolific simulators (``--routes`` adds links) with the default crowd. Per page, page size and route, summed over
``--seeds``, judged against the simulator's truth:

- the quiz (``[answers] quiz``): its size and pass mark, bad and honest workers who took it and failed;
- contrarian and random-clicking workers (speeder, canned abuser) with 2 or more pages, or stopped by the quiz
  before a second, and those caught (failed the quiz, any of their work flagged or rejected, or blocked); apart,
  those who passed the quiz (or took none) and worked 2 or more pages, and those of them caught;
- honest workers blocked or failing the quiz, and honest workers with any work unpaid (rejected);
- honest workers' accuracy on control items beside their accuracy on the other known-answer items.

Nothing here is a test; figures go to stdout."""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.newcomer_kit import edit_config

HERE = Path(__file__).resolve().parent / "controls_pages"
TARGETS = ("contrarian", "speeder", "canned_abuser")
ROUTES = ("mturk", "prolific")


@dataclass(frozen=True)
class Page:
    file: str
    column: str  # the item column the page shows
    rows: tuple[tuple[str, dict[str, str]], ...]  # (text, {field: answer}), cycled over the items


PAGES = {
    "animal_kind": Page("animal_kind.html", "description", (
        ("It has fur, feeds its young on milk and sleeps in a burrow.", {"group": "mammal"}),
        ("It has feathers and a beak, and lays eggs in a nest of twigs.", {"group": "bird"}),
        ("It breathes through gills and swims with its fins in cold rivers.", {"group": "fish"}),
        ("A large grazer with hooves that gives birth to live calves.", {"group": "mammal"}),
        ("It flies south every winter and sings at dawn from the hedges.", {"group": "bird"}),
        ("It has scales, lives on the sea floor and hides in the sand.", {"group": "fish"}))),
    "weather_one": Page("weather_one.html", "report", (
        ("Clear skies all day and a high of 28 degrees.", {"weather": "sunny"}),
        ("Heavy showers from noon, with puddles on every road.", {"weather": "rainy"}),
        ("Ten centimetres of fresh snow closed the mountain pass.", {"weather": "snowy"}),
        ("Gusts of 80 km/h tore branches from the trees.", {"weather": "windy"}))),
    "dish_tags": Page("dish_tags.html", "summary", (
        ("A cold soup of tomato and cucumber served before the meal.", {"course": "starter", "contains": ""}),
        ("Roast beef with a cream sauce and bread on the side.", {"course": "main", "contains": "dairy|gluten|meat"}),
        ("A chocolate cake with walnuts and whipped cream.", {"course": "dessert", "contains": "dairy|gluten|nuts"}),
        ("Grilled chicken skewers with a peanut dip.", {"course": "main", "contains": "meat|nuts"}))),
}
SETUPS = (("animal_kind", 1), ("animal_kind", 2), ("animal_kind", 5), ("weather_one", 1), ("dish_tags", 2))


def rows(page: Page, n: int, start: int = 0) -> list[tuple[str, str, dict[str, str]]]:
    k = len(page.rows)
    return [(f"it-{i + 1:04d}", *page.rows[(i // k + i) % k]) for i in range(start, start + n)]


def prepare(folder: Path, name: str, items: int, per_page: int, controls_cap: int = 0) -> Path:
    from flows.custom.scaffold_import import scaffold_from

    page = PAGES[name]
    source = folder / page.file
    shutil.copyfile(HERE / page.file, source)
    fields = list(page.rows[0][1])
    item_file = folder / f"{name}_items.csv"
    with item_file.open("w", newline="", encoding="utf-8") as f:  # known answers the page never shows
        csv.writer(f).writerows([["item_id", page.column, *[f"known_{x}" for x in fields]]]
                                + [[i, t, *a.values()] for i, t, a in rows(page, items)])
    config = scaffold_from(name, source, folder, items=item_file)[0][0]
    controls = config.parent / f"{name}_controls.csv"
    with controls.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["item_id", "field", "answer", page.column]]
                                + [[i, x, a[x], t] for i, t, a in rows(page, controls_cap or 2 * items, start=items)
                                   for x in fields])
    truth = ", ".join(f'{x} = "known_{x}"' for x in fields)
    config.write_text(config.read_text(encoding="utf-8").replace("\nseed = 1", f"\ntruth = {{{truth}}}\nseed = 1"),
                      encoding="utf-8")
    missing = edit_config(config, {"batches": "3", "assignments_per_image": "3", "images_per_hit": str(per_page),
                                   "budget": '"100000.00 USD"', "controls": f'"{controls.name}"',
                                   "control_share": "0.2"})
    if missing:
        raise RuntimeError(f"the imported config has no {missing}")
    return config


def run_route(config: Path, folder: Path, platform: str, items: int, seed: int) -> dict[str, Any]:
    from flows.core.config.config import load_config
    from flows.driver.campaign_run import run_campaign

    cfg = load_config(config)
    db_path, out, sim = folder / f"{platform}.db", folder / f"out-{platform}", folder / f"sim-{platform}"
    run_campaign(config, db_path=db_path, out_root=out, limit=items, seed=seed, platform=platform,
                 progress=lambda _m: None, sim_state=sim)
    truth = json.loads((out / cfg.name / "sim_workers.json").read_text(encoding="utf-8"))
    profiles = {w["worker_id"]: w["profile"] for w in truth}
    profiles |= {f"invite:{w}": p for w, p in profiles.items()}  # an invitee's id on the links route
    with sqlite3.connect(db_path) as db:
        quiz = json.loads(db.execute("SELECT config_json FROM campaigns").fetchone()[0]).get("quiz")
        judged = judge(db, cfg.name, profiles, quiz_scores(db, quiz) if platform == "mturk" else None)
        judged |= accuracy(db, cfg.name, profiles, folder)
    judged["quiz"] = f"{len(quiz['key'])}/{quiz['mark']}" if quiz else "none"
    return judged


def quiz_scores(db: sqlite3.Connection, quiz: dict[str, Any] | None) -> dict[str, bool]:
    """MTurk: each worker who took the quiz qualification test, and whether they passed (hitflow judges the quiz's
    requests and keeps each taker's verdict in the ledger)."""
    if not quiz:
        return {}
    return {w: bool(p) for w, p in db.execute("SELECT worker_id, passed FROM qualification_scores WHERE mode = "
                                               "'control_quiz'")}


def judge(db: sqlite3.Connection, campaign: str, profiles: dict[str, str],
          mturk_quiz: dict[str, bool] | None) -> dict[str, Any]:
    from flows.sim.people.crowd_model import HONEST_PROFILES

    pages: dict[str, int] = {}
    for (worker,) in db.execute("SELECT worker_id FROM assignments WHERE campaign = ? AND batch > 0", [campaign]):
        pages[worker] = pages.get(worker, 0) + 1
    flagged = {r[0] for r in db.execute("SELECT worker_id FROM qc_flags WHERE campaign = ? AND rule NOT IN "
                                        "('random_sample', 'rule_info')", [campaign])}
    unpaid = {r[0] for r in db.execute("SELECT a.worker_id FROM decisions d JOIN assignments a ON a.assignment_id = "
                                       "d.assignment_id AND a.campaign = d.campaign WHERE d.campaign = ? AND "
                                       "d.action = 'reject'", [campaign])}
    blocks = dict(db.execute("SELECT worker_id, rules FROM blocks WHERE campaign = ?", [campaign]).fetchall())
    failed = {w for w, ok in (mturk_quiz or {}).items() if not ok} | {
        w for w, r in blocks.items()
        if r.startswith("control_quiz") or (r.startswith("control_test") and pages.get(w) == 1)}
    took = set(mturk_quiz or {}) | {w for w in pages if mturk_quiz is None}
    bad, honest = (lambda w: profiles.get(w) in TARGETS), (lambda w: profiles.get(w) in HONEST_PROFILES)
    targets = {w for w in pages if bad(w) and pages[w] >= 2} | {w for w in failed if bad(w)}
    caught = {w for w in targets if w in failed or w in flagged or w in unpaid or w in blocks}
    worked = {w for w in pages if honest(w)}
    worked_on = {w for w in pages if bad(w) and pages[w] >= 2 and w not in failed}  # passed the quiz, or took none
    return {"passed_2p": len(worked_on), "passed_2p_caught": len(worked_on & caught),
            "bad_took": sum(map(bad, took)), "bad_failed": sum(map(bad, failed)),
            "honest_took": sum(map(honest, took)), "honest_failed": sum(map(honest, failed)),
            "targets": len(targets), "caught": len(caught),
            "missed": sorted(f"{profiles[w]}:{pages.get(w, 0)}p" for w in targets - caught),
            "honest_blocked": sum(map(honest, blocks)), "honest": len(worked),
            "honest_paid": len(worked - unpaid)}


def accuracy(db: sqlite3.Connection, campaign: str, profiles: dict[str, str], folder: Path) -> dict[str, Any]:
    """Honest workers' answers equal to the known answer: on control items, on the other known-answer items."""
    from flows.sim.people.crowd_model import HONEST_PROFILES

    known: dict[tuple[str, str], tuple[str, bool]] = {}
    for path, control in ((next(folder.glob("config/*_controls.csv")), True),
                          (next(folder.glob("*_items.csv")), False)):
        with path.open(newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                for field, answer in ([(r["field"], r["answer"])] if control else
                                      [(k[6:], v) for k, v in r.items() if k.startswith("known_")]):
                    known[(r["item_id"], field)] = (answer, control)
    tally = {True: [0, 0], False: [0, 0]}
    for worker, item, field, value in db.execute(
            "SELECT a.worker_id, x.item_id, x.field, x.value FROM answers x JOIN assignments a ON a.campaign = "
            "x.campaign AND a.assignment_id = x.assignment_id WHERE a.campaign = ?", [campaign]):
        if profiles.get(worker) in HONEST_PROFILES and (item, field) in known:
            answer, control = known[(item, field)]
            tally[control][0] += sorted(value.split("|")) == sorted(answer.split("|")) if "|" in value + answer \
                else value.strip() == answer
            tally[control][1] += 1
    return {"controls_right": tally[True], "known_right": tally[False]}


def add(total: dict[str, Any], one: dict[str, Any]) -> None:
    for k, v in one.items():
        if isinstance(v, int):
            total[k] = total.get(k, 0) + v
        elif isinstance(v, list) and v and isinstance(v[0], int):
            total[k] = [a + b for a, b in zip(total.get(k, [0, 0]), v, strict=True)]
        elif isinstance(v, list):
            total[k] = total.get(k, []) + v
        else:
            total[k] = v


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=36)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--routes", default=",".join(ROUTES))
    parser.add_argument("--controls", type=int, default=0,
                        help="control items in the file (default: twice the items; a user's file holds 10-12)")
    parser.add_argument("--pages", default=",".join(f"{n}:{k}" for n, k in SETUPS), help="page:items_per_page,...")
    args = parser.parse_args()
    for setup in args.pages.split(","):
        name, per_page = setup.split(":")
        for route in args.routes.split(","):
            total: dict[str, Any] = {}
            for seed in range(1, args.seeds + 1):
                with tempfile.TemporaryDirectory(prefix="controls-") as tmp:
                    config = prepare(Path(tmp), name, args.items, int(per_page), args.controls)
                    add(total, run_route(config, Path(tmp), route, args.items, seed))
            t = total
            print(f"{name} {per_page}/page {route:<8} quiz {t['quiz']} (size/pass): bad failed {t['bad_failed']}/"
                  f"{t['bad_took']}, honest failed {t['honest_failed']}/{t['honest_took']} | bad caught "
                  f"{t['caught']}/{t['targets']} (missed: {', '.join(t['missed']) or 'none'}; of those with 2+ pages "
                  f"after the quiz {t['passed_2p_caught']}/{t['passed_2p']}) | honest blocked "
                  f"{t['honest_blocked']}, paid {t['honest_paid']}/{t['honest']} | honest right on controls "
                  f"{t['controls_right'][0]}/{t['controls_right'][1]}, on other known items "
                  f"{t['known_right'][0]}/{t['known_right'][1]}", flush=True)


if __name__ == "__main__":
    main()
