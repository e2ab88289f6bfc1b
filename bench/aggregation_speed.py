"""Every `hitflow aggregate --method` on 92,721 labels, as a user runs it, beside majority vote.

Each method runs as the command a user types (``python -m flows.cli aggregate FILE --out ... --method M``)
in a child process, timed whole (start-up, reading, tidying, the model, writing: what ``/usr/bin/time``
shows), with majority vote run first and last and the ratio taken to their median; the target is 8x.
The file is AdultContent2's labels when ``HITFLOW_ADULT_LABELS`` names a copy, else a synthetic file of
its shape (bench/adult_shaped.py). ``--crowd-kit`` also fits crowd-kit 1.4.2's own GLAD, MACE and
one-coin Dawid-Skene to the same judgements in this process (minutes each) and prints the share of
items on which postprocess.answers.fast_em's answer is theirs (target >= 99.5%), on the judgements ordered as
:func:`as_crowd_kit_reads` says (where crowd-kit's MACE indexes its tables consistently).

Run: ``make bench-aggregation-speed`` (add ``CROWDKIT=1`` for the comparison); writes
bench/results-aggregation-speed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from bench.adult_shaped import labels_file

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("mv", "ds", "auto", "one-coin", "mace", "glad", "skill")
TARGET = 8.0


def run_cli(path: Path, method: str, work: Path) -> dict[str, Any]:
    """Seconds for the whole command (wall and CPU: on 2 shared cores the CPU seconds move less with the
    load), and the progress lines it printed on stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "flows.cli", "aggregate", str(path), "--out",
                           str(work / method / "answers.csv"), "--method", method],
                          capture_output=True, text=True, cwd=ROOT, check=True,
                          env={**os.environ, "HITFLOW_PROGRESS": "always"})  # its lines, though stderr is a pipe
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
            "progress_lines": done.stderr.count("hitflow aggregate:"),
            "method_used": json.loads(done.stdout)["methods"]["label"]}


def timings(path: Path, work: Path) -> dict[str, Any]:
    first = run_cli(path, "mv", work)
    rows = {m: run_cli(path, m, work) for m in METHODS[1:]}
    last = run_cli(path, "mv", work)
    mv = statistics.median([first["seconds"], last["seconds"]])
    mv_cpu = statistics.median([first["cpu_seconds"], last["cpu_seconds"]])
    rows = {"mv": {**first, "seconds": mv, "cpu_seconds": mv_cpu, "runs": [first["seconds"], last["seconds"]]},
            **rows}
    for name, row in rows.items():
        row["ratio_to_mv"] = round(row["seconds"] / mv, 2)
        row["cpu_ratio_to_mv"] = round(row["cpu_seconds"] / mv_cpu, 2)
        print(f"{name:9s} {row['seconds']:7.2f} s  {row['ratio_to_mv']:5.2f}x mv  CPU {row['cpu_seconds']:6.2f} s "
              f"{row['cpu_ratio_to_mv']:5.2f}x mv  progress lines {row['progress_lines']}", flush=True)
    return rows


def as_crowd_kit_reads(data: pd.DataFrame) -> pd.DataFrame:
    """``task, worker, label`` where crowd-kit's MACE reads its tables as it indexes them: workers renamed by
    rank (the one who gave the most distinct labels first) and the rows ordered by worker then label, so
    the first-seen order of workers and of labels is their text order (crowd-kit reads its per-worker
    tables in text order but indexes them in first-seen order). Renaming workers changes no model."""
    per_worker = data.groupby("worker")["label"].nunique()
    rank = per_worker.reset_index().sort_values(["label", "worker"], ascending=[False, True], kind="stable")
    names = {w: f"w{i:06d}" for i, w in enumerate(rank["worker"])}
    renamed = data.assign(worker=data["worker"].map(names))
    return renamed.sort_values(["worker", "label"], kind="stable").reset_index(drop=True)


def crowd_kit_agreement(path: Path) -> dict[str, Any]:
    """Share of items where fast_em's answer is crowd-kit's, and both fits' seconds."""
    import crowdkit.aggregation as ck

    from postprocess.answers import fast_em
    from postprocess.answers.judgements import judgements
    from postprocess.answers.mace_em import MACE

    data = judgements(pd.read_csv(path, dtype=str, keep_default_na=False)).rename(
        columns={"item_id": "task", "worker_id": "worker"})[["task", "worker", "label"]]
    data = as_crowd_kit_reads(data)
    pairs = {"one-coin": (fast_em.OneCoinDawidSkene(), ck.OneCoinDawidSkene(n_iter=100)),
             "mace": (MACE(random_state=0, label_prior="uniform"), ck.MACE(random_state=0)),  # crowd-kit's prior
             "glad": (fast_em.GLAD(), ck.GLAD(n_iter=100))}
    out = {}
    for name, (ours, theirs) in pairs.items():
        start = time.perf_counter()
        mine = ours.fit(data).probas_
        ours_s = time.perf_counter() - start
        with warnings.catch_warnings():  # crowd-kit 1.4.2 uses pandas' deprecated inplace=
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            other = theirs.fit(data).probas_
            theirs_s = time.perf_counter() - start
        other.columns = other.columns.astype(str)
        other = other.reindex(index=mine.index, columns=mine.columns)
        same = float((mine.idxmax(axis=1) == other.idxmax(axis=1)).mean())
        out[name] = {"same_answer_share": round(same, 5), "items": len(mine), "fast_em_seconds": round(ours_s, 2),
                     "crowd_kit_seconds": round(theirs_s, 1)}
        print(f"{name:9s} same answer as crowd-kit on {same:.4%} of {len(mine)} items "
              f"(fast_em {ours_s:.1f} s, crowd-kit {theirs_s:.0f} s)", flush=True)
    return out


def measure(crowd_kit: bool = False) -> dict[str, Any]:
    """The timings (and with ``crowd_kit`` the agreement) on the file, with the load average around them."""
    with tempfile.TemporaryDirectory() as tmp:
        path, what = labels_file(Path(tmp))
        print(f"labels: {what}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
        results: dict[str, Any] = {"file": what, "labels": sum(1 for _ in path.open()) - 1,
                                   "load_average_before": round(os.getloadavg()[0], 1),
                                   "target_ratio": TARGET, "methods": timings(path, Path(tmp))}
        if crowd_kit:
            results["crowd_kit_agreement"] = crowd_kit_agreement(path)
    results["load_average_after"] = round(os.getloadavg()[0], 1)
    return results


def summary_line(results: dict[str, Any]) -> str:
    slow = [m for m, row in results["methods"].items() if min(row["ratio_to_mv"], row["cpu_ratio_to_mv"]) > TARGET]
    worst = max(results["methods"].items(), key=lambda item: item[1]["ratio_to_mv"])
    return (f"aggregate, every method on {results['labels']:,} labels: slowest {worst[0]} {worst[1]['seconds']} s = "
            f"{worst[1]['ratio_to_mv']}x majority vote (target {TARGET:g}x; "
            f"{'all within' if not slow else 'over: ' + ', '.join(slow)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crowd-kit", action="store_true", help="also compare answers with crowd-kit's own fits")
    results = measure(parser.parse_args().crowd_kit)
    print(summary_line(results))
    (ROOT / "bench" / "results-aggregation-speed.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
