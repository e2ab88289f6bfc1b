"""Do controls make the confidence better, paired on the same items, over many draws? For each set (Snow et al.
2008's RTE, TEMP and WSD; synthetic crowds of bench/crowd_shapes.py's five HELD_OUT shapes), each seed (a synthetic
crowd drawn afresh; on the real sets the item ids salted apart, a split of its own) and each fifth of the gold in
turn as the controls: the other gold items' ECE15, log-loss and Brier score with the controls' calibration and
without (the model's own confidence on the same items), the noise floor of ECE15 (95th percentile of what a
perfectly calibrated confidence reads on those items, postprocess.answers.reliability.noise_floor) and whether the
calibration moved. ``python -m bench.controls_paired --seeds 0 1 2 3 4 --methods auto mv``.

The aggregation's answers do not depend on which items are controls, so each (set, seed, method) is aggregated
once (``--cache DIR`` keeps them between runs) and every fold calibrates the one aggregation's answers
(calibrate_answers, as aggregate_scored does).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.answers_calibration import CONTROL_FOLDS, _gold, held_out_sets, public_sets
from postprocess.answers.aggregation import aggregate, model_answers
from postprocess.answers.beta_calibration import fold_of
from postprocess.answers.calibration import calibrate_answers, log_loss
from postprocess.answers.judgements import judgements
from postprocess.answers.reliability import FINE_BINS, ece, noise_floor
from postprocess.answers.unchecked import unchecked

MEASURES = ("ece_15", "log_loss", "brier")


def sets_of(seed: int, misleading: float | None = None) -> list[tuple[str, pd.DataFrame, str]]:
    """(name, frame, salt of the folds): the real sets split afresh by seed, the synthetic crowds drawn afresh
    (``misleading``: with this share of items most workers get wrong alike: bench/crowd_shapes.py)."""
    salt = "" if seed == 0 else f"split{seed}:"
    mark = "" if misleading is None else f"-m{misleading:g}"
    return [(n, f, salt) for n, f in public_sets()] + [(n.split(" ")[0] + mark, f, "")
                                                        for n, f in held_out_sets(seed, misleading)]


def answers_of(name: str, frame: pd.DataFrame, method: str, seed: int, cache: Path | None) -> pd.DataFrame:
    path = None if cache is None else cache / f"{name}-{seed}-{method}.pkl"
    if path is not None and path.exists():
        return pd.read_pickle(path)
    plain = model_answers(frame.drop(columns="gold"), method)  # the model's own, which controls calibrate
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        plain.to_pickle(path)
    return plain


def _measures(answers: pd.DataFrame, rest: pd.Series, column: str = "confidence") -> dict[str, float]:
    got = answers.set_index("item_id").reindex(rest.index)
    conf = got[column].to_numpy(dtype=float)
    right = (got["label"].astype(str).to_numpy() == rest.to_numpy()).astype(float)
    return {"ece_15": ece(conf, right, FINE_BINS), "log_loss": log_loss(conf, right),
            "brier": float(((conf - right) ** 2).mean())}


def picks(items: np.ndarray, salt: str, few: int | None, seed: int, folds: int = CONTROL_FOLDS) -> list[np.ndarray]:
    """Masks of the controls among ``items``: each of fold_of's ``folds`` (salted) in turn (2: each half), or with
    ``few``, that many items drawn at random five times."""
    if few is None:
        fold = fold_of(pd.Series([salt + i for i in items]), folds)
        return [fold == f for f in range(folds)]
    rng = np.random.default_rng([seed, few])
    return [np.isin(np.arange(len(items)), rng.choice(len(items), few, replace=False)) for _ in range(CONTROL_FOLDS)]


def folds_of(plain: pd.DataFrame, gold: pd.Series, salt: str, few: int | None = None,
             seed: int = 0, folds: int = CONTROL_FOLDS, votes: pd.DataFrame | None = None,
             alone: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Each pick of the controls (:func:`picks`) in turn: the rest's measures with and without, its floor, moved,
    the calibration's own estimate of its ECE15 (the summary's, on the controls cross-fitted) and, with ``votes``
    (majority vote's answers), the vote share's ECE15 on the same items; ``alone``: the answers as reported without
    controls (default ``plain``, the model's own confidence, which the controls calibrate)."""
    items = np.array(sorted(gold.index))
    out = []
    for chosen in picks(items, salt, few, seed, folds):
        controls = pd.DataFrame({"item_id": items[chosen], "field": "label",
                                 "answer": gold.reindex(items[chosen]).to_numpy()})
        calibrated, checked = calibrate_answers(plain, controls)
        rest = gold.reindex(items[~chosen])
        with_, without = _measures(calibrated, rest), _measures(plain if alone is None else alone, rest)
        own = ece(checked["confidence"].to_numpy(float), checked["correct"].to_numpy(float), FINE_BINS)
        own_floor = noise_floor(checked["confidence"].to_numpy(float))["ece_15"]["p95"] + 1 / len(checked)
        fit = calibrated.attrs.get("calibration_fit", {})
        share = {} if votes is None else {"share_ece_15": _measures(votes, rest, "posterior")["ece_15"]}
        floor = noise_floor(calibrated.set_index("item_id").reindex(rest.index)["confidence"].to_numpy(float))
        out.append({**{f"{k}_with": v for k, v in with_.items()}, **{f"{k}_without": v for k, v in without.items()},
                    "floor": floor["ece_15"]["p95"], "floor_mean": floor["ece_15"]["mean"], "controls": len(controls),
                    "moved": bool(fit.get("moved")), "a": fit.get("a"), "b": fit.get("b"), "estimate": own,
                    "estimate_floor": own_floor, **share})
    return out


def measure(seeds: list[int], methods: list[str], cache: Path | None, few: int | None = None,
            folds: int = CONTROL_FOLDS, misleading: float | None = None) -> pd.DataFrame:
    rows = []
    for seed in seeds:
        for name, frame, salt in sets_of(seed, misleading):
            gold = _gold(frame)
            votes = aggregate(frame.drop(columns="gold"), "mv").answers
            for method in methods:
                plain = answers_of(name, frame, method, seed, cache)
                alone = unchecked(plain, judgements(frame.drop(columns="gold")))
                for f, row in enumerate(folds_of(plain, gold, salt, few, seed, folds, votes, alone)):
                    rows.append({"set": name, "method": method, "seed": seed, "fold": f, **row})
    return pd.DataFrame(rows)


def table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per set and method: the means with and without, the paired difference's mean and its standard error
    (over seeds x folds), the noise floor's mean and 95th percentile (each averaged over the draws), the draws
    whose ECE15 with controls is above that 95th percentile, and the draws on which the calibration moved."""
    out = []
    for (name, method), g in rows.groupby(["set", "method"], sort=False):
        line: dict[str, Any] = {"set": name, "method": method, "draws": len(g)}
        for k in MEASURES:
            diff = g[f"{k}_with"] - g[f"{k}_without"]
            line |= {f"{k}_with": g[f"{k}_with"].mean(), f"{k}_without": g[f"{k}_without"].mean(),
                     f"{k}_diff": diff.mean(), f"{k}_se": diff.std(ddof=1) / np.sqrt(len(g))}
        bound = g["estimate"] + g["estimate_floor"]  # the summary's ece_15_at_most
        out.append(line | {"estimate": g["estimate"].mean(), "share_ece_15": g["share_ece_15"].mean(),
                           "within_bound": f"{int((g['ece_15_with'] <= bound).sum())}/{len(g)}",
                           "a_min": g["a"].min(), "floor_mean": g["floor_mean"].mean(), "floor": g["floor"].mean(),
                           "above_floor": f"{int((g['ece_15_with'] > g['floor']).sum())}/{len(g)}",
                           "moved": f"{int(g['moved'].sum())}/{len(g)}"})
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--methods", nargs="+", default=["auto", "mv"])
    parser.add_argument("--cache", type=Path, default=None, help="keep the aggregations' answers here")
    parser.add_argument("--controls", type=int, default=None,
                        help="this many controls drawn at random five times (default: each fifth of the gold)")
    parser.add_argument("--folds", type=int, default=CONTROL_FOLDS,
                        help="each of this many folds of the gold in turn as the controls (2: half the gold)")
    parser.add_argument("--misleading", type=float, default=None,
                        help="the synthetic crowds with this share of misleading items (default: each shape's own)")
    parser.add_argument("--out", type=Path, default=None, help="write every fold's row here (csv)")
    a = parser.parse_args()
    rows = measure(a.seeds, a.methods, a.cache, a.controls, a.folds, a.misleading)
    if a.out is not None:
        rows.to_csv(a.out, index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.float_format", "{:.4f}".format):
        print(table(rows).to_string(index=False))


if __name__ == "__main__":
    main()
