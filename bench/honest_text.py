"""``make bench-honest-text``: honest simulated workers against QC on five page shapes.

The five pages of ``tests/pages/honest/`` (a caption beside a note, a rating with a reason under a caption
two items share, a sentiment with an optional comment, a comment on a word, a summary at a length asked)
run end to end on the simulator with the scaffold's QC and policy and the crowd ``make bench-custom-qc``
uses (``config/crowds/vizwiz_authenticity.toml``), each item shown ``--copies`` times under ids of its
own (items that show the same text, as a real file's repeated rows do: quoting them is no template), 4
items a page, 5 workers an item, 3 batches; then the caption task (``config/vizwiz_full_scale.toml``,
``--caption-items``) with the same crowd. Per page shape and for the caption task it prints:

- each honest profile's block rate: workers blocked of those who worked (the goal: 0);
- each bad profile's recall: workers blocked before the last batch of those who worked before it;
- any batch held for a person because one rule would have rejected or blocked most of its workers (a
  held batch blocks no one, and the campaign stops there: its honest workers' 0 blocked means nothing).

Figures go to ``bench/results-honest-text.json``, one entry per seed; nothing here is a test.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from bench.authenticity import run_judged
from bench.custom_qc import CAPTION_CONFIG, CROWD
from bench.results_file import keep_result
from tests.honest_pages import SHAPES, shape_config

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results-honest-text.json"


def by_profile(db: sqlite3.Connection, workers: dict[str, Any]) -> dict[str, Any]:
    """Per profile: honest ones' workers blocked of those who worked; bad ones' blocked before the last
    batch of those who worked before it; and the rules that blocked honest workers."""
    from flows.sim.people.crowd_model import HONEST_PROFILES

    last = db.execute("SELECT max(batch) FROM assignments WHERE batch > 0").fetchone()[0] or 0
    first: dict[str, int] = {}
    for w, batch in db.execute("SELECT worker_id, batch FROM assignments WHERE batch > 0 AND worker_id != ''"):
        first[w] = min(first.get(w, 99), int(batch))
    blocks = {w: (int(b), rules) for w, b, rules in db.execute("SELECT worker_id, batch, rules FROM blocks")}
    honest: dict[str, list[int]] = {}
    bad: dict[str, list[int]] = {}
    for w, batch in first.items():
        profile = workers[w].profile
        if profile in HONEST_PROFILES:
            row = honest.setdefault(profile, [0, 0])
            row[0] += w in blocks
            row[1] += 1
        elif batch < last:
            row = bad.setdefault(profile, [0, 0])
            row[0] += w in blocks and blocks[w][0] < last
            row[1] += 1
    why = sorted(f"{workers[w].profile}: {rules}" for w, (_, rules) in blocks.items()
                 if workers[w].profile in HONEST_PROFILES)
    held = [f"batch {b}: {note}" for b, note in db.execute("SELECT batch, hold FROM batches WHERE hold != '' "
                                                             "AND hold IS NOT NULL")]
    return {"honest": {p: v for p, v in sorted(honest.items())}, "bad": {p: v for p, v in sorted(bad.items())},
            "honest_blocked_by": why, "held": held}


def run_shape(shape: str, seed: int, copies: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        config = shape_config(Path(tmp), shape, per_page=4, per_item=5, batches=3, copies=copies)
        items = sum(1 for _ in (config.parent / f"{shape}_items.csv").open(encoding="utf-8")) - 1
        wall, result = run_judged(config, items, seed, CROWD, by_profile)
    return {"items": items, "wall_s": round(wall, 1), **result}


def rate(pair: list[int]) -> str:
    return f"{pair[0]}/{pair[1]}"


def table(run: dict[str, Any]) -> list[str]:
    """One line per profile: its figure on every page shape and on the caption task."""
    columns = list(run)
    lines = [f"{'':<18}" + "".join(f"{c:>13}" for c in columns)]
    for side, label in (("honest", "blocked (goal 0)"), ("bad", "recall")):
        profiles = sorted({p for r in run.values() for p in r[side]})
        lines.append(f"{side} profiles, {label}:")
        for p in profiles:
            lines.append(f"  {p:<16}" + "".join(f"{rate(run[c][side][p]) if p in run[c][side] else '-':>13}"
                                                 for c in columns))
        totals = [[sum(v[0] for v in run[c][side].values()), sum(v[1] for v in run[c][side].values())]
                  for c in columns]
        lines.append(f"  {'all':<16}" + "".join(f"{rate(t):>13}" for t in totals))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--copies", type=int, default=8, help="each item this many times (ids of their own)")
    parser.add_argument("--caption-items", type=int, default=100, help="the caption task's images; 0: not run")
    args = parser.parse_args(argv)
    run: dict[str, Any] = {}
    for shape in SHAPES:
        run[shape] = run_shape(shape, args.seed, args.copies)
        print(f"{shape}: {run[shape]['items']} items, {run[shape]['wall_s']} s", flush=True)
    if args.caption_items:
        wall, run["caption task"] = run_judged(CAPTION_CONFIG, args.caption_items, args.seed, CROWD, by_profile)
        print(f"caption task: {args.caption_items} images, {wall:.1f} s", flush=True)
    print("\n".join(table(run)))
    blocked = [b for r in run.values() for b in r["honest_blocked_by"]]
    print("honest workers blocked by: " + ("; ".join(blocked) if blocked else "none"))
    for name, r in run.items():  # a held batch blocks no one: its rule would have (batch_hold.py)
        print(f"{name}: held for a person, blocking no one: {'; '.join(r['held'])}" if r["held"] else
              f"{name}: no batch held")
    keep_result(RESULTS, f"seed {args.seed}, copies {args.copies}, caption {args.caption_items} items", run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
