"""``make bench-gate``: the gate on a user's own pages beside the caption demo, judged against the simulator's truth.

Three pages of our own (bench/gate_pages/, imported as a new user imports them: bench/gate_setup.py), an
alt-text check with a 1-7 slider, a checkbox group and a required free-text box, a caption judgement with a
required reason and control items, a product review's feeling with an optional comment and control items, run
end to end on the MTurk and the Prolific simulator with the default crowd (config/crowds/vizwiz_demo.toml,
3 workers an item, 3 batches); beside them the caption demo (``make demo``: config/vizwiz_captions.toml on
the MTurk simulator). Per page and route it prints:

- bad-profile assignments (Prolific: submissions) approved with no flag on the assignment or on its worker in
  that batch and no block of the worker in the campaign, by profile (the random review sample is no flag: it
  detects nothing; nor are a rule's notes about itself, ``rule_info``); the blur talker's row is shown and not
  counted (its abuse is a caption's: NOT_COUNTED);
- bad workers none of whose work was noticed (flagged, rejected or blocked), of those who worked;
- honest workers blocked;
- approved assignments with a field the page as written requires left blank (empty or not sent), counted
  against the page's source, not against what the importer kept;
- apart from the headline, the bad-profile assignments whose answers or time show their profile's defect (what
  the simulator has that profile do differently from an honest worker) and those of them unnoticed
  (bench/gate_defects.py): a caps locker on a page with no text box, or a contrarian whose one answer is the
  others' on every item it did, leaves nothing any rule could read.

The goals: at most 10% of bad-profile assignments unnoticed, 0 honest blocked, 0 approved required-blank.
``--items`` sets the size (default 30 items on a one-item page, as many pages on the others); figures go to
``bench/results-gate.json``, one entry per commit label, size and seed. Nothing here is a test
(tests/test_gate_bench.py checks the judging).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.gate_defects import defect_shown, profile_sums, shown_line, shown_sum, shown_tally
from bench.gate_setup import PAGES, GatePage, prepare
from bench.results_file import keep_result

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "config" / "vizwiz_captions.toml"
RESULTS = ROOT / "bench" / "results-gate.json"
NOT_A_FLAG = ("random_sample", "rule_info")
# A blur talker's abuse is a caption's ("a blurry photo of ..." about a sharp photo); its choices are honest,
# so on other pages it is no bad worker to catch: its row is shown, never counted (as in the demo's 0 of 30).
NOT_COUNTED = ("blur_talker",)
ROUTES = ("mturk", "prolific")
GOAL_UNNOTICED = 0.10


def run_route(config: Path, folder: Path, platform: str, items: int | None, seed: int) -> dict[str, Any]:
    """One campaign end to end in this process on a route's simulator (the default crowd); its ledger judged."""
    from flows.core.config.config import load_config
    from flows.driver.campaign_run import run_campaign
    from flows.sim.people.crowd_model import HONEST_PROFILES

    cfg = load_config(config)
    db_path, out = folder / f"{platform}.db", folder / f"out-{platform}"
    start = time.process_time()
    run_campaign(config, db_path=db_path, out_root=out, limit=items, seed=seed, platform=platform,
                 progress=lambda _m: None, sim_state=folder / f"sim-{platform}")
    cpu = time.process_time() - start
    truth = json.loads((out / cfg.name / "sim_workers.json").read_text(encoding="utf-8"))
    profiles = {w["worker_id"]: w["profile"] for w in truth}
    required = page_required(config)
    with sqlite3.connect(db_path) as db:
        db.row_factory = sqlite3.Row
        judged = judge(db, cfg.name, profiles, set(HONEST_PROFILES), required)
    return {"cpu_s": round(cpu, 1), **judged}


def page_required(config: Path) -> tuple[str, ...]:
    """The fields the page as written requires (bench/gate_setup.py's PAGES); the caption demo's caption."""
    for page in PAGES:
        if config.stem == page.name:
            return page.required
    return ("caption",)


def judge(db: sqlite3.Connection, campaign: str, profiles: dict[str, str], honest: set[str],
          required: tuple[str, ...]) -> dict[str, Any]:
    """The gate's misses on one campaign's ledger: per profile outside ``honest``, its assignments and those
    approved unnoticed (no flag on the assignment, none on its worker in that batch, no block); the honest
    workers blocked; the approved assignments with a ``required`` field blank on any of their items."""
    work = db.execute("SELECT assignment_id, batch, worker_id FROM assignments WHERE campaign = ? AND batch > 0",
                      [campaign]).fetchall()
    approved = {r[0] for r in db.execute("SELECT assignment_id FROM decisions WHERE campaign = ? AND action = "
                                         "'approve'", [campaign])}
    marks = ",".join("?" * len(NOT_A_FLAG))
    flags = db.execute(f"SELECT batch, worker_id, assignment_id FROM qc_flags WHERE campaign = ? AND rule NOT IN "
                       f"({marks})", [campaign, *NOT_A_FLAG]).fetchall()
    on_assignment = {f["assignment_id"] for f in flags if f["assignment_id"]}
    on_worker = {(f["worker_id"], int(f["batch"])) for f in flags if f["worker_id"]}
    blocked = {r[0] for r in db.execute("SELECT worker_id FROM blocks WHERE campaign = ?", [campaign])}
    by_profile: dict[str, dict[str, int]] = {}
    noticed_workers: dict[str, bool] = {}  # a counted bad worker -> any of their work noticed
    by_missed: set[str] = set()
    for a in work:
        profile = profiles.get(a["worker_id"], "unknown")
        if profile in honest:
            continue
        row = by_profile.setdefault(profile, {"assignments": 0, "unnoticed": 0})
        missed = (a["assignment_id"] in approved and a["assignment_id"] not in on_assignment
                  and (a["worker_id"], int(a["batch"])) not in on_worker and a["worker_id"] not in blocked)
        row["assignments"] += 1
        row["unnoticed"] += missed
        by_missed |= {a["assignment_id"]} if missed else set()
        if profile not in NOT_COUNTED:
            noticed_workers[a["worker_id"]] = noticed_workers.get(a["worker_id"], False) or not missed
    honest_workers = {a["worker_id"] for a in work if profiles.get(a["worker_id"]) in honest}
    by_id = {a["assignment_id"]: a["worker_id"] for a in work}
    flagged = {w for (w, _b) in on_worker} | {by_id[a] for a in on_assignment if a in by_id}
    counted = [r for p, r in by_profile.items() if p not in NOT_COUNTED]
    bad, unnoticed = sum(r["assignments"] for r in counted), sum(r["unnoticed"] for r in counted)
    return {"bad_assignments": bad, "unnoticed": unnoticed, "unnoticed_share": share(unnoticed, bad),
            "by_profile": dict(sorted(by_profile.items())), "bad_workers": len(noticed_workers),
            "bad_workers_never_noticed": sum(not n for n in noticed_workers.values()),
            "honest_workers": len(honest_workers), "honest_blocked": len(honest_workers & blocked),
            "honest_flagged": len(honest_workers & flagged),
            "approved": len(approved), "approved_required_blank": len(required_blank(db, approved, required)),
            "defect_shown": shown_tally(defect_shown(db, work, profiles, honest | set(NOT_COUNTED), required), work,
                                        profiles, by_missed),
            **flags_by_rule(db, campaign, work, profiles, honest)}


def flags_by_rule(db: sqlite3.Connection, campaign: str, work: list[Any], profiles: dict[str, str],
                  honest: set[str]) -> dict[str, dict[str, int]]:
    """Per rule, the counted bad assignments and the honest ones it flagged (on the assignment or on its worker in
    that batch): what each rule contributes to the catch, and what it costs honest people (a flag is a look, not
    a block)."""
    marks = ",".join("?" * len(NOT_A_FLAG))
    hit: dict[tuple[str, Any], set[str]] = {}
    for f in db.execute(f"SELECT rule, batch, worker_id, assignment_id FROM qc_flags WHERE campaign = ? AND rule "
                        f"NOT IN ({marks})", [campaign, *NOT_A_FLAG]):
        hit.setdefault((f[2], int(f[1])), set()).add(f[0])
        if f[3]:
            hit.setdefault(("", f[3]), set()).add(f[0])
    bad: dict[str, int] = {}
    kept: dict[str, int] = {}
    for a in work:
        profile = profiles.get(a["worker_id"], "unknown")
        if profile in NOT_COUNTED:
            continue
        tally = kept if profile in honest else bad
        for rule in hit.get((a["worker_id"], int(a["batch"])), set()) | hit.get(("", a["assignment_id"]), set()):
            tally[rule] = tally.get(rule, 0) + 1
    return {"bad_flagged_by_rule": dict(sorted(bad.items())), "honest_flagged_by_rule": dict(sorted(kept.items()))}


def share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def required_blank(db: sqlite3.Connection, approved: set[str], required: tuple[str, ...]) -> set[str]:
    """Approved assignments where an item they answered has a ``required`` field empty or not sent."""
    given: dict[tuple[str, str], dict[str, str]] = {}
    for r in db.execute("SELECT assignment_id, item_id, field, value FROM answers WHERE item_id != ''"):
        if r[0] in approved:
            given.setdefault((r[0], r[1]), {})[r[2]] = r[3] or ""
    return {a for (a, _item), fields in given.items() if any(not fields.get(f, "").strip() for f in required)}


def run_page(page: GatePage | None, items: int, seed: int) -> dict[str, Any]:
    """A page (None: the caption demo, on MTurk at its own size) on each route, each in a folder of its own;
    ``items`` items a photo page, as many times more on a page of several items."""
    out: dict[str, Any] = {}
    size = items * page.images_per_hit if page else None  # as many pages, so as much work, on every page
    for route in ROUTES if page else ("mturk",):
        with tempfile.TemporaryDirectory(prefix="gate-") as tmp:
            config = prepare(page, Path(tmp), size) if page and size else DEMO
            out[route] = run_route(config, Path(tmp), route, size, seed)
    return out


def show(label: str, route: str, r: dict[str, Any]) -> str:
    share = "n/a" if r["unnoticed_share"] is None else f"{100 * r['unnoticed_share']:.0f}%"
    met = r["unnoticed_share"] is not None and r["unnoticed_share"] <= GOAL_UNNOTICED and not r["honest_blocked"] \
        and not r["approved_required_blank"]
    profiles = ", ".join(f"{p}{' (not counted)' if p in NOT_COUNTED else ''} {v['unnoticed']}/{v['assignments']}"
                         for p, v in r["by_profile"].items())
    rules = ", ".join(f"{k} {v}" for k, v in r["bad_flagged_by_rule"].items()) or "none"
    honest = ", ".join(f"{k} {v}" for k, v in r["honest_flagged_by_rule"].items()) or "none"
    return (f"{label:<17} {route:<8} unnoticed {r['unnoticed']:>3} of {r['bad_assignments']:<3} ({share:>4})  "
            f"honest blocked {r['honest_blocked']} (flagged {r.get('honest_flagged', '?')}) of {r['honest_workers']}  "
            f"approved required-blank "
            f"{r['approved_required_blank']}  {'goal met' if met else 'goal NOT met'}\n"
            f"{'':<17} {'':<8} bad workers with none of their work noticed: {r['bad_workers_never_noticed']} of "
            f"{r['bad_workers']}\n"
            f"{'':<17} {'':<8} flags on bad work by rule: {rules}; on honest work: {honest}\n"
            f"{'':<17} {'':<8} by profile (unnoticed/assignments): {profiles}\n"
            f"{'':<17} {'':<8} {shown_line(r['defect_shown'])}")


def totals(run: dict[str, Any]) -> dict[str, Any]:
    """The own pages' sums over pages and routes (the caption demo apart), by profile too."""
    own = [r for label, routes in run.items() if label != "caption demo" for r in routes.values()]
    by_profile = profile_sums(own)
    counted = [r for p, r in by_profile.items() if p not in NOT_COUNTED]
    bad, unnoticed = sum(r["assignments"] for r in counted), sum(r["unnoticed"] for r in counted)
    return {"bad_assignments": bad, "unnoticed": unnoticed, "unnoticed_share": share(unnoticed, bad),
            "by_profile": dict(sorted(by_profile.items())),
            "bad_workers": sum(r["bad_workers"] for r in own),
            "bad_workers_never_noticed": sum(r["bad_workers_never_noticed"] for r in own),
            "honest_workers": sum(r["honest_workers"] for r in own),
            "honest_blocked": sum(r["honest_blocked"] for r in own),
            "honest_flagged": sum(r.get("honest_flagged", 0) for r in own),
            "approved_required_blank": sum(r["approved_required_blank"] for r in own),
            **{key: summed([r[key] for r in own]) for key in ("bad_flagged_by_rule", "honest_flagged_by_rule")},
            "defect_shown": shown_sum([r["defect_shown"] for r in own])}


def summed(counts: list[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in counts:
        for k, v in c.items():
            out[k] = out.get(k, 0) + v
    return dict(sorted(out.items()))


def commit_label() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=30,
                        help="items of a one-item page (default 30; 3 workers an item); a page of 4 items gets 4 "
                             "times as many")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--label", default="", help="the results entry's name (default: the commit)")
    parser.add_argument("--no-demo", action="store_true", help="leave out the caption demo (about 20 s of CPU)")
    args = parser.parse_args(argv)
    run: dict[str, Any] = {}
    for page in ((None,) if not args.no_demo else ()) + PAGES:
        label = page.name if page else "caption demo"
        run[label] = run_page(page, args.items, args.seed)
        for route, r in run[label].items():
            print(show(label, route, r), flush=True)
    run["own pages"] = {"all": totals(run)}
    print(show("own pages", "both", run["own pages"]["all"]))
    keep_result(RESULTS, f"{args.label or commit_label()}, {args.items} items, seed {args.seed}", run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
