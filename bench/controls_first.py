"""``python -m bench.controls_first``: controls where they count, on a page of our own (bench/controls_pages/),
imported as a new user imports it, with a controls file, on the MTurk, Prolific and links simulators with the
default crowd. Per route it prints, judged against the simulator's truth:

- contrarian and random-clicking workers (speeder, canned abuser) with 2 or more pages, and those caught (any of
  their work flagged or rejected, or the worker blocked);
- honest workers blocked;
- workers stopped on their control answers, and whether any of their answers is in dataset.csv or answers.csv.

Nothing here is a test; figures go to stdout."""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from bench.newcomer_kit import edit_config

HERE = Path(__file__).resolve().parent / "controls_pages"
ANIMALS = [("mammal", "It has fur, feeds its young on milk and sleeps in a burrow."),
           ("bird", "It has feathers and a beak, and lays eggs in a nest of twigs."),
           ("fish", "It breathes through gills and swims with its fins in cold rivers."),
           ("mammal", "A large grazer with hooves that gives birth to live calves."),
           ("bird", "It flies south every winter and sings at dawn from the hedges."),
           ("fish", "It has scales, lives on the sea floor and hides in the sand.")]
TARGETS = ("contrarian", "speeder", "canned_abuser")
ROUTES = ("mturk", "prolific", "links")


def rows(n: int, start: int = 0) -> list[tuple[str, str, str]]:
    return [(f"an-{k + 1:04d}", *ANIMALS[(k // len(ANIMALS) + k) % len(ANIMALS)]) for k in range(start, start + n)]


def prepare(folder: Path, items: int, per_page: int) -> Path:
    from flows.custom.scaffold_import import scaffold_from

    source = folder / "animal_kind.html"
    shutil.copyfile(HERE / source.name, source)
    item_file = folder / "animal_kind_items.csv"
    with item_file.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["item_id", "description"]] + [[i, d] for i, _, d in rows(items)])
    config = scaffold_from("animal_kind", source, folder, items=item_file)[0][0]
    controls = config.parent / "animal_kind_controls.csv"
    with controls.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["item_id", "field", "answer", "description"]]
                                + [[i, "group", a, d] for i, a, d in rows(items, start=items)])
    missing = edit_config(config, {"batches": "3", "assignments_per_image": "3", "images_per_hit": str(per_page),
                                   "budget": '"100000.00 USD"', "controls": f'"{controls.name}"',
                                   "control_share": "0.2"})
    if missing:
        raise RuntimeError(f"the imported config has no {missing}")
    return config


def run_route(config: Path, folder: Path, platform: str, items: int, seed: int) -> dict[str, Any]:
    from flows.core.config.config import load_config
    from flows.driver.campaign_run import run_campaign
    from flows.sim.people.crowd_model import HONEST_PROFILES

    cfg = load_config(config)
    db_path, out = folder / f"{platform}.db", folder / f"out-{platform}"
    run_campaign(config, db_path=db_path, out_root=out, limit=items, seed=seed, platform=platform,
                 progress=lambda _m: None, sim_state=folder / f"sim-{platform}")
    truth = json.loads((out / cfg.name / "sim_workers.json").read_text(encoding="utf-8"))
    profiles = {w["worker_id"]: w["profile"] for w in truth}
    profiles |= {f"invite:{w}": p for w, p in profiles.items()}  # an invitee's id on the links route
    with sqlite3.connect(db_path) as db:
        judged = judge(db, cfg.name, profiles, set(HONEST_PROFILES))
    judged["stopped_in_outputs"] = in_outputs(out / cfg.name, judged.pop("stopped_ids"))
    return judged


def judge(db: sqlite3.Connection, campaign: str, profiles: dict[str, str], honest: set[str]) -> dict[str, Any]:
    pages: dict[str, int] = {}
    for (worker,) in db.execute("SELECT worker_id FROM assignments WHERE campaign = ? AND batch > 0", [campaign]):
        pages[worker] = pages.get(worker, 0) + 1
    why: dict[str, set[str]] = {}
    for worker, rule in db.execute("SELECT worker_id, rule FROM qc_flags WHERE campaign = ? AND rule NOT IN "
                                   "('random_sample', 'rule_info')", [campaign]):
        why.setdefault(worker, set()).add(rule)
    flagged = set(why) | {r[0] for r in db.execute("SELECT a.worker_id FROM decisions d JOIN assignments a ON "
                                         "a.assignment_id = d.assignment_id AND a.campaign = d.campaign WHERE "
                                         "d.campaign = ? AND d.action = 'reject'", [campaign])}
    blocks = {r[0]: r[1] for r in db.execute("SELECT worker_id, rules FROM blocks WHERE campaign = ?", [campaign])}
    targets = [w for w, n in pages.items() if profiles.get(w) in TARGETS and n >= 2]
    caught = [w for w in targets if w in flagged or w in blocks]
    by = [f"{profiles[w]}:{pages[w]}p:{'+'.join(sorted(why.get(w, set())))}"
          f"{':BLOCK ' + blocks[w] if w in blocks else ''}" for w in caught]
    return {"targets": len(targets), "caught": len(caught), "by": sorted(by),
            "missed": sorted(f"{profiles[w]}:{pages[w]}p" for w in targets if w not in caught),
            "honest_blocked": sum(profiles.get(w) in honest for w in blocks),
            "stopped_ids": sorted(w for w, rules in blocks.items() if "control" in rules or "skill" in rules)}


def in_outputs(out: Path, stopped: list[str]) -> dict[str, int]:
    found = {}
    for name in ("dataset.csv", "answers.csv"):
        path = out / name
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        found[name] = sum(w in text for w in stopped)
    return {"stopped": len(stopped), **found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=48)
    parser.add_argument("--per-page", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--routes", default=",".join(ROUTES))
    args = parser.parse_args()
    for route in args.routes.split(","):
        with tempfile.TemporaryDirectory(prefix="controls-") as tmp:
            config = prepare(Path(tmp), args.items, args.per_page)
            r = run_route(config, Path(tmp), route, args.items, args.seed)
        print(f"{route:<9} caught {r['caught']} of {r['targets']} contrarian/random workers with 2+ pages "
              f"(missed: {', '.join(r['missed']) or 'none'}); honest blocked {r['honest_blocked']}; "
              f"stopped on controls {r['stopped_in_outputs']}\n    caught by: {'; '.join(r['by'])}", flush=True)


if __name__ == "__main__":
    main()
