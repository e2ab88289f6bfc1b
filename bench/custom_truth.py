"""``make bench-custom-truth``: the simulated crowd against the truth on three custom pages.

Three pages of our own whose items files hold the answers (``tests/pages/truth/``: a stress
classifier, a passage-relevance page with a summary box, a pair of yes/no questions per item with a
comment on a word), each named in ``[campaign] truth``, run end to end on the simulator with the crowd
of ``config/crowds/vizwiz_authenticity.toml`` (the crowd ``make bench-custom-qc`` uses), in 2 batches
of 4 items a page and 5 workers an item, on the pages' own items (24, 12 and 16: every item's text its
own, as a real page's are; repeating them would make honest workers' texts repeat across items, which
the text rules rightly flag). Per page it prints:

- each profile's accuracy against the truth columns (answers given, the share equal to the item's
  column; blanks of an optional field are not answers) and the honest profiles' model expectation
  (flows/sim/people/latent_choices.py: ``a + (1 - a) x (1 - HABIT) / k`` with ``a = 0.55 + 0.4 x skill``);
- the QC figures ``bench/custom_qc.py`` prints (bad workers blocked before the last batch, flagged by
  any rule; honest workers blocked, with a rejecting or blocking rule's flag);

and beside them the caption task's QC figures, run with the same crowd (``--caption-items``; 0 reads the
last ``make bench-custom-qc`` result instead). Figures go to ``bench/results-custom-truth.json``, one
entry per seed; nothing here is a test.
"""

from __future__ import annotations

import argparse
import csv
import json
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from bench.authenticity import run_judged
from bench.custom_qc import CAPTION_CONFIG, CROWD, judge, run_task
from bench.results_file import keep_result
from tests.truth_pages import TRUTH, truth_config

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results-custom-truth.json"
QC_RESULTS = ROOT / "bench" / "results-custom-qc.json"
OPTIONS = {"stress": 2, "relevance": 4, "pairs": 2}


def accuracy_by_profile(db: sqlite3.Connection, workers: dict[str, Any], config: Path, kind: str) -> dict[str, Any]:
    """Per profile: answers to the truth fields, the share right, and (honest ones) the model's expectation."""
    from flows.sim.people.crowd_model import HONEST_PROFILES
    from flows.sim.people.latent_choices import HABIT, accuracy

    with (config.parent / f"{kind}_items.csv").open(newline="", encoding="utf-8") as fh:
        gold = {r["item_id"]: r for r in csv.DictReader(fh)}
    table: dict[str, dict[str, float]] = {}
    rows = db.execute("SELECT a.worker_id, x.item_id, x.field, x.value FROM assignments a JOIN answers x "
                      "ON x.assignment_id = a.assignment_id WHERE a.batch > 0 AND x.value != ''").fetchall()
    for r in rows:
        column = TRUTH[kind].get(r["field"])
        if column is None or r["item_id"] not in gold:
            continue
        w = workers[r["worker_id"]]
        row = table.setdefault(w.profile, {"answers": 0, "right": 0, "expected": 0.0})
        row["answers"] += 1
        row["right"] += r["value"] == gold[r["item_id"]][column]
        if w.profile in HONEST_PROFILES:
            a = accuracy(w)
            row["expected"] += a + (1 - a) * (1 - HABIT) / OPTIONS[kind]
    return {p: {"answers": int(v["answers"]), "accuracy": round(v["right"] / max(1, v["answers"]), 4),
                **({"model": round(v["expected"] / v["answers"], 4)} if v["expected"] else {})}
            for p, v in sorted(table.items())}


def honest_blocks(db: sqlite3.Connection, workers: dict[str, Any]) -> list[str]:
    """The rules that blocked each honest worker (one entry per worker blocked)."""
    from flows.sim.people.crowd_model import HONEST_PROFILES

    return sorted(f"{workers[r['worker_id']].profile}: {r['rules']}" for r in
                  db.execute("SELECT worker_id, rules FROM blocks").fetchall()
                  if workers[r["worker_id"]].profile in HONEST_PROFILES)


def run_page(kind: str, seed: int, crowd: Path = CROWD) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        config = truth_config(Path(tmp), kind, per_page=4, per_item=5, batches=2)
        with (config.parent / f"{kind}_items.csv").open(encoding="utf-8") as fh:
            items = sum(1 for _ in csv.DictReader(fh))

        def judged(db: sqlite3.Connection, workers: dict[str, Any]) -> dict[str, Any]:
            return {**judge(db, workers, config), "accuracy": accuracy_by_profile(db, workers, config, kind),
                    "honest_blocked_by": honest_blocks(db, workers)}

        wall, result = run_judged(config, items, seed, crowd, judged)
    return {"page": kind, "items": items, "seed": seed, "wall_s": round(wall, 1), **result}


def pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}%"


def show(label: str, r: dict[str, Any]) -> str:
    lines = [f"{label:<10} {r['items']} items, {r['wall_s']} s, {r['workers_worked']} workers ({r['honest_workers']} "
             f"honest): bad blocked before the last batch {pct(r['recall_blocked_before_last'])} of "
             f"{r['bad_workers_before_last']}, flagged {pct(r['recall_flagged'])}; honest blocked "
             f"{pct(r['honest_blocked'])}, with a blocking/rejecting flag {pct(r['honest_blamed'])}"]
    if r.get("straight_lining_flagged"):
        lines.append(f"  flagged by choice_straight_lining: {r['straight_lining_flagged']}")
    if r.get("item_blind_flagged"):
        lines.append(f"  flagged by item_blind: {r['item_blind_flagged']}")
    if r.get("honest_blocked_by"):
        lines.append(f"  honest workers blocked by: {'; '.join(r['honest_blocked_by'])}")
    for profile, a in r.get("accuracy", {}).items():
        model = f" (model {pct(a['model'])})" if "model" in a else ""
        lines.append(f"  {profile:<18} accuracy {pct(a['accuracy'])} on {a['answers']} answers{model}")
    return "\n".join(lines)


def caption_side(items: int, seed: int) -> dict[str, Any] | None:
    """The caption task's QC figures with the same crowd: run now, or the last bench-custom-qc result."""
    if items:
        return run_task(CAPTION_CONFIG, items, seed)
    if not QC_RESULTS.exists():
        return None
    stored = json.loads(QC_RESULTS.read_text())
    return next((v["caption"] for k, v in stored.items() if k.endswith(f"seed {seed}")), None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--caption-items", type=int, default=60, help="0: the last bench-custom-qc figures")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--crowd", type=Path, default=CROWD, help="a crowd file (default: the bench-custom-qc crowd)")
    args = parser.parse_args(argv)
    run: dict[str, Any] = {}
    for kind in TRUTH:
        run[kind] = run_page(kind, args.seed, args.crowd.resolve())
        print(show(kind, run[kind]), flush=True)
    caption = caption_side(args.caption_items, args.seed)
    if caption is not None:
        run["caption"] = caption
        print(show("caption", caption), flush=True)
    honest = [a for r in run.values() for a in r.get("accuracy", {}).values() if "model" in a]
    given = sum(a["answers"] for a in honest)
    right = sum(a["accuracy"] * a["answers"] for a in honest) / max(1, given)
    print(f"honest profiles' answers equal to the truth, all three pages: {pct(right)} of {given}")
    crowd = "" if args.crowd.resolve() == CROWD else f", crowd {args.crowd.name}"
    keep_result(RESULTS, f"seed {args.seed}, caption {args.caption_items} items{crowd}", run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
