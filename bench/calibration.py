"""Does the answers' confidence mean what it says? ECE, mean confidence and the reliability
table beside accuracy, before (Dawid-Skene's own probability, the confidence answers.csv gave until
now its ``posterior`` column) and after (``confidence``), on:

- Snow et al. 2008's real crowd labels with expert gold (bench/snow_sets.py: WSD from ../shared/data,
  RTE and Temporal from ``HITFLOW_RTE_LABELS`` / ``HITFLOW_TEMP_LABELS``, skipped with the reason when
  unset): without controls over every item, and with half of the gold (the items of one of two folds of
  postprocess.answers.beta_calibration.fold_of) given as control items, scored on the other half beside Dawid-Skene's
  accuracy there;
- the simulator's 1,000-item, 3-class custom campaign (bench/answers_accuracy.py's, 20 consistently wrong
  workers, seed 1, 5% control items): its own answers.csv (calibrated on its controls) and its labels
  aggregated without controls, against every item's latent answer.

ECE: 6 equal-width bins of [0, 1] (postprocess.answers.calibration.ece). ``python -m bench.calibration
[--no-sim]`` (``make bench-calibration``) prints one line per row and each reliability table, and writes
bench/results-calibration.json; ``make bench`` prints the same lines.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from bench.snow_sets import SETS, gold_of, path_of, read_set
from postprocess.answers.aggregation import aggregate, aggregate_scored
from postprocess.answers.beta_calibration import fold_of
from postprocess.answers.calibration import scored

RESULTS = Path(__file__).resolve().parent / "results-calibration.json"


def _score(answers: pd.DataFrame, truth: pd.Series, column: str = "confidence") -> dict[str, Any]:
    right = answers["label"].to_numpy() == truth.reindex(answers["item_id"]).to_numpy()
    return scored(answers[column].astype(float), right)


def real_set(frame: pd.DataFrame) -> dict[str, Any]:
    """Before and after on every item, and with half the gold as controls on the other half."""
    labels, gold = frame[["item_id", "worker_id", "label"]], gold_of(frame)
    plain = aggregate(labels, "ds").answers
    half = fold_of(pd.Series(sorted(gold.index)), 2) == 0
    control_ids = pd.Index(sorted(gold.index))[half]
    controls = pd.DataFrame({"item_id": control_ids, "answer": gold.reindex(control_ids).to_numpy()})
    result, checked = aggregate_scored(labels, "ds", controls=controls)
    calibrated = result.answers
    other = plain[~plain["item_id"].isin(set(control_ids))]
    return {"items": len(plain), "judgements": len(labels),
            "before": _score(plain, gold, "posterior"), "after": _score(plain, gold),
            "controls": len(controls), "ds_on_other_half": _score(other, gold, "posterior"),
            "calibrated_on_other_half": _score(calibrated, gold),
            "cross_fitted_on_controls": scored(checked["confidence"], checked["correct"]) if checked is not None
            else None}


def simulator_campaign(items: int = 1000, adversaries: int = 20, seed: int = 1) -> dict[str, Any]:
    """The campaign of bench/answers_accuracy.py: its answers.csv (calibrated on its 5% controls) and its
    labels aggregated without controls (before: Dawid-Skene's own; after: the confidence), against every
    item's latent answer."""
    from bench.answers_accuracy import every_latent_answer, project
    from flows.driver.campaign_run import run_campaign

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = project(folder, items, adversaries, 0.05, seed=seed)
        run_campaign(config, db_path=folder / "h.db", out_root=folder / "runs", progress=lambda _: None, seed=seed)
        out = folder / "runs" / "sentiment"
        truth = every_latent_answer(folder).set_index("item_id")["answer"]
        shipped = pd.read_csv(out / "answers.csv", dtype={"item_id": str, "label": str}, keep_default_na=False)
        data = pd.read_csv(out / "dataset.csv", dtype=str, keep_default_na=False)
        labels = data[data["field"] == "sentiment"].rename(columns={"value": "label"})
        plain = aggregate(labels[["item_id", "worker_id", "label", "field"]], "ds").answers
    return {"items": items, "adversaries": adversaries, "seed": seed, "judgements": len(labels),
            "before": _score(plain, truth, "posterior"), "after": _score(plain, truth),
            "campaign_answers_with_controls": _score(shipped, truth),
            "confidence_source": sorted(set(shipped["confidence_source"]))}


def lines(results: dict[str, Any]) -> list[str]:
    """One line per set and reading (accuracy, ECE, mean confidence), then the reliability tables after."""
    out = ["calibration (ECE over 6 equal-width bins of [0, 1]; before: Dawid-Skene's own probability):"]
    for name, run in results.items():
        if "skipped" in run:
            out.append(f"  {name}: skipped ({run['skipped']})")
            continue
        for reading, score in run.items():
            if isinstance(score, dict) and "ece" in score:
                out.append(f"  {name} {reading}: {score['items']} items, accuracy {score['accuracy']}, "
                           f"ECE {score['ece']}, mean confidence {score['mean_confidence']}")
        for reading in ("after", "calibrated_on_other_half", "campaign_answers_with_controls"):
            if reading in run:
                out.append(f"  {name} {reading} reliability: " + "; ".join(
                    f"{r['bin']}: {r['items']} items, confidence {r['confidence']}, right {r['accuracy']}"
                    for r in run[reading]["reliability"]))
    return out


def measure(sim: bool = True) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for snow in SETS:
        path = path_of(snow)
        results[f"snow2008_{snow.name}"] = ({"skipped": f"{snow.variable} unset or missing"} if path is None
                                            else real_set(read_set(path)))
    if sim:
        results["simulator_1000_items"] = simulator_campaign()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-sim", action="store_true", help="the real sets only (seconds, not minutes)")
    results = measure(sim=not parser.parse_args().no_sim)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print("\n".join(lines(results)))


if __name__ == "__main__":
    main()
