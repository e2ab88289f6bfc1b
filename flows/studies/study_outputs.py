"""An evaluation study's outputs under ``runs/<study>/``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from flows.answers.answers_step import campaign_answers
from flows.answers.field_answers import OtherKinds
from flows.campaigns.batch_review import in_words
from flows.campaigns.campaign_plan import Run
from flows.campaigns.report_summary import money_so_far, route_label, summary_header, work_figures
from flows.campaigns.summary import short_item_lines, shortfall_lines
from flows.core.inputs.csv_writing import write_csv
from flows.core.pages.templates import render
from flows.studies.study_plots import statistics_tables, study_plots
from postprocess import study_frames as frames
from postprocess.agreement import agreement
from postprocess.error_stats import error_summary
from postprocess.pairwise_stats import pairwise_summary
from postprocess.rating_stats import rating_summary
from postprocess.screening import demographic_exclusions
from postprocess.severity_stats import severity

LABELLED = ("expert_rating", "crowd_selection")  # judgements.csv holds item_id, worker_id, label: answers.csv too
KEPT_ACTIONS = ("approve",)  # rejected and unpaid (returned, timed-out) work stays out of the analysis


def kept_answers(run: Run) -> pd.DataFrame:
    """Answers of approved responses that no QC rule flagged."""
    rows = run.store.rows(f"""
        SELECT x.assignment_id, a.worker_id, x.item_id, x.field, x.value
        FROM answers x JOIN assignments a ON a.campaign = x.campaign AND a.assignment_id = x.assignment_id
        JOIN decisions d ON d.campaign = a.campaign AND d.assignment_id = a.assignment_id
        WHERE a.campaign = ? AND d.action IN ({','.join('?' * len(KEPT_ACTIONS))})
          AND a.assignment_id NOT IN (SELECT assignment_id FROM qc_flags WHERE campaign = a.campaign)""",
                          [run.cfg.name, *KEPT_ACTIONS])
    return pd.DataFrame(rows, columns=["assignment_id", "worker_id", "item_id", "field", "value"])


def served(run: Run, answers: pd.DataFrame) -> pd.Series:
    """Which answer rows are for an item the response was shown (hostile ids never reach a statistic)."""
    items = {r["item_id"] for r in run.store.rows("SELECT item_id FROM items WHERE campaign = ?", [run.cfg.name])}
    hit_items = {r["assignment_id"]: set(json.loads(r["item_ids"] or "[]")) for r in run.store.rows(
        "SELECT a.assignment_id, h.item_ids FROM assignments a JOIN hits h ON h.campaign = a.campaign AND h.hit_id "
        "= a.hit_id "
        "WHERE a.campaign = ?", [run.cfg.name])}
    # page-level answers (demographics, consent) carry no item id: kept when the screen asks for them
    page_fields = set(run.cfg.study.screen.fields) if run.cfg.study is not None else set()
    return pd.Series([(item == "" and field in page_fields)
                      or (item in items and item in hit_items.get(assignment, items))
                      for assignment, item, field in zip(answers["assignment_id"], answers["item_id"],
                                                         answers["field"], strict=True)],
                     index=answers.index, dtype=bool)


def payloads(run: Run) -> dict[str, dict[str, Any]]:
    return {r["item_id"]: json.loads(r["payload"] or "{}")
            for r in run.store.rows("SELECT item_id, payload FROM items WHERE campaign = ?", [run.cfg.name])}


def analyse(run: Run, answers: pd.DataFrame, out_dir: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(the judgements table written to judgements.csv, the analysis)."""
    assert run.cfg.study is not None
    kind, shown = run.cfg.study.kind, payloads(run)
    if kind == "expert_rating":
        table = frames.expert_labels(answers)
        return table, rating_summary(table, run.cfg.study.analysis_level)
    if kind == "crowd_selection":
        table = frames.selection_labels(answers, shown)
        return table, rating_summary(table, "nominal")
    if kind == "error_analysis":
        table = frames.error_judgements(answers)
        return table, {**error_summary(table),
                       "agreement": agreement(table.rename(columns={"congruent": "label"}), "nominal")}
    if kind == "pairwise_grading":
        table = frames.pairwise_judgements(answers, shown)
        return table, pairwise_summary(table)
    return _severity(run, answers, shown, out_dir)


def _severity(run: Run, answers: pd.DataFrame, shown: dict[str, dict[str, Any]],
              out_dir: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Screened participants out, the trial phase stored but not analysed, then the statistics."""
    assert run.cfg.study is not None
    rules = run.cfg.study.screen
    people = frames.demographics(answers, rules.fields)
    excluded = demographic_exclusions(people, rules)
    write_csv(people, out_dir / "participants.csv")
    write_csv(excluded, out_dir / "excluded_participants.csv")
    write_csv(frames.severity_ratings(answers, shown, include_calibration=True).query("role == 'calibration'"),
              out_dir / "calibration.csv", for_spreadsheet=False)  # data, as judgements.csv
    ratings = frames.severity_ratings(answers, shown)
    # judgements.csv keeps screened-out people's rows, marked, so `hitflow analyze` leaves them out too
    ratings = ratings.assign(excluded=ratings["participant_id"].isin(set(excluded["participant_id"])).astype(int))
    kept = ratings[ratings["excluded"] == 0].drop(columns="excluded")
    result = severity(kept) if kept["participant_id"].nunique() >= 2 else {"error": "fewer than two participants"}
    result["screened_out"] = excluded.to_dict("records")
    return ratings, result


def write_study_outputs(run: Run, out_dir: Path) -> dict[str, Any]:
    out_dir.mkdir(parents=True, exist_ok=True)
    answers = kept_answers(run)
    shown = served(run, answers)
    answers = answers[shown]
    try:
        table, analysis = analyse(run, answers, out_dir)
    except (ValueError, TypeError, KeyError, ZeroDivisionError) as exc:  # a statistic refused the data it got
        why = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        table, analysis = answers, {"error": f"too little data for the analysis ({why})"}
    analysis["answers_for_unserved_items_dropped"] = int((~shown).sum())
    write_csv(table, out_dir / "judgements.csv", for_spreadsheet=False)  # the study's data: exact answers
    (out_dir / "analysis.json").write_text(json.dumps(analysis, indent=1, default=str), encoding="utf-8")
    flags = pd.DataFrame(run.store.rows("SELECT worker_id, rule, value, threshold, assignment_id, detail FROM qc_flags "
                                        "WHERE campaign = ?", [run.cfg.name]),
                         columns=["worker_id", "rule", "value", "threshold", "assignment_id", "detail"])
    write_csv(flags, out_dir / "flags.csv")
    blocked = pd.DataFrame(run.store.rows("SELECT worker_id, rules FROM blocks WHERE campaign = ?", [run.cfg.name]),
                           columns=["worker_id", "rules"])
    write_csv(blocked, out_dir / "blocked_workers.csv")
    assert run.cfg.study is not None
    labels, others = study_judgements(run.cfg.study.kind, table)
    answers_report = campaign_answers(labels, blocked["worker_id"], run.cfg.answers, out_dir, others=others)
    decisions = pd.DataFrame(run.store.rows("SELECT action, COUNT(*) AS n FROM decisions WHERE campaign = ? "
                                            "GROUP BY action", [run.cfg.name]), columns=["action", "n"])
    counts = dict(zip(decisions["action"], decisions["n"].astype(int), strict=True))
    summary = "\n".join([study_summary(run, counts, len(blocked), analysis, out_dir),
                         *short_item_lines(run.store, run.cfg.name)])  # every item answered or named
    (out_dir / "study_summary.txt").write_text(summary + "\n", encoding="utf-8")
    report = {"name": run.cfg.name, "kind": run.cfg.study.kind, "target": route_label(run),
              "platform": run.platform, "decisions": counts, "flags": flags, "blocked": blocked,
              "statistics": statistics_tables(run.cfg.study.kind, analysis),
              "analysis_error": analysis.get("error", ""),
              "plots": study_plots(run.cfg.study.kind, table, analysis),
              "incomplete": shortfall_lines(run.store, run.cfg.name), "answers": answers_report,
              "summary": summary_header(run.store, run.cfg.name, work_figures(run, "responses"), money_so_far(run),
                                        about=f"Kind: {run.cfg.study.kind}. Route: {run.platform}.",
                                        lines=summary.splitlines()[1:], provenance=run.notes.get("provenance"))}
    (out_dir / "report.html").write_text(render("study_report.html.j2", report), encoding="utf-8")
    return {"out_dir": out_dir, "judgements": len(table), "analysis": analysis, "decisions": counts}


def study_judgements(kind: str, table: pd.DataFrame) -> tuple[pd.DataFrame, OtherKinds]:
    """What answers.csv aggregates of a study's judgements.csv (screened-out participants left out)."""
    none = pd.DataFrame(columns=["item_id", "worker_id", "label"])
    if kind in LABELLED and "label" in table.columns:
        return table[["item_id", "worker_id", "label"]], OtherKinds()
    if kind != "severity_rating" or "score" not in table.columns:
        return none, OtherKinds()
    kept = table[table["excluded"] == 0] if "excluded" in table.columns else table
    scores = pd.to_numeric(kept["score"], errors="coerce")
    numbers = pd.DataFrame({"item_id": kept["item_id"].astype(str), "worker_id": kept["participant_id"].astype(str),
                            "field": "score", "value": scores})[scores.notna()].reset_index(drop=True)
    return none, OtherKinds(numbers=numbers, not_numbers=int(scores.isna().sum()))


def study_summary(run: Run, counts: dict[str, int], blocked: int, analysis: dict[str, Any], out_dir: Path) -> str:
    assert run.cfg.study is not None
    lines = [f"study: {run.cfg.name} ({run.cfg.study.kind}) via {run.platform}",
             f"responses: {sum(counts.values())} ({in_words(counts)}); "
             f"participants blocked: {blocked}"]
    lines.append(headline(run.cfg.study.kind, analysis))
    lines += [f"analysis: {out_dir / 'analysis.json'}", f"report:   {out_dir / 'report.html'}"]
    return "\n".join(lines)


def headline(kind: str, a: dict[str, Any]) -> str:
    """One line of the result people look for first."""
    if "error" in a:
        return f"analysis: {a['error']}"
    if kind in ("expert_rating", "crowd_selection"):
        g = a["agreement"]
        ci = a.get("intervals", {})
        return (f"{a['pairs']} pairs, mean {a['mean_of_means']}{_ci(ci.get('mean_of_means'))}; agreement: alpha "
                f"{g['krippendorff_alpha']}{_ci(ci.get('krippendorff_alpha'))}, "
                f"Fleiss kappa {g['fleiss_kappa']}, {g['percent_unanimous']}% unanimous")
    if kind == "error_analysis":
        top = ", ".join(f"{k} {v}" for k, v in sorted(a["category_counts"].items(), key=lambda kv: -kv[1])[:4])
        return (f"congruent share {a['congruent_share']}{_ci(a.get('intervals', {}).get('congruent_share'))}; "
                f"top categories: {top}")
    if kind == "pairwise_grading":
        bt = a["dimensions"].get("overall", {}).get("bradley_terry", {})
        return "overall quality, Bradley-Terry: " + ", ".join(
            f"{s} {v['strength']:+.2f}{_ci({'low': v.get('boot_low'), 'high': v.get('boot_high')})}"
            for s, v in bt.items())
    an = a["anova"]
    return (f"repeated-measures ANOVA: F({an['df1_gg']:.2f}, {an['df2_gg']:.1f}) = {an['F']:.3f}, "
            f"p(GG) = {an['p_gg']:.3g}, eta2 = {an['eta2']:.3f}{_ci(a.get('intervals', {}).get('eta2'))}; "
            f"{a['participants']} participants, "
            f"{len(a['screened_out'])} screened out")


def _ci(found: dict[str, Any] | None) -> str:
    """" [low, high]" of a bootstrap interval (95%, seeded; see postprocess/bootstrap.py), or ""."""
    if not found or found.get("low") is None:
        return ""
    return f" [95% CI {found['low']:.3g}, {found['high']:.3g}]"
