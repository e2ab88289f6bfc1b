"""``python -m bench.straight_lining_honest``: how often ``choice_straight_lining`` would block an honest worker,
on synthetic crowds shaped as the gate's campaigns are (one-item pages, 3 workers an item, most workers doing a
few items), before and after a block needed the run to stand among every worker judged.

Each campaign: ``--items`` items of one yes / no / not sure question; a share of them (``--blind``) give nothing to
go on, where each honest worker answers by a habit of their own (a Dirichlet(1, 1, 1) draw over the three
answers: some say "not sure" to most such items); on the others an honest worker gives the item's answer with
probability 0.86 (the simulator's honest agreement), else one of the other two. Workers take items one at a time,
with weights from a Pareto draw (most do 1-6 items). The rule runs once on the whole campaign (its last look).
Before: every flag blocked (the rule's flags are the same set); after: only ``choice_straight_lining`` blocks,
``choice_straight_lining_review`` goes to a person. All workers here are honest: every block is a false one.
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import pandas as pd

from qc.straight_lining_odds import REVIEW_RULE, RULE, choice_straight_lining

OPTIONS = ("yes", "no", "not sure")


def campaign(rng: random.Random, items: int, workers: int, blind: float) -> pd.DataFrame:
    weights = [rng.paretovariate(1.5) for _ in range(workers)]
    habit = [np.random.default_rng(rng.randrange(2**32)).dirichlet((1, 1, 1)) for _ in range(workers)]
    rows = []
    for k in range(items):
        truth = rng.choice(OPTIONS[:2]) if rng.random() >= blind else None
        chosen: list[int] = []
        while len(chosen) < 3:
            w = rng.choices(range(workers), weights)[0]
            if w not in chosen:
                chosen.append(w)
        for w in chosen:
            if truth is None:
                said = rng.choices(OPTIONS, list(habit[w]))[0]
            else:
                said = truth if rng.random() < 0.86 else rng.choice([o for o in OPTIONS if o != truth])
            rows.append({"assignment_id": f"{w}-{k}", "worker_id": f"w{w}", "image_id": f"i{k}", "field": "q",
                         "answer": said, "options": 3})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--campaigns", type=int, default=400)
    parser.add_argument("--items", type=int, default=30)
    parser.add_argument("--workers", type=int, default=40)
    parser.add_argument("--blind", type=float, default=0.3)
    args = parser.parse_args(argv)
    rng = random.Random(1)
    before = after = review = judged = 0
    for _ in range(args.campaigns):
        df = campaign(rng, args.items, args.workers, args.blind)
        flags = choice_straight_lining(df, {"straight_lining_min_items": 3, "straight_lining_alpha": 0.01})
        judged += int((df.groupby("worker_id").size() >= 3).sum())
        before += len(flags)
        after += int((flags["rule"] == RULE).sum())
        review += int((flags["rule"] == REVIEW_RULE).sum())
    print(f"{args.campaigns} campaigns of {args.items} items, {args.workers} honest workers, {args.blind:.0%} items "
          f"blind: {judged} workers judged (3+ items); blocked before {before} ({before / args.campaigns:.3f} a "
          f"campaign), after {after} ({after / args.campaigns:.3f} a campaign); sent to a person after {review}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
