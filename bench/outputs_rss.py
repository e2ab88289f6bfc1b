"""The outputs of a kept run made again on its ledger, with the peak RSS of each of their steps and
the sha256 of every file: where the outputs' memory goes, and whether a change kept their bytes.

``python -m bench.outputs_rss KEPT OUT [--replicas N]``: KEPT is a ``bench.scale --one N SEED
--keep KEPT`` folder (ledger.db, the generated config, the run's outputs); OUT a new folder.
``--replicas N``: each batch's "is there text?" labels (and the blocked workers) N times over under
new item and worker ids, so the answers step sees a campaign N times the size (8 on a 40,000-image
ledger: about COCO's 1.4 million labels) in a minute rather than a 30-minute run; the other files then
do not change, the answers do. Peaks are of this process alone (no simulator, no earlier phases),
which at 40,000 and 80,000 images matched the whole run's outputs phase within 5 MB.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from bench.rss_phases import PhaseRss, rss_mb

STEPS = ("campaign_keep_words", "corrected_captions", "short_items", "origin_by_batch", "history_table",
         "blocking_vs_truth", "_report_data", "_qualification_report", "report_summary", "short_images_lines")


def timed(rss: PhaseRss, seconds: dict[str, float], owner: Any, name: str, label: str) -> None:
    """``owner.name`` replaced by itself, its time and peak RSS recorded under ``label``."""
    fn = getattr(owner, name)

    def wrapper(*args: Any, **kw: Any) -> Any:
        before, start = rss.enter(label), time.perf_counter()
        try:
            return fn(*args, **kw)
        finally:
            seconds[label] += time.perf_counter() - start
            rss.enter(before)
    setattr(owner, name, wrapper)


def replicated(replicas: int) -> None:
    """The answers step's input ``replicas`` times over (new item and worker ids each time)."""
    import flows.answers.answers_step as step
    import flows.captions.outputs as out

    def copies(frame: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
        return pd.concat([frame.assign(**{c: frame[c] + f"_{k}" for c in columns}) for k in range(replicas)],
                         ignore_index=True)

    labels: Callable[[pd.DataFrame], pd.DataFrame] = step.text_present_labels
    step.text_present_labels = lambda captions: copies(labels(captions), ("item_id", "worker_id"))  # type: ignore[assignment]
    table = out._table

    def blocks_too(run: Any, sql: str, columns: list[str]) -> pd.DataFrame:
        frame = table(run, sql, columns)
        blocks = sql.startswith("SELECT worker_id, batch, rules FROM blocks")
        return pd.concat([copies(frame, ("worker_id",)), frame], ignore_index=True) if blocks else frame
    out._table = blocks_too


def outputs_again(kept: Path, dest: Path, replicas: int) -> dict[str, Any]:
    from flows.core.run.malloc_arenas import limit_malloc_arenas

    limit_malloc_arenas()  # as `hitflow run` does
    import flows.answers.answers_step as step
    import flows.campaigns.report as report
    import flows.captions.outputs as out
    from flows.captions.dataset_files import CaptionTally, DatasetFiles
    from flows.core.config.config import load_config
    from flows.core.ledger.store import Store
    from flows.core.run.run_context import Run
    from flows.platforms.mturk import adapter as mturk

    configs = sorted(kept.glob("generated_*.toml"))
    cfg = load_config(configs[0] if configs else Path(__file__).parents[1] / "config" / "vizwiz_full_scale.toml")
    made = kept / cfg.name
    notes = {"provenance": json.loads((made / "provenance.json").read_text())}  # the report's header as the run's
    run = Run(cfg, Store(kept / "ledger.db"), None, mturk.Target("sim", "http://127.0.0.1:1"),  # type: ignore[arg-type]
              lambda _m: None, lambda _s: None, notes=notes)
    truth = json.loads((made / "sim_workers.json").read_text())
    if replicas > 1:
        replicated(replicas)
    rss, seconds = PhaseRss(0.01), defaultdict(float)
    for name in STEPS:
        timed(rss, seconds, out, name, name)
    timed(rss, seconds, report, "render_report", "render_report")
    timed(rss, seconds, DatasetFiles, "add", "dataset.add")
    timed(rss, seconds, CaptionTally, "add", "tally.add")
    timed(rss, seconds, step.BatchJudgements, "add", "answers: gather")
    timed(rss, seconds, step, "campaign_answers", "answers")
    with rss:
        rss.enter("outputs, other")
        start = time.perf_counter()
        out.write_outputs(run, dest, truth, platform_asked=True)
        total = time.perf_counter() - start
    return {"kept": str(kept), "replicas": replicas, "seconds": round(total, 1),
            "peak_rss_mb": round(max(rss.peaks.values()), 1), "peak_rss_mb_by_step": rss.rounded(),
            "seconds_by_step": {k: round(v, 2) for k, v in seconds.items()}, "rss_mb_after": round(rss_mb(), 1),
            "sha256": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(dest.iterdir())}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kept", type=Path, help="a bench.scale --keep folder")
    ap.add_argument("out", type=Path, help="a new folder for the outputs")
    ap.add_argument("--replicas", type=int, default=1, help="the answers step's labels this many times over")
    a = ap.parse_args()
    if a.out.exists() and any(a.out.iterdir()):
        raise SystemExit(f"{a.out}: not empty")
    print(json.dumps(outputs_again(a.kept, a.out, a.replicas), indent=1))


if __name__ == "__main__":
    main()
