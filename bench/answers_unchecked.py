"""Which no-controls confidence transfers? The model's own confidence (postprocess.answers.aggregation.model_answers,
``auto``), the share of the item's labels equal to the answer and majority vote's share of its own answer, per
crowd, and each candidate rule's ECE15 beside majority vote's share's on every gold item.

Crowds: Snow et al.'s real RTE, TEMP and WSD; bench/crowd_shapes.py's five HELD_OUT shapes at their own misleading
share and at 0.25 (a quarter of the items most workers get wrong alike), by seed. Seeds 0-4 are the tuning seeds;
seeds 5-9 and the real crowds were named held out before any rule was scored on them (a rule chosen on 0-4 is
read on 5-9 once). ``python -m bench.answers_unchecked --seeds 5 6 7 8 9 [--cache DIR]``; writes
bench/results-answers-unchecked.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.answers_calibration import _gold, held_out_sets, public_sets
from postprocess.answers.aggregation import aggregate, model_answers
from postprocess.answers.judgements import judgements
from postprocess.answers.reliability import FINE_BINS, ece
from postprocess.answers.unchecked import shrunk, vote_shares

RESULTS = Path(__file__).resolve().parent / "results-answers-unchecked.json"
MISLEADING = (None, 0.25)


def crowds(seeds: list[int], real: bool) -> list[tuple[str, pd.DataFrame]]:
    out = [(f"{n} (real)", f) for n, f in public_sets()] if real else []
    for seed in seeds:
        for share in MISLEADING:
            mark = "" if share is None else f" m{share:g}"
            out += [(f"{n.split(' ')[0]}{mark} s{seed}", f) for n, f in held_out_sets(seed, share)]
    return out


def readings(frame: pd.DataFrame) -> pd.DataFrame:
    """Per item: ``own`` (the model's confidence), ``share`` (its answer's vote share), ``judgements``, ``gold``
    (blank where none), ``right``, ``mv_share`` and ``mv_right`` (majority vote's)."""
    labels, gold = frame.drop(columns="gold"), _gold(frame)
    own = model_answers(labels, "auto").set_index("item_id")
    mv = aggregate(labels, "mv").answers.set_index("item_id").reindex(own.index)
    truth = gold.reindex(own.index).fillna("")
    return pd.DataFrame({"own": own["confidence"].to_numpy(float), "judgements": own["judgements"].to_numpy(float),
                         "share": vote_shares(own.reset_index(), judgements(labels)), "gold": truth.to_numpy(),
                         "right": (own["label"].astype(str) == truth).to_numpy(float),
                         "mv_share": mv["posterior"].to_numpy(float),
                         "mv_right": (mv["label"].astype(str) == truth).to_numpy(float)}, index=own.index)


def cached(name: str, frame: pd.DataFrame, cache: Path | None) -> pd.DataFrame:
    path = None if cache is None else cache / f"{name.replace(' ', '_')}.pkl"
    if path is not None and path.exists():
        return pd.read_pickle(path)
    out = readings(frame)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        out.to_pickle(path)
    return out


def row(name: str, r: pd.DataFrame) -> dict[str, Any]:
    """ECE15 over the gold items of the model's own confidence, answers.csv's (shrunk over every item) and majority
    vote's share."""
    own, share = r["own"].to_numpy(), r["share"].to_numpy()
    conf = shrunk(own, share, r["judgements"].to_numpy())
    fifth = own - 0.2 * np.maximum(own - share, 0.0)  # the rule before: a fifth of the way to the item's own share
    fifth = np.where(own >= 0.5, np.maximum(fifth, 0.5), fifth)
    g = (r["gold"] != "").to_numpy()
    y = r["right"].to_numpy()[g]
    return {"crowd": name, "items": int(g.sum()), "own": round(ece(r["own"].to_numpy()[g], y, FINE_BINS), 4),
            "unchecked": round(ece(conf[g], y, FINE_BINS), 4), "fifth": round(ece(fifth[g], y, FINE_BINS), 4),
            "vote_share": round(ece(r["mv_share"].to_numpy()[g], r["mv_right"].to_numpy()[g], FINE_BINS), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[5, 6, 7, 8, 9])
    parser.add_argument("--no-real", action="store_true", help="the synthetic crowds only")
    parser.add_argument("--cache", type=Path, default=None, help="keep each crowd's readings here between runs")
    a = parser.parse_args()
    rows = [row(name, cached(name, frame, a.cache)) for name, frame in crowds(a.seeds, not a.no_real)]
    above = [r for r in rows if r["unchecked"] > r["vote_share"]]
    print(f"  {'crowd':28s} {'items':>6s} {'own':>6s} {'answers':>7s} {'share':>6s} {'before':>6s}  (ECE15; share: "
          "majority vote's; before: a fifth of the way to the item's own share)")
    for r in rows:
        mark = " ABOVE" if r in above else ""
        print(f"  {r['crowd']:28s} {r['items']:6d} {r['own']:6.4f} {r['unchecked']:7.4f} {r['vote_share']:6.4f} "
              f"{r['fifth']:6.4f}{mark}")
    before = sum(r["fifth"] > r["vote_share"] for r in rows)
    print(f"answers.csv's confidence above the vote share's ECE15 on {len(above)} of {len(rows)} crowds "
          f"(the rule before: {before})")
    if a.seeds == [5, 6, 7, 8, 9] and not a.no_real:
        RESULTS.write_text(json.dumps({"rows": rows, "above": len(above), "above_before": before}, indent=1) + "\n")


if __name__ == "__main__":
    main()
