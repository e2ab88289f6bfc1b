"""Is the confidence true on data it has never seen, with and without controls, and does adaptive overlap
reach majority vote? ``make bench-answers-calibration``; ``make bench`` prints the public sets'.

Sets: Snow et al. 2008's RTE, TEMP and WSD (real crowd labels with expert gold, bench/snow_sets.py), and
with ``--held-out`` synthetic crowds of the five held-out sets' shapes (bench/crowd_shapes.py's HELD_OUT:
their counts, a model's workers: honest of spread accuracy, careless, spammers who give one class, random
answerers and adversaries; hard and misleading items). Per set and method:

- without controls: accuracy, ECE at 6 and 15 equal-width bins and over equal-mass bins, and the worst bin
  (postprocess.answers.reliability: of bins of at least 50 items, the largest |confidence - accuracy|), over
  every item with gold; beside each of ECE6, ECE15 and the worst bin its noise floor (``floor_95``,
  postprocess.answers.reliability.noise_floor: the 95th percentile of what the same figure reads when each
  answer is right with exactly its stated probability; printed after a slash, the figure starred above it),
  so that a miss is read against chance (more seeds and splits: bench/calibration_noise.py);
- with controls: a fifth of the gold items (fold 0 of five, postprocess.answers.beta_calibration.fold_of, fixed by the
  item ids) given as ``controls``, the same figures over the rest, the calibration fit (moved or kept,
  its b: the weight of -ln(1 - confidence), under 1 where the top was pulled down) and Dawid-Skene's
  accuracy on the rest; and ``with_controls_folds``: each of the five fifths in turn as the controls, ECE15
  with controls and without on the same items beside the noise floor, mean and range over the folds (one seed's
  five folds are noisy: bench/controls_paired.py pairs them over seeds, by log-loss and Brier score too);
- beside every method, the vote share (majority vote's ``posterior``) scored as a confidence on the same items: the
  confidence must be at least as calibrated; and how many two-label answers read below 0.5 (none should);
- the adaptive replay with ``hitflow aggregate --adaptive``'s defaults (postprocess.answers.adaptive.DEFAULT_RULE):
  its accuracy and share of the judgements beside full-overlap majority vote's accuracy, its CPU, and the bound of
  bench/adaptive_oracle.py (majority vote over the cheapest right prefixes, chosen knowing the gold, at half).

Writes bench/results-answers-calibration.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.adaptive_oracle import oracle, prefix_right
from bench.crowd_shapes import GOLD_ITEMS, HELD_OUT, shaped
from bench.snow_sets import SETS, path_of, read_set
from postprocess.answers.adaptive import DEFAULT_RULE, Replay, replay, saving
from postprocess.answers.aggregation import METHODS, aggregate, aggregate_scored, model_answers
from postprocess.answers.beta_calibration import fold_of
from postprocess.answers.calibration import calibrate_answers
from postprocess.answers.reliability import noise_floor, scored

RESULTS = Path(__file__).resolve().parent / "results-answers-calibration.json"
PUBLIC_METHODS = ("auto", *METHODS)
HELD_OUT_METHODS = ("auto", "mv", "ds", "mace")
CONTROL_FOLDS = 5  # controls: fold 0 of five (a fifth of the gold), fixed by the item ids
ADAPTIVE_SKIP: set[str] = set()  # (AdultContent2's shape was skipped: under the budget its replay takes ~5 s)


def public_sets() -> list[tuple[str, pd.DataFrame]]:
    return [(s.name, read_set(p)) for s in SETS if (p := path_of(s)) is not None]


def held_out_sets(seed: int = 0, misleading: float | None = None) -> list[tuple[str, pd.DataFrame]]:
    """The synthetic crowds, each with gold on GOLD_ITEMS' share of its items (the rest: blank), as the real sets;
    ``seed`` draws another crowd of the same shapes (a default chosen on seed 0 should hold on the others);
    ``misleading``: this share of items most workers get wrong alike, instead of each shape's own."""
    out = []
    for shape in HELD_OUT:
        frame = shaped(shape if misleading is None else shape._replace(misleading=misleading), seed)
        if shape.name in GOLD_ITEMS:
            items = frame["item_id"].drop_duplicates().sample(GOLD_ITEMS[shape.name], random_state=seed)
            frame = frame.assign(gold=frame["gold"].where(frame["item_id"].isin(set(items)), ""))
        out.append((f"{shape.name} (synthetic)", frame))
    return out


def _gold(frame: pd.DataFrame) -> pd.Series:
    gold = frame.drop_duplicates("item_id").set_index("item_id")["gold"].astype(str)
    return gold[gold.str.strip() != ""]


def _scores(answers: pd.DataFrame, gold: pd.Series) -> dict[str, Any]:
    known = answers[answers["item_id"].isin(gold.index)]
    right = known["label"].to_numpy() == gold.reindex(known["item_id"]).to_numpy()
    s = scored(known["confidence"].astype(float), right)
    floor = noise_floor(known["confidence"].astype(float))
    return {**{k: s[k] for k in ("items", "accuracy", "ece", "ece_15", "ece_equal_mass", "worst_bin")},
            "floor_95": {k: floor[k]["p95"] for k in ("ece", "ece_15", "worst_bin")}}


def measure_method(frame: pd.DataFrame, method: str, vote_share: dict[str, Any] | None = None) -> dict[str, Any]:
    """One method's figures; ``vote_share``: the set's vote share scored as a confidence (its column beside it)."""
    labels, gold = frame.drop(columns="gold"), _gold(frame)
    start = time.process_time()
    plain = aggregate(labels, method).answers
    cpu = time.process_time() - start
    items = np.array(sorted(gold.index))
    chosen = fold_of(pd.Series(items), CONTROL_FOLDS) == 0  # a fifth of the gold as controls
    controls = pd.DataFrame({"item_id": items[chosen], "answer": gold.reindex(items[chosen]).to_numpy()})
    calibrated, _ = aggregate_scored(labels, method, controls=controls)
    rest = gold.reindex(items[~chosen])
    ds = aggregate(labels, "ds").answers
    ds_right = ds.set_index("item_id")["label"].reindex(rest.index).to_numpy() == rest.to_numpy()
    fit = calibrated.answers.attrs.get("calibration_fit", {})
    share = {"vote_share": _scores(plain.assign(confidence=plain["posterior"]), gold)} if method == "mv" else (
        {"vote_share": vote_share} if vote_share else {})
    two = labels["label"].nunique() == 2
    return {"method": method, "cpu_s": round(cpu, 2), "without_controls": _scores(plain, gold), **share,
            "with_controls_folds": over_folds(model_answers(labels, method), gold, plain),
            "below_half": int((plain["confidence"] < 0.5).sum()) if two else 0,
            "with_controls": {**_scores(calibrated.answers, rest), "ds_accuracy": round(float(ds_right.mean()), 4),
                              "fit_moved": fit.get("moved"), "fit_b": fit.get("b"),
                              "fit_converged": fit.get("converged")}}


def over_folds(plain: pd.DataFrame, gold: pd.Series, alone: pd.DataFrame | None = None) -> dict[str, Any]:
    """Each fifth of the gold in turn as the controls (fold_of's five folds), the rest scored: ECE15 with controls,
    without (the model's own confidence on the same items) and the with-controls confidence's noise floor (95th
    percentile), per fold and their mean, min and max. The model's confidence does not depend on which items
    are controls, so each fold calibrates the one aggregation's answers (calibrate_answers, as aggregate_scored
    does); ``alone``: the answers as reported without controls (default ``plain``, the model's own)."""
    items = np.array(sorted(gold.index))
    fold = fold_of(pd.Series(items), CONTROL_FOLDS)
    folds = []
    for f in range(CONTROL_FOLDS):
        controls = pd.DataFrame({"item_id": items[fold == f], "field": "label",
                                 "answer": gold.reindex(items[fold == f]).to_numpy()})
        calibrated, _ = calibrate_answers(plain, controls)
        rest = gold.reindex(items[fold != f])
        with_, without = _scores(calibrated, rest), _scores(plain if alone is None else alone, rest)
        folds.append({"fold": f, "controls": len(controls), "ece_15": with_["ece_15"],
                      "ece_15_without": without["ece_15"], "floor_95": with_["floor_95"]["ece_15"],
                      "moved": bool(calibrated.attrs.get("calibration_fit", {}).get("moved"))})
    summary = {key: {"mean": round(float(np.mean([f[key] for f in folds])), 4),
                     "min": min(f[key] for f in folds), "max": max(f[key] for f in folds)}
               for key in ("ece_15", "ece_15_without", "floor_95")}
    return {**summary, "moved": sum(f["moved"] for f in folds), "folds": folds}


def accuracy(answers: pd.DataFrame, gold: pd.Series) -> float:
    """The share of ``gold``'s items (a Series by item_id) whose answer is the gold label."""
    labels = answers.set_index("item_id")["label"].reindex(gold.index).to_numpy()
    return float((labels == gold.to_numpy()).mean())


def replayed_against_mv(labels: pd.DataFrame, gold: pd.Series) -> tuple[Replay, dict[str, Any]]:
    """The adaptive replay with DEFAULT_RULE and, unrounded, its accuracy, share of the judgements and CPU beside
    full-overlap majority vote's accuracy, and whether it meets it within half the judgements."""
    start = time.process_time()
    replayed = replay(labels, DEFAULT_RULE)
    cpu = time.process_time() - start
    mv, adaptive = accuracy(aggregate(labels, "mv").answers, gold), accuracy(replayed.answers, gold)
    share = float(saving(replayed, labels)["share_used"])
    return replayed, {"full_mv": mv, "adaptive": adaptive, "share": share, "cpu_s": cpu,
                      "meets": adaptive >= mv - 1e-9 and share <= 0.5}


def measure_adaptive(frame: pd.DataFrame) -> dict[str, Any]:
    _, r = replayed_against_mv(frame.drop(columns="gold"), _gold(frame))
    return {"full_mv_accuracy": round(r["full_mv"], 4), "adaptive_accuracy": round(r["adaptive"], 4),
            "share_used": round(r["share"], 4), "meets": r["meets"], "cpu_s": round(r["cpu_s"], 1),
            "prefix_oracle_at_half": round(oracle(*prefix_right(frame), 0.5), 4)}


def measure(held_out: bool = False, adaptive_all: bool = False, seed: int = 0) -> dict[str, Any]:
    sets = public_sets() + (held_out_sets(seed) if held_out else [])
    out: dict[str, Any] = {}
    for name, frame in sets:
        methods = HELD_OUT_METHODS if "synthetic" in name else PUBLIC_METHODS
        votes = aggregate(frame.drop(columns="gold"), "mv").answers
        share = _scores(votes.assign(confidence=votes["posterior"]), _gold(frame))
        row: dict[str, Any] = {"methods": [measure_method(frame, m, share) for m in methods]}
        if adaptive_all or name.split(" ")[0] not in ADAPTIVE_SKIP:
            row["adaptive"] = measure_adaptive(frame)
        out[name] = row
    return out


def _worst(score: dict[str, Any]) -> str:
    worst = score["worst_bin"]
    return "-" if worst is None else f"{worst['off']:+.3f} ({worst['items']} at {worst['bin']})"


def _floored(score: dict[str, Any]) -> str:
    """ECE6, ECE15 and |worst bin|, each / its noise floor's 95th percentile, starred above it."""
    worst = 0.0 if score["worst_bin"] is None else abs(score["worst_bin"]["off"])
    cells = [(score["ece"], "ece"), (score["ece_15"], "ece_15"), (worst, "worst_bin")]
    return " ".join(f"{v:.3f}{'*' if v > score['floor_95'][k] else ' '}/{score['floor_95'][k]:.3f}" for v, k in cells)


def lines(results: dict[str, Any]) -> list[str]:
    out = ["answers' confidence: accuracy, ECE at 6 / 15 equal-width bins, the vote share's ECE15 on the same items, "
           "two-label answers read below 0.5, worst bin of >= 50 items (confidence - accuracy); with controls: a fifth "
           "of the gold as controls, the rest scored",
           f"  {'set':26s} {'method':8s} {'acc':>6s} {'ECE6':>6s} {'ECE15':>6s} {'share':>6s} {'<0.5':>5s} "
           f"{'worst bin':28s} | {'acc':>6s} {'ECE6':>6s} {'ECE15':>6s} {'worst bin':28s} {'fit':>14s} {'ds acc':>6s}"]
    for name, row in results.items():
        for m in row["methods"]:
            a, c = m["without_controls"], m["with_controls"]
            fit = f"{'moved' if c['fit_moved'] else 'kept'} b {c['fit_b']}" if c["fit_moved"] is not None else "-"
            share = m.get("vote_share", {}).get("ece_15", float("nan"))
            out.append(f"  {name:26s} {m['method']:8s} {a['accuracy']:6.4f} {a['ece']:6.4f} {a['ece_15']:6.4f} "
                       f"{share:6.4f} {m.get('below_half', 0):5d} "
                       f"{_worst(a):28s} | {c['accuracy']:6.4f} {c['ece']:6.4f} {c['ece_15']:6.4f} {_worst(c):28s} "
                       f"{fit:>14s} {c['ds_accuracy']:6.4f}")
    out.append("the same figures against their noise floor (what a perfectly calibrated confidence reads on the same "
               "items, 95th percentile; * above it): ECE6, ECE15, |worst bin|, without | with controls")
    for name, row in results.items():
        for m in row["methods"]:
            floors = f"{_floored(m['without_controls'])} | {_floored(m['with_controls'])}"
            out.append(f"  {name:26s} {m['method']:8s} {floors}")
    out.append("with controls over the five folds (each fifth of the gold in turn as the controls, the rest scored): "
               "ECE15 mean [min-max] with controls, without (same items), the noise floor's 95th percentile, "
               "folds moved")
    for name, row in results.items():
        for m in row["methods"]:
            k = m["with_controls_folds"]
            out.append(f"  {name:26s} {m['method']:8s} " + "  ".join(
                f"{label} {k[key]['mean']:.4f} [{k[key]['min']:.4f}-{k[key]['max']:.4f}]" for label, key in (
                    ("with", "ece_15"), ("without", "ece_15_without"), ("floor", "floor_95")))
                       + f"  moved {k['moved']}/{len(k['folds'])}")
    out.append("each method's confidence against the vote share, without controls: "
               "ECE at 6 / 15 bins / equal-mass bins")
    for name, row in results.items():
        for m in row["methods"]:
            if "vote_share" in m:
                a, v = m["without_controls"], m["vote_share"]
                out.append(f"  {name:26s} {m['method']:8s} confidence {a['ece']:.4f} / {a['ece_15']:.4f} / "
                           f"{a['ece_equal_mass']:.4f}; vote share {v['ece']:.4f} / {v['ece_15']:.4f} / "
                           f"{v['ece_equal_mass']:.4f}")
    out.append("adaptive replay, `hitflow aggregate --adaptive` defaults, against full-overlap majority vote")
    for name, row in results.items():
        if "adaptive" in row:
            r = row["adaptive"]
            out.append(f"  {name:26s} adaptive {r['adaptive_accuracy']:.4f} with {r['share_used']:.1%} of the labels; "
                       f"majority vote {r['full_mv_accuracy']:.4f}; {'met' if r['meets'] else 'NOT met'} "
                       f"({r['cpu_s']:.1f} s CPU; prefix oracle at half {r['prefix_oracle_at_half']:.4f})")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--held-out", action="store_true", help="also the synthetic crowds of the held-out shapes")
    parser.add_argument("--adaptive-all", action="store_true", help="replay AdultContent2's shape too (minutes)")
    parser.add_argument("--seed", type=int, default=0, help="the synthetic crowds' seed (0: the recorded results)")
    a = parser.parse_args()
    results = measure(a.held_out, a.adaptive_all, a.seed)
    print("\n".join(lines(results)))
    if a.seed != 0:
        return  # the results file records seed 0
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
