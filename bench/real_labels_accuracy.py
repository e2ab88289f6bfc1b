"""`hitflow aggregate` on real crowd labels with expert gold, against crowd-kit run directly.

For each of Snow et al. 2008's sets (bench/snow_sets.py; RTE and Temporal from ``HITFLOW_RTE_LABELS``
and ``HITFLOW_TEMP_LABELS``, skipped with the reason when unset) the command a user types,
``hitflow aggregate FILE --columns ... --gold gold --method M --out ...``, runs in a child process for
each method, and crowd-kit's own models run on the same rows in this one: accuracy against the expert
answers per method, plus majority vote with ties counted at random.

Run: ``make bench-real-labels`` (writes bench/results-aggregation-real.json; GLAD takes a minute on RTE).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pandas as pd

from bench.snow_sets import SETS, gold_of, majority_vote_ties_half, path_of, read_set

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("auto", "mv", "ds", "glad", "mace", "one-coin")


def _crowd_kit(frame: pd.DataFrame) -> dict[str, float]:
    """Accuracy of crowd-kit's models fitted directly (the independent computation)."""
    from crowdkit.aggregation import GLAD, MACE, DawidSkene, MajorityVote, OneCoinDawidSkene

    data = frame.rename(columns={"item_id": "task", "worker_id": "worker"})[["task", "worker", "label"]]
    gold = gold_of(frame)
    models = {"mv": MajorityVote(), "ds": DawidSkene(n_iter=100), "glad": GLAD(n_iter=100),
              "mace": MACE(random_state=0), "one-coin": OneCoinDawidSkene(n_iter=100)}
    out = {}
    for name, model in models.items():
        with warnings.catch_warnings():  # crowd-kit 1.4.2 uses pandas' deprecated inplace=
            warnings.simplefilter("ignore")
            labels = model.fit_predict(data)
        out[name] = round(float((labels.astype(str) == gold.reindex(labels.index)).mean()), 4)
    return out


def _hitflow(path: Path, frame: pd.DataFrame, method: str, work: Path) -> dict[str, object]:
    """The CLI as typed; accuracy read back from its answers.csv (not only from its summary)."""
    snow = "orig_id" in pd.read_csv(path, sep=None, engine="python", nrows=0).columns
    columns = "orig_id,!amt_worker_ids,response" if snow else "item_id,worker_id,label"
    out = work / method / "answers.csv"
    done = subprocess.run([sys.executable, "-m", "flows.cli.main", "aggregate", str(path), "--columns", columns,
                           "--gold", "gold", "--method", method, "--out", str(out)],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    shown = json.loads(done.stdout)
    answers = pd.read_csv(out, dtype=str).set_index("item_id")["label"]
    gold = gold_of(frame)
    return {"accuracy": round(float((answers == gold.reindex(answers.index)).mean()), 4),
            "printed_accuracy": shown["accuracy"], "method_used": shown["methods"]["label"]}


def evaluate(path: Path) -> dict[str, object]:
    frame = read_set(path)
    with tempfile.TemporaryDirectory() as tmp:
        hitflow = {m: _hitflow(path, frame, m, Path(tmp)) for m in METHODS}
    return {"file": path.name, "items": int(frame["item_id"].nunique()), "judgements": len(frame),
            "workers": int(frame["worker_id"].nunique()), "hitflow_aggregate": hitflow,
            "crowd_kit_direct": _crowd_kit(frame), "mv_ties_half": round(majority_vote_ties_half(frame), 4)}


def main() -> None:
    results: dict[str, object] = {}
    for snow in SETS:
        path = path_of(snow)
        results[f"snow2008_{snow.name}"] = ({"skipped": f"{snow.variable} unset or missing"} if path is None
                                            else evaluate(path))
        print(snow.name, json.dumps(results[f"snow2008_{snow.name}"]), flush=True)
    (ROOT / "bench" / "results-aggregation-real.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
