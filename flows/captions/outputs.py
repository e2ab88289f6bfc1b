"""Campaign outputs: dataset (JSON + CSV), flags, blocked workers, report, ground truth."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from flows.answers.answers_step import BatchJudgements
from flows.campaigns.batch_review import caption_frame
from flows.campaigns.block_evidence import campaign_history
from flows.campaigns.budget import qualification_money
from flows.campaigns.campaign_plan import Run
from flows.campaigns.extension_rounds import extended_batches, extended_by_unit, recorded_rounds, short_with_reasons
from flows.campaigns.report_summary import report_summary, route_label
from flows.campaigns.review_data import review_report
from flows.campaigns.summary import shortfall_lines
from flows.captions.content_blind import caption_blind_lines, write_notes
from flows.captions.dataset_files import CaptionTally, DatasetFiles
from flows.core.config.config import CampaignConfig, top_up_cap
from flows.core.inputs.csv_writing import write_csv
from flows.core.outputs.spelling_cache import spelling_index
from flows.core.run.free_memory import release_free_memory
from flows.platforms.registry import platform_for
from postprocess.answers.extension_rounds import short_items
from postprocess.qualification_report import flags_by_score, score_summary
from postprocess.report_data import batch_counts, blocking_vs_truth, time_bands
from postprocess.spellcheck import CONTROL_CHARS, add_word_workers, joined_spelling_stats, spellcheck_frame, words_of
from postprocess.telemetry_report import flagged_workers, origin_by_batch
from qc.telemetry_frame import text_origin
from qc.worker_history import history_table

NO_BATCH = -1  # reads no captions: the empty frame, with every column
# A small campaign's captions are read once for both passes of the dataset (its words, then its files); past
# this many rows each batch is read again in the second pass, so memory stays a batch's at any size
KEPT_CAPTIONS = 20_000
FLAG_OUT = ["worker_id", "rule", "value", "threshold", "assignment_id", "image_id", "detail", "batch"]


def _table(run: Run, sql: str, columns: list[str]) -> pd.DataFrame:
    """The query's rows read by pages, without a dict per row (hundreds of thousands at COCO's size)."""
    return run.store.frame(sql, [run.cfg.name], columns)


def batch_captions(run: Run, batch: int, telemetry: bool = True) -> pd.DataFrame:
    """One batch's captions with ``is_rejected``; ``telemetry=False``: without telemetry columns."""
    frame = caption_frame(run, batch, telemetry)
    # "unpaid": Prolific never finished it (returned, timed out), so its answers stay out of the dataset
    rejected = set(_rows(run, "SELECT assignment_id FROM decisions WHERE campaign = ? AND batch = ? AND "
                              "action IN ('reject', 'unpaid')", batch))
    blocked_in = set(_rows(run, "SELECT worker_id FROM blocks WHERE campaign = ? AND batch = ?", batch))
    struck = {(r["assignment_id"], r["image_id"]) for r in run.store.rows(  # a reviewer's verdict
        "SELECT s.assignment_id, s.image_id FROM struck_captions s JOIN assignments a ON a.campaign = s.campaign "
        "AND a.assignment_id = s.assignment_id WHERE s.campaign = ? AND a.batch = ?", [run.cfg.name, batch])}
    # A typed Series: an empty campaign's plain [] would make the mask below select columns, not rows.
    frame["is_rejected"] = pd.Series([a in rejected or w in blocked_in or (a, i) in struck
                                      for a, w, i in zip(frame["assignment_id"], frame["worker_id"],
                                                         frame["image_id"], strict=True)],
                                     index=frame.index, dtype=bool)
    return frame


def _rows(run: Run, sql: str, batch: int) -> list[Any]:
    return [next(iter(r.values())) for r in run.store.rows(sql, [run.cfg.name, batch])]


def campaign_keep_words(run: Run, batches: list[int],
                        kept: dict[int, pd.DataFrame] | None = None) -> tuple[set[str], Counter[str]]:
    """The words spell-correction keeps because enough workers used them, and their uses; ``kept``: filled with
    the batches' captions (as :func:`corrected_captions` reads them) up to ``KEPT_CAPTIONS`` rows."""
    seen: dict[str, set[str]] = {}
    uses: Counter[str] = Counter()
    rows = 0
    for batch in batches:
        keeping = kept is not None and rows < KEPT_CAPTIONS
        frame = batch_captions(run, batch, telemetry=keeping)
        rows += len(frame)
        if kept is not None and keeping and rows <= KEPT_CAPTIONS:
            kept[batch] = frame
        add_word_workers(seen, frame[~frame["is_rejected"]], run.cfg.campaign_word_min_workers, uses)
    return words_of(seen, run.cfg.campaign_word_min_workers, uses, spelling_index()), uses


def corrected_captions(run: Run, batch: int, keep: set[str], uses: Counter[str],
                       frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """One batch's captions (``frame``: as :func:`batch_captions` read them already) with ``caption_corrected``
    and ``edits`` (accepted ones spell-corrected)."""
    frame = batch_captions(run, batch) if frame is None else frame
    good = frame[~frame["is_rejected"]]
    checked = spellcheck_frame(good, run.cfg.campaign_word_min_workers, index=spelling_index(), keep=keep,
                               uses=uses)
    frame["caption_corrected"] = frame["caption"].str.replace(CONTROL_CHARS, " ", regex=True)  # as spellcheck's
    frame["edits"] = ""
    frame.loc[checked.index, ["caption_corrected", "edits"]] = checked[["caption_corrected", "edits"]].values
    frame["text_origin"] = text_origin(frame)  # from the page's telemetry; "unknown" without it
    if run.cfg.gating.qualification_key is None:
        return frame
    scores = qualification_scores(run)  # gated campaigns: each caption carries its worker's test score
    return frame.assign(qualification_score=frame["worker_id"].map(dict(zip(scores["worker_id"], scores["score"],
                                                                            strict=True))))


def qualification_scores(run: Run) -> pd.DataFrame:
    return _table(run, "SELECT worker_id, score, spelling_score, grammar_score, judging_score, passed, mode "
                       "FROM qualification_scores WHERE campaign = ? ORDER BY worker_id",
                  ["worker_id", "score", "spelling_score", "grammar_score", "judging_score", "passed", "mode"])


def write_outputs(run: Run, out_dir: Path, truth: list[dict[str, Any]] | None = None,
                  platform_asked: bool = False) -> dict[str, Any]:
    """The dataset, flags, blocked workers and report, reading captions a batch at a time."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if not platform_asked:  # the platform's own test scores (MTurk's Test), unless asked already
        platform_for(run.platform).record_test_scores(run)
    blocked = _table(run, "SELECT worker_id, batch, rules FROM blocks WHERE campaign = ? ORDER BY batch",
                     ["worker_id", "batch", "rules"])
    read = write_dataset(run, out_dir, blocked)
    flags, history = write_flag_files(run, out_dir, blocked)
    truth_table = write_sim_truth(out_dir, truth, blocked, read.tally)
    notes = caption_blind_lines(run)  # once: what the simulated captions mean
    write_notes(out_dir, notes)  # the end-of-run summary reads them back (flows/campaigns/summary.py)
    report = caption_report(run, out_dir, read, flags, blocked, history, truth_table, notes)
    # Imported here: the report's plots need matplotlib (~1.5 s CPU), and `hitflow run --dry-run` imports this module.
    from flows.campaigns.report import render_report

    (out_dir / "report.html").write_text(render_report(report), encoding="utf-8")
    return {"out_dir": out_dir, "captions": read.tally.captions, "truth": truth_table, "cost": report["cost"],
            "spelling": report["spelling"], "blocked": blocked}


@dataclass
class CaptionPass:
    """What the dataset's single pass over the captions gathers for the files and report written after it."""

    tally: CaptionTally
    choices: BatchJudgements  # "is there text?", aggregated into answers.csv
    short: list[pd.DataFrame] = field(default_factory=list)  # images with fewer accepted captions than asked for
    origins: list[pd.DataFrame] = field(default_factory=list)  # how each batch's text arrived


def write_dataset(run: Run, out_dir: Path, blocked: pd.DataFrame) -> CaptionPass:
    """dataset.json, dataset.csv and dataset.raw.csv, a batch of spell-corrected captions at a time."""
    batches = [r["batch"] for r in run.store.rows(  # batch 0 is the qualification test
        "SELECT DISTINCT batch FROM assignments WHERE campaign = ? AND batch > 0 ORDER BY batch", [run.cfg.name])]
    kept: dict[int, pd.DataFrame] = {}
    keep, uses = campaign_keep_words(run, batches, kept)
    read = CaptionPass(CaptionTally(set(blocked["worker_id"]), run.cfg.assignments_per_image),
                       BatchJudgements(blocked["worker_id"], run.cfg.answers))
    with DatasetFiles(out_dir) as dataset:
        for batch in batches or [NO_BATCH]:  # an empty campaign still gets its (empty) files
            captions = corrected_captions(run, batch, keep, uses, kept.pop(batch, None))
            items = _table(run, "SELECT item_id AS image_id, file_name FROM items WHERE campaign = ? "
                                f"AND batch = {int(batch)} ORDER BY rowid", ["image_id", "file_name"])
            dataset.add(captions, items)
            if run.cfg.answers.top_up_rounds:  # read by short_images_lines alone, which says nothing without top-ups
                read.short.append(short_items(captions, items["image_id"], read.tally.per_image).assign(batch=batch))
            read.tally.add(captions)
            read.choices.add(captions)
            read.origins.append(origin_by_batch(captions))
            del captions
            if not kept:  # the kept batches written (all of a small campaign's): then one batch's at a time
                release_free_memory()
    del keep, uses
    spelling_index.cache_clear()  # ~70 MB, not needed again by this run (a later one loads it in under a second)
    release_free_memory()
    return read


def write_flag_files(run: Run, out_dir: Path, blocked: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """flags.csv, blocked_workers.csv and blocked_history.csv; returns the flags and the history."""
    flags = _table(run, "SELECT worker_id, rule, value, threshold, assignment_id, image_id, detail, batch "
                        "FROM qc_flags WHERE campaign = ? ORDER BY batch, rowid", FLAG_OUT)
    write_csv(flags, out_dir / "flags.csv")
    write_csv(blocked, out_dir / "blocked_workers.csv")
    history = history_table(campaign_history(run.store, run.cfg.name, run.cfg.batches), list(blocked["worker_id"]))
    write_csv(history, out_dir / "blocked_history.csv")  # per batch: captions, flags by rule
    return flags, history


def write_sim_truth(out_dir: Path, truth: list[dict[str, Any]] | None, blocked: pd.DataFrame,
                    tally: CaptionTally) -> pd.DataFrame | None:
    """On the simulator: sim_workers.json and blocking against the profiles for the report; None elsewhere."""
    if truth is None:
        return None
    (out_dir / "sim_workers.json").write_text(json.dumps(truth, indent=1), encoding="utf-8")
    return blocking_vs_truth(pd.DataFrame(truth), blocked, tally.work())


def caption_report(run: Run, out_dir: Path, read: CaptionPass, flags: pd.DataFrame, blocked: pd.DataFrame,
                   history: pd.DataFrame, truth_table: pd.DataFrame | None,
                   notes: list[str] | None = None) -> dict[str, Any]:
    """What report.html shows (its sections write their own files); ``notes``: closing lines."""
    report = _report_data(run, read.tally, flags, blocked, truth_table)
    report["incomplete"] = shortfall_lines(run.store, run.cfg.name) + short_images_lines(run, read.short, out_dir)
    report["answers"] = read.choices.answers(out_dir)
    lines = history.groupby("worker_id").apply(  # per blocked worker, a line a batch: captions, flags by rule
        lambda h: [f"batch {b}: {c} captions{', ' + f if f else ''}" for b, c, f in
                   zip(h["batch"], h["captions"], h["flags_by_rule"], strict=True)], include_groups=False)
    report["blocked"] = report["blocked"].assign(history=[lines.get(w, []) for w in report["blocked"]["worker_id"]])
    report["qualification"] = _qualification_report(run, read.tally, flags, blocked, out_dir)
    report["review"] = review_report(run)
    report["telemetry"] = {"origins": pd.concat(read.origins, ignore_index=True) if read.origins else origin_by_batch(
        pd.DataFrame()), "workers": flagged_workers(flags, blocked)}
    report["summary"] = report_summary(run.store, run.cfg.name, read.tally.counts_frame(), blocked, report["cost"],
                                       provenance=run.notes.get("provenance"), lines=notes)
    return report


def _qualification_report(run: Run, tally: CaptionTally, flags: pd.DataFrame, blocked: pd.DataFrame,
                          out_dir: Path) -> dict[str, Any] | None:
    """Gated campaigns: the scores file, its problems file and the report's section."""
    if run.cfg.gating.qualification_key is None:
        return None
    scores = qualification_scores(run)
    write_csv(scores, out_dir / "qualification_scores.csv")
    write_csv(_table(run, "SELECT worker_id, item_id, answer, problem FROM qualification_problems WHERE campaign = ?",
                     ["worker_id", "item_id", "answer", "problem"]), out_dir / "qualification_problems.csv")
    by_band, correlation = flags_by_score(scores, tally.per_worker_captions(), flags, blocked)
    return {"summary": score_summary(scores), "scores": scores, "by_band": by_band, "correlation": correlation,
            "threshold": run.cfg.gating.qualification_min_score, "mode": run.cfg.gating.qualification_mode}


def _report_data(run: Run, tally: CaptionTally, flags: pd.DataFrame, blocked: pd.DataFrame,
                 truth: pd.DataFrame | None) -> dict[str, Any]:
    decisions = _table(run, "SELECT assignment_id, batch, action FROM decisions WHERE campaign = ?",
                       ["assignment_id", "batch", "action"])
    assignments = tally.times()
    blocked_rows = blocked.assign(samples=[tally.samples.get(w, []) for w in blocked["worker_id"]])
    approved = int((decisions["action"] == "approve").sum())
    platform = platform_for(run.platform)
    unit = platform.assignment_cost(run.cfg)
    test_spent = qualification_money(run.store, run.cfg.name, platform.gate_test_cost(run.cfg),
                                     run.cfg.gating.qualification_takers)[1]
    return {
        "name": run.cfg.name, "target": route_label(run),
        "counts": batch_counts(assignments, decisions, blocked, flags),
        "times": assignments, "bands": time_bands(assignments, run.cfg.qc_params["time_outlier_sigmas"]),
        "flags": flags, "blocked": blocked_rows,
        "canned": tally.canned(), "spelling": joined_spelling_stats(tally.spelling), "truth": truth,
        "cost": {"spent": f"{unit * approved + test_spent:.2f}", "budget": f"{run.cfg.budget:.2f}",
                 "approved": approved, "unit": f"{unit:.2f}", "qualification": f"{test_spent:.2f}",
                 "works": platform.WORDS.works},
    }


# ---- caption top-ups' outputs: top_ups.csv, short_images.csv and their summary line ----
def short_images_lines(run: Run, short: list[pd.DataFrame], out_dir: Path) -> list[str]:
    """With caption top-ups: the images topped up and those still short, with why."""
    if not run.cfg.answers.top_up_rounds:
        return []
    write_csv(topped_up_images(run), out_dir / "top_ups.csv")
    frame = pd.concat(short, ignore_index=True) if short else pd.DataFrame(columns=["item_id", "accepted", "batch"])
    frame = short_with_reasons(run, frame, top_up_cap(run.cfg.assignments_per_image))
    write_csv(frame.rename(columns={"item_id": "image_id"})[["image_id", "accepted", "batch", "reason"]],
              out_dir / "short_images.csv")
    if frame.empty:
        return []
    shown = ", ".join(frame["item_id"].head(10)) + (", ..." if len(frame) > 10 else "")
    return [f"{len(frame)} image(s) have fewer than {run.cfg.assignments_per_image} accepted captions: "
            f"{short_reasons_text(frame['reason'].value_counts(), run.cfg)}: {shown} (short_images.csv)"]


def short_reasons_text(counts: pd.Series, cfg: CampaignConfig) -> str:
    """"3 ran out of top-up rounds (2 a batch), 1 ...": the reasons short_images.csv gives, counted."""
    words = {"rounds": f"ran out of top-up rounds ({cfg.answers.top_up_rounds} a batch)",
             "after": "fell short after their batch's rounds had ended (struck in review or reconciled late)",
             "unfilled": "were on a unit the crowd did not fill (more asked of it would not have come)",
             "cap": f"reached {top_up_cap(cfg.assignments_per_image)} assignments a unit",
             "unposted": "were on no posted unit"}
    return ", ".join(f"{int(counts[r])} {words[r]}" for r in words if counts.get(r, 0))


def topped_up_images(run: Run) -> pd.DataFrame:
    """``image_id, batch, hit_id, more_assignments``: every image whose HIT got a top-up."""
    rows, platform = [], platform_for(run.platform)
    for batch in extended_batches(run):
        extended = extended_by_unit(recorded_rounds(run, batch))
        rows += [{"image_id": item, "batch": batch, "hit_id": unit, "more_assignments": extended[unit]}
                 for unit, items in platform.posted_units(run, batch) if unit in extended for item in items]
    return pd.DataFrame(rows, columns=["image_id", "batch", "hit_id", "more_assignments"])
