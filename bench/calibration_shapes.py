"""Is the no-controls confidence calibrated on crowds shaped like the calibration work's held-out real sets? (RTE,
Temporal, AdultContent: not on this machine; bench/crowd_shapes.py builds synthetic sets of their shape,
with hard and misleading items, spammers and adversaries) and on the real WSD set (../shared/data).

Each set is written as a labels file with a ``gold`` column and aggregated by the CLI as a user runs it,
``python -m flows.cli aggregate FILE --out ... --gold gold``, three times: the default (``auto``; its
``confidence``, the calibration block the CLI prints), ``--method ds`` (its ``posterior``: Dawid-Skene's
own probability, the confidence answers.csv gave before the calibration work; and its ``confidence``), ``--method
mv`` (its ``posterior``: majority vote's agreement). Rows: set, reading, items, accuracy, mean
confidence, ECE (6 equal-width bins of [0, 1], postprocess.answers.calibration).

``python -m bench.calibration_shapes [--repo PATH]`` (``make bench-calibration-shapes``; about two
minutes): ``--repo`` runs another checkout's CLI on the same files (e.g. main before a change, for a
before/after table). Writes bench/results-calibration-shapes.json (this checkout's run only).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from bench.crowd_shapes import SHAPES, shaped
from bench.snow_sets import SETS, path_of, read_set
from postprocess.answers.calibration import scored

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results-calibration-shapes.json"
READINGS = (("auto", "confidence", "confidence (default auto)"), ("ds", "confidence", "confidence (--method ds)"),
            ("ds", "posterior", "Dawid-Skene posterior"), ("mv", "posterior", "majority vote agreement"))


def _sets() -> list[tuple[str, pd.DataFrame]]:
    """(name, ``item_id, worker_id, label, gold`` frame) of each set; WSD when its file is found."""
    out = [(f"{s.name}-shaped", shaped(s)) for s in SHAPES]
    out.append(("rte-shaped, no misleading items", shaped(SHAPES[0]._replace(misleading=0.0))))
    # nearer the real AdultContent, where Dawid-Skene read 0.973 and 0.766 were right: more items mislead the crowd
    out.append(("adult-shaped, 15% misleading items", shaped(SHAPES[2]._replace(misleading=0.15))))
    wsd = path_of(SETS[0])
    if wsd is not None:
        out.append(("wsd (real, Snow 2008)", read_set(wsd)))
    return out


def _cli(repo: Path, path: Path, out: Path, extra: tuple[str, ...]) -> dict[str, Any]:
    """The CLI's summary (its JSON; answers.csv is at ``out``), run from ``repo`` as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run([sys.executable, "-m", "flows.cli", "aggregate", str(path), "--out", str(out),
                           "--gold", "gold", *extra], cwd=repo, env=env, capture_output=True, text=True, check=True)
    summary: dict[str, Any] = json.loads(done.stdout)
    return summary


def measure_set(repo: Path, name: str, frame: pd.DataFrame, folder: Path) -> list[dict[str, Any]]:
    """The four readings of one set (see the module), each scored against its gold."""
    path = folder / "labels.csv"
    frame.to_csv(path, index=False)
    gold = frame.drop_duplicates("item_id").set_index("item_id")["gold"].astype(str).str.strip()
    runs = {}
    for method in dict.fromkeys(method for method, _, _ in READINGS):
        summary = _cli(repo, path, folder / method / "answers.csv", ("--method", method))
        runs[method] = summary, pd.read_csv(folder / method / "answers.csv", dtype={"item_id": str, "label": str},
                                            keep_default_na=False)
    rows = []
    for method, column, reading in READINGS:
        summary, answers = runs[method]
        right = answers["label"].to_numpy() == gold.reindex(answers["item_id"]).to_numpy()
        score = scored(answers[column].astype(float), right)
        if column == "confidence":  # the CLI's own calibration block says the same
            assert abs(summary["calibration"]["ece"] - score["ece"]) < 1e-3, (summary["calibration"], score)
        rows.append({"set": name, "reading": reading, "method": summary["methods"]["label"], "items": score["items"],
                     "accuracy": score["accuracy"], "mean_confidence": score["mean_confidence"], "ece": score["ece"],
                     "labels": int(answers["judgements"].sum())})
    return rows


def measure(repo: Path = ROOT) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for number, (name, frame) in enumerate(_sets()):
            folder = Path(tmp) / str(number)
            folder.mkdir()
            rows += measure_set(repo, name, frame, folder)
    return rows


def lines(rows: list[dict[str, Any]]) -> list[str]:
    out = ["calibration without controls on synthetic crowds of the held-out sets' shape (not the real sets) and "
           "real WSD; ECE over 6 equal-width bins of [0, 1]",
           f"  {'set':34s} {'reading':28s} {'method':6s} {'items':>6s} {'accuracy':>8s} {'mean conf':>9s} {'ECE':>6s}"]
    out += [f"  {r['set']:34s} {r['reading']:28s} {r['method']:6s} {r['items']:6d} {r['accuracy']:8.4f} "
            f"{r['mean_confidence']:9.4f} {r['ece']:6.4f}" for r in rows]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose CLI to run (default: this one)")
    repo = parser.parse_args().repo.resolve()
    rows = measure(repo)
    if repo == ROOT:
        RESULTS.write_text(json.dumps(rows, indent=1) + "\n")
    print("\n".join(lines(rows)))


if __name__ == "__main__":
    main()
