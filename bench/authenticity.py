"""``make bench-authenticity``: the telemetry rules against the simulator's truth.

The VizWiz campaign (``config/vizwiz_full_scale.toml``) runs end to end on the simulator with the
crowd of ``config/crowds/vizwiz_authenticity.toml`` (assistant pasters and part-typers among honest
note-pasters, fast and slow typists), at the demo size (500 images), 4,000 images and full scale
(39,181). The simulated pages write the same ``hitflow_telemetry`` record the real page writes.
Per size it prints:

- precision of each telemetry rule's caption flags against what the flag claims: ``paste_external``
  and ``untyped_text`` that at least half the text came from outside the page, ``switch_then_paste``
  and ``typing_cadence`` that the text is not the worker's own words (an assistant's, a stock list's,
  a clipboard's);
- false flags on honest people: the share of honest workers' captions flagged as not their own words
  (per response, as Prolific's 0.6% counts), honest workers with any such flag, and honest workers
  blocked by a telemetry rule;
- assistant-pasting workers (assistant_paster, partial_paster) who worked before the last batch and
  were blocked before it;
- the same rules against a behaviour reference read from the raw records alone
  (:mod:`bench.telemetry_reference`, not the simulator's labels): the share of captions whose
  text is the worker's own (typed, or pasted back from an absence long enough to type it) that any
  telemetry rule flagged (goal <= 0.5%), and the flags' precision against it.
Beside Prolific's published authenticity-check figures: 98.7% precision, 0.6% false flags ("A Guide to
Authenticity Checks on Studies", Prolific Team, r/ProlificAc, May 2025; researcher-help.prolific.com
article 6bb6d8). Figures go to ``bench/results-authenticity.json``; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.results_file import keep_result

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_full_scale.toml"
CROWD = ROOT / "config" / "crowds" / "vizwiz_authenticity.toml"
RESULTS = ROOT / "bench" / "results-authenticity.json"
SIZES = {"demo": 500, "4k": 4000, "full": 39181}
PROLIFIC = {"precision": 0.987, "false_flags": 0.006}
ASSISTANT_PROFILES = ("assistant_paster", "partial_paster")
EXTERNAL = ("notes", "assistant", "partial", "clipboard", "list")  # origins whose text came from outside
NOT_OWN = ("assistant", "partial", "clipboard", "list")  # ... and was not the worker's own words
CLAIMS = {"paste_external": EXTERNAL, "untyped_text": EXTERNAL, "switch_then_paste": NOT_OWN,
          "typing_cadence": NOT_OWN}


def run_judged(config: Path, items: int, seed: int, crowd: Path,
               judged: Callable[[sqlite3.Connection, dict[str, Any]], dict[str, Any]]) -> tuple[float, dict[str, Any]]:
    """One campaign end to end in this process, then ``judged(ledger, the simulator's workers)``:
    its wall seconds and that judgement."""
    from flows.driver.campaign_run import run_campaign
    from flows.platforms import targets

    sims: list[Any] = []

    def progress(_message: str) -> None:
        if not sims:
            sims.extend(entry[0] for entry in targets._SHARED.values())

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_campaign(config, db_path=Path(tmp) / "ledger.db", out_root=tmp, limit=items, seed=seed, crowd=crowd,
                     progress=progress)
        wall = time.perf_counter() - start
        with sqlite3.connect(Path(tmp) / "ledger.db") as db:
            db.row_factory = sqlite3.Row
            return wall, judged(db, sims[0].market.workers)


def run_size(images: int, seed: int) -> dict[str, Any]:
    """One campaign end to end in this process; the ledger and the simulator's workers, judged."""
    wall, result = run_judged(CONFIG, images, seed, CROWD, judge)
    return {"images": images, "seed": seed, "wall_s": round(wall, 1), **result}


def judge(db: sqlite3.Connection, workers: dict[str, Any]) -> dict[str, Any]:
    from flows.sim.people.crowd_model import HONEST_PROFILES
    from qc.runner import TELEMETRY_RULES

    last = db.execute("SELECT max(batch) FROM assignments WHERE batch > 0").fetchone()[0]
    captions, origin = caption_truth(db, workers)
    recorded = db.execute("SELECT count(*) FROM answers WHERE field = 'hitflow_telemetry' "
                          "AND value != ''").fetchone()[0]
    marks = ",".join("?" * len(TELEMETRY_RULES))
    flags = db.execute(f"SELECT worker_id, rule, assignment_id, image_id FROM qc_flags WHERE rule IN ({marks})",
                       TELEMETRY_RULES).fetchall()
    rules = {rule: precision([f for f in flags if f["rule"] == rule], origin, CLAIMS[rule]) for rule in TELEMETRY_RULES}
    all_flags = sum(r["flags"] for r in rules.values())
    worked: dict[str, int] = {}
    for c in captions:
        worked[c["worker_id"]] = min(worked.get(c["worker_id"], 99), int(c["batch"]))
    honest = [w for w in worked if workers[w].profile in HONEST_PROFILES]
    claims = [f for f in flags if f["rule"] in ("switch_then_paste", "typing_cadence")]
    accused = {f["worker_id"] for f in claims}
    honest_set = set(honest)
    honest_captions = sum(1 for c in captions if c["worker_id"] in honest_set)
    accused_captions = len({(f["assignment_id"], f["image_id"]) for f in claims if f["worker_id"] in honest_set})
    blocks = {r["worker_id"]: (int(r["batch"]), r["rules"]) for r in db.execute("SELECT worker_id, batch, rules "
                                                                                   "FROM blocks").fetchall()}
    by_telemetry = {w for w, (_, why) in blocks.items() if any(rule in why for rule in TELEMETRY_RULES)}
    pasters = [w for w, first in worked.items() if workers[w].profile in ASSISTANT_PROFILES and first < last]
    caught = [w for w in pasters if w in blocks and blocks[w][0] < last]
    missed = [{"worker_id": w, "profile": workers[w].profile, "first_batch": worked[w],
               "captions_before_last": sum(1 for c in captions if c["worker_id"] == w and int(c["batch"]) < last),
               "flags": sorted(f["rule"] for f in flags if f["worker_id"] == w), "blocked": blocks.get(w)}
              for w in pasters if w not in caught]
    any_flag = {(f["assignment_id"], f["image_id"]) for f in flags}
    honest_any = sum((c["assignment_id"], c["item_id"]) in any_flag for c in captions if c["worker_id"] in honest_set)
    return {
        "reference": reference_figures(db, captions, any_flag),
        "honest_captions_any_flag": round(honest_any / max(1, honest_captions), 5),
        "captions": len(captions), "captions_with_telemetry": recorded, "workers_worked": len(worked),
        "rules": rules,
        "precision": round(sum(r["correct"] for r in rules.values()) / all_flags, 4) if all_flags else None,
        "honest_workers": len(honest),
        "honest_accused": share([w for w in honest if w in accused], honest),
        "honest_captions_accused": round(accused_captions / max(1, honest_captions), 5),
        "honest_blocked_by_telemetry": share([w for w in honest if w in by_telemetry], honest),
        "honest_blocked_any_rule": share([w for w in honest if w in blocks], honest),
        "assistant_pasters_before_last_batch": len(pasters),
        "assistant_pasters_blocked_before_last_batch": share(caught, pasters),
        "assistant_pasters_missed": missed,
        "by_profile": profile_table(workers, worked, blocks, by_telemetry),
    }


def caption_truth(db: sqlite3.Connection, workers: dict[str, Any]) -> tuple[list[Any], dict[tuple[str, str], str]]:
    """Every caption, and how it arrived as the simulator decided it (flows/sim/people/typing_model.py)."""
    from flows.sim.people.typing_model import caption_origin
    from qc.submit_rules import is_canned

    captions = db.execute("SELECT a.assignment_id, a.worker_id, a.batch, x.item_id, x.value FROM assignments a "
                          "JOIN answers x ON x.assignment_id = a.assignment_id WHERE x.field = 'caption' "
                          "AND a.batch > 0").fetchall()
    return captions, {(c["assignment_id"], c["item_id"]): caption_origin(
        workers[c["worker_id"]], c["item_id"], c["value"] or "", is_canned(c["value"] or "")) for c in captions}


def reference_figures(db: sqlite3.Connection, captions: list[Any], flagged: set[tuple[str, str]]) -> dict[str, Any]:
    """Any telemetry flag against the raw-record reference: on captions it calls the worker's own
    (false flags) and on those it calls from outside (caught); canned captions left out, as the rules
    leave them."""
    from bench.telemetry_reference import reference
    from qc.submit_rules import is_canned

    records = dict(db.execute("SELECT assignment_id, value FROM answers WHERE field = 'hitflow_telemetry' "
                              "AND item_id = ''").fetchall())
    pages = {a: json.loads(items or "[]") for a, items in db.execute(
        "SELECT a.assignment_id, h.item_ids FROM assignments a JOIN hits h ON h.hit_id = a.hit_id").fetchall()}
    seen: dict[str, list[bool]] = {"own": [], "outside": [], "none": []}
    for c in captions:
        page = pages.get(c["assignment_id"], [])
        if is_canned(c["value"] or "") or c["item_id"] not in page:
            continue
        label = reference(records.get(c["assignment_id"]) or "", f"caption_{page.index(c['item_id'])}")
        seen[label].append((c["assignment_id"], c["item_id"]) in flagged)
    own, outside = seen["own"], seen["outside"]
    flags = sum(own) + sum(outside)
    return {"own": len(own), "outside": len(outside), "none": len(seen["none"]),
            "own_flagged": sum(own), "honest_false_flags": round(sum(own) / max(1, len(own)), 5),
            "outside_flagged": round(sum(outside) / max(1, len(outside)), 4),
            "precision": round(sum(outside) / flags, 4) if flags else None}


def precision(flags: list[Any], origin: dict[tuple[str, str], str], claim: tuple[str, ...]) -> dict[str, Any]:
    right = sum(origin.get((f["assignment_id"], f["image_id"])) in claim for f in flags)
    return {"flags": len(flags), "correct": right, "precision": round(right / len(flags), 4) if flags else None}


def share(part: list[str], whole: list[str]) -> float:
    return round(len(part) / max(1, len(whole)), 4)


def profile_table(workers: dict[str, Any], worked: dict[str, int], blocks: dict[str, Any],
                  by_telemetry: set[str]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for w in worked:
        row = table.setdefault(workers[w].profile, {"worked": 0, "blocked": 0, "blocked_by_telemetry": 0})
        row["worked"] += 1
        row["blocked"] += w in blocks
        row["blocked_by_telemetry"] += w in by_telemetry
    return dict(sorted(table.items()))


def show(r: dict[str, Any]) -> str:
    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{100 * x:.2f}%"

    ref = r["reference"]
    lines = [f"{r['label']} ({r['images']} images, seed {r['seed']}): {r['wall_s']} s, {r['captions']} captions "
             f"({r['captions_with_telemetry']} assignments with telemetry), {r['workers_worked']} workers worked",
             f"  precision of the paste/assistant flags: {pct(r['precision'])} (goal >= 99%; Prolific 98.7%)"]
    lines += [f"    {rule}: {v['flags']} flags, precision {pct(v['precision'])}" for rule, v in r["rules"].items()]
    lines += [f"  false flags on honest people: {pct(r['honest_captions_accused'])} of their captions flagged as not "
              f"their own words (per response, as Prolific counts; goal <= 0.5%; Prolific 0.6%);",
              f"    {pct(r['honest_accused'])} of {r['honest_workers']} honest workers with any such flag; "
              f"{pct(r['honest_blocked_by_telemetry'])} blocked by a telemetry rule",
              f"  (honest workers blocked by any rule: {pct(r['honest_blocked_any_rule'])})",
              f"  against the raw-record reference (not the simulator's labels): {pct(ref['honest_false_flags'])}"
              f" of {ref['own']} own-words captions with any telemetry flag (goal <= 0.5%); "
              f"{pct(ref['outside_flagged'])} of {ref['outside']} outside-text captions flagged; "
              f"precision {pct(ref['precision'])}",
              f"  simulator's labels: {pct(r['honest_captions_any_flag'])} of honest workers' captions with any "
              "telemetry flag",
              f"  assistant-pasting workers blocked before the last batch: "
              f"{pct(r['assistant_pasters_blocked_before_last_batch'])} of {r['assistant_pasters_before_last_batch']}"
              " (goal >= 95%)"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="demo,4k,full", help="comma-separated: demo, 4k, full (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for label in args.sizes.split(","):
        if label not in SIZES:
            print(f"unknown size {label!r}; use {', '.join(SIZES)}", file=sys.stderr)
            return 2
        result = {"label": label, **run_size(SIZES[label], args.seed)}
        print(show(result), flush=True)
        keep_result(RESULTS, label, result)
    keep_result(RESULTS, "prolific_published", PROLIFIC)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
