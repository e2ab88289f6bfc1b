"""Outputs of a campaign on the user's own page, in ``runs/<name>/`` (docs/reference/outputs.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from flows.answers.answers_step import campaign_answers
from flows.answers.field_answers import by_kind
from flows.campaigns.block_evidence import EVERY_BATCH, ON_CONTROLS, pooled_evidence_so_far
from flows.campaigns.budget import adaptive_line, adaptive_saving
from flows.campaigns.campaign_plan import Run
from flows.campaigns.report_summary import money_so_far, route_label, summary_header, work_figures
from flows.campaigns.review_data import review_report
from flows.campaigns.summary import short_item_lines, shortfall_lines
from flows.core.errors import InputFormatError
from flows.core.inputs.csv_files import read_csv_frame
from flows.core.inputs.csv_writing import write_csv, write_dataset
from flows.core.pages.radio_buttons import button_groups
from flows.core.pages.templates import page_items, render
from flows.custom.answer_kinds import answer_kinds
from flows.custom.custom_review import blank_page_constants
from flows.custom.custom_task import choice_field_names, custom_spec, field_base
from flows.custom.item_options import item_options, option_layouts
from flows.custom.truth_source import report_lines
from flows.platforms.registry import platform_for
from postprocess.answers.calibration import against
from postprocess.answers.option_answers import by_option
from postprocess.answers.reliability import accuracy
from postprocess.report_data import blocking_vs_truth
from qc.answer_key import score_responses
from qc.attention_checks import FIELD_PREFIX as ATTENTION_PREFIX
from qc.form_constraints import describe_rules

# hitflow_telemetry: how the text was entered (docs/telemetry.md), read by QC from the ledger; not an answer
BOOKKEEPING = ("image_id", "assignmentId", "sig", "page_start_ms", "page_end_ms", "hitflow_telemetry")
DATASET_COLUMNS = ["batch", "hit_id", "assignment_id", "worker_id", "item_id", "field", "value", "decision",
                   "reasons"]


def _frame(run: Run, sql: str, columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(run.store.rows(sql, [run.cfg.name]), columns=columns)


def _first_items(run: Run) -> list[dict[str, Any]]:
    return page_items(run.store.rows("SELECT item_id, file_name, url, payload FROM items WHERE campaign = ? AND "
                                     "batch = 1 AND hit_index = 0 ORDER BY rowid", [run.cfg.name]))


def _first_spec(run: Run) -> dict[str, Any]:
    return custom_spec(run.cfg, _first_items(run))


def own_options(run: Run, spec: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """Per field whose options come from the item (flows/custom/item_options.py), each item's own."""
    layouts = option_layouts(spec, _first_items(run), set(run.cfg.truth.values()))
    if not layouts:
        return {}
    items = {r["item_id"]: json.loads(r["payload"] or "{}") for r in run.store.rows(
        "SELECT item_id, payload FROM items WHERE campaign = ?", [run.cfg.name])}
    return {f: {i: item_options(layout, p) for i, p in items.items()} for f, layout in layouts.items()}


def merge_button_rows(data: pd.DataFrame, spec: dict[str, Any]) -> pd.DataFrame:
    """A crowd-radio-group's per-button rows, as MTurk posts them, made the group's one row valued the chosen button."""
    groups = button_groups(spec["fields"])
    bases = {field_base(g): {field_base(b): v for b, v in buttons.items()} for g, buttons in groups.items()}
    for group, buttons in bases.items():
        mask = data["field"].isin(list(buttons))
        if not mask.any():
            continue
        part = data[mask]
        chosen = part[part["value"] == part["field"].map(buttons)].groupby(["assignment_id", "item_id"])["value"]
        picked = chosen.agg("|".join).to_dict()
        first = part.drop_duplicates(["assignment_id", "item_id"])
        first = first.assign(field=group, value=[picked.get(k, "") for k in zip(first["assignment_id"],
                                                                                 first["item_id"], strict=True)])
        data = pd.concat([data[~mask], first]).sort_index()
    return data.reset_index(drop=True)


def dataset_frame(run: Run) -> pd.DataFrame:
    """Every answer field of every stored response with its decision, in posting order (the ledger's varies)."""
    rows = _frame(run, "SELECT a.batch, a.hit_id, a.assignment_id, a.worker_id, x.item_id, x.field, x.value, "
                       "COALESCE(d.action, '') AS decision, COALESCE(d.reasons, '') AS reasons "
                       "FROM assignments a JOIN answers x ON x.campaign = a.campaign AND x.assignment_id = "
                       "a.assignment_id "
                       "LEFT JOIN decisions d ON d.campaign = a.campaign AND d.assignment_id = a.assignment_id "
                       "LEFT JOIN hits h ON h.hit_id = a.hit_id AND h.campaign = a.campaign "
                       "WHERE a.campaign = ? AND a.batch > 0 AND a.status != 'NOT ON PROLIFIC' "
                       "ORDER BY a.batch, COALESCE(h.hit_index, -1), a.hit_id, a.submit_time, a.assignment_id, "
                       "x.rowid", DATASET_COLUMNS)
    # attention checks (qc/attention_checks.py), the page's own too, are scored apart: no answer of the task
    own_checks = list(run.cfg.attention.page_checks)
    kept = ~rows["field"].isin([*BOOKKEEPING, *own_checks]) & \
        ~rows["field"].astype(str).str.startswith(ATTENTION_PREFIX)
    answers = blank_page_constants(run, rows[kept].reset_index(drop=True))
    return merge_button_rows(answers, _first_spec(run))


def dataset_json(run: Run, data: pd.DataFrame) -> dict[str, Any]:
    items = run.store.rows("SELECT item_id, payload FROM items WHERE campaign = ? ORDER BY rowid", [run.cfg.name])
    responses = item_responses(data)
    return {"campaign": run.cfg.name, "template": str(run.cfg.template),
            "items": [{**json.loads(item["payload"] or "{}"), "item_id": item["item_id"],
                       "responses": list(responses.get(item["item_id"], {}).values())} for item in items]}


def item_responses(data: pd.DataFrame) -> dict[Any, dict[Any, dict[str, Any]]]:
    """Per item, its responses by assignment (first seen first): worker, decision and the answers by field."""
    # one pass over plain lists, not the frame filtered per item and grouped per assignment (items x rows)
    out: dict[Any, dict[Any, dict[str, Any]]] = {}
    columns = [data[c].tolist() for c in ("item_id", "assignment_id", "worker_id", "decision", "field", "value")]
    for item_id, assignment_id, worker, decision, field, value in zip(*columns, strict=True):
        if pd.isna(assignment_id):  # as groupby: a row without an assignment is no response
            continue
        response = out.setdefault(item_id, {}).setdefault(assignment_id, {
            "assignment_id": assignment_id, "worker_id": str(worker), "decision": str(decision), "answers": {}})
        response["answers"][field] = value
    return out


def campaign_answer_files(run: Run, out_dir: Path, numbers: tuple[str, ...] = ()) -> dict[str, Any]:
    """answers.csv and workers.csv of the ledger in ``out_dir``, for ``hitflow aggregate``; ``numbers``: as _answers."""
    blocked = _frame(run, "SELECT worker_id, batch, rules FROM blocks WHERE campaign = ? ORDER BY batch",
                     ["worker_id", "batch", "rules"])
    return _answers(run, dataset_frame(run), blocked, out_dir, numbers)


def _answers(run: Run, data: pd.DataFrame, blocked: pd.DataFrame, out_dir: Path,
             numbers: tuple[str, ...] = ()) -> dict[str, Any]:
    """answers.csv and workers.csv from approved answers, blocked workers left out; ``numbers``: choices as numbers."""
    spec = _first_spec(run)
    kinds, options = answer_kinds(spec)
    kinds |= {f: "number" for f in numbers if kinds.get(f) in ("choice", "number")}
    approved = data[(data["decision"] == "approve") & data["field"].isin(list(kinds))]
    choices, others = by_kind(approved[["item_id", "worker_id", "field", "value"]], kinds, options)
    others.own = own_options(run, spec)
    return campaign_answers(choices, blocked["worker_id"], run.cfg.answers, out_dir, control_items(run),
                            pooled_evidence_so_far(run.store, run.cfg.name, EVERY_BATCH), others=others)


def choice_fields(run: Run) -> set[str]:
    """The page's single-choice fields (radio buttons, selects): what adaptive rounds judge."""
    return choice_field_names(_first_spec(run))


def control_items(run: Run) -> pd.DataFrame | None:
    """[answers] controls: the items with known answers (scored per worker, kept out of the dataset)."""
    path = run.cfg.answers.controls
    return read_csv_frame(path, ("item_id", "field", "answer"), "the control items file") if path else None


def _fields(run: Run, data: pd.DataFrame) -> list[dict[str, Any]]:
    """Per answer field (its first item's control): the rule, and how many accepted answers have a value."""
    spec = _first_spec(run)
    accepted = data[data["decision"] == "approve"]
    answered = accepted[accepted["value"].astype(str) != ""].groupby("field").size()
    total = accepted.groupby("field").size()
    out: dict[str, dict[str, Any]] = {}
    checks = run.cfg.attention.page_checks
    for f, line in zip(spec["fields"], describe_rules(spec), strict=True):
        base = field_base(f["name"])
        out.setdefault(base, {"name": base, "rule": line.split(": ", 1)[-1], "answered": (
            f"the page's attention check, asking {checks[base]!r}: scored apart, no answer" if base in checks else
            f"accepted answers with a value: {int(answered.get(base, 0))} of {int(total.get(base, 0))}")})
    return list(out.values())


def _scores(run: Run, data: pd.DataFrame, out_dir: Path) -> list[str]:
    """With ``answer_key``: every response scored (``scores.csv``), the summary's line about it."""
    if run.cfg.answer_key is None:
        return []
    key = pd.read_csv(run.cfg.answer_key, dtype=str, keep_default_na=False)
    missing = {"field", "answer", "score"} - set(key.columns)
    if missing:
        raise InputFormatError(f"{run.cfg.answer_key}: needs the columns field, answer, score (lacks "
                               f"{', '.join(sorted(missing))})")
    scores = score_responses(data, key).merge(
        data.drop_duplicates("assignment_id")[["assignment_id", "decision"]], on="assignment_id")
    write_csv(scores, out_dir / "scores.csv")
    mean = scores["percent"].mean() if len(scores) else 0.0
    return [f"answer key: {len(scores)} responses scored, mean {mean:.1f}% ({out_dir / 'scores.csv'})"]


def write_custom_outputs(run: Run, out_dir: Path, truth: list[dict[str, Any]] | None = None,
                         items_truth: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``truth``: sim_workers.json; ``items_truth``: the latent answers (sim_items.json) the answers are scored on."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = dataset_frame(run)
    # The dataset is the accepted work; every response, rejected ones with their reasons, stays beside it.
    controls = control_items(run)
    is_control = data["item_id"].isin(set(controls["item_id"]) if controls is not None else set())
    blocked = _frame(run, "SELECT worker_id, batch, rules FROM blocks WHERE campaign = ? ORDER BY batch",
                     ["worker_id", "batch", "rules"])
    # a worker stopped on their control answers is untrusted (paid where the route gives no ground to reject)
    untrusted = data["worker_id"].isin(blocked.loc[blocked["rules"].str.contains("|".join(ON_CONTROLS)), "worker_id"])
    write_dataset(data[(data["decision"] == "approve") & ~is_control & ~untrusted], out_dir)
    write_csv(data, out_dir / "responses.csv", for_spreadsheet=False)
    whole = dataset_json(run, data[~untrusted])
    answered_controls = set(data.loc[is_control, "item_id"])  # once, not once an item (items x rows)
    whole["items"] = [i for i in whole["items"] if i["item_id"] not in answered_controls]
    (out_dir / "dataset.json").write_text(json.dumps(whole, indent=1), encoding="utf-8")
    flags = _frame(run, "SELECT worker_id, rule, value, threshold, assignment_id, image_id, detail, batch "
                        "FROM qc_flags WHERE campaign = ? ORDER BY batch, rowid",
                   ["worker_id", "rule", "value", "threshold", "assignment_id", "image_id", "detail", "batch"])
    write_csv(flags, out_dir / "flags.csv")
    write_csv(blocked, out_dir / "blocked_workers.csv")
    truth_table = None
    if truth is not None:
        (out_dir / "sim_workers.json").write_text(json.dumps(truth, indent=1), encoding="utf-8")
        work = data.groupby("worker_id")["assignment_id"].nunique().rename("assignments").reset_index()
        truth_table = blocking_vs_truth(pd.DataFrame(truth), blocked, work)
    answers = _answers(run, data, blocked, out_dir)
    if items_truth is not None:
        (out_dir / "sim_items.json").write_text(json.dumps(items_truth, indent=1), encoding="utf-8")
        if answers and items_truth:  # none on a route whose simulated people keep no latent answers
            # a checkbox group's rows and truth compared option by option
            scored, latent = by_option(pd.read_csv(out_dir / "answers.csv", dtype=str, keep_default_na=False),
                                       pd.DataFrame(items_truth, dtype=str))
            answers["truth_accuracy"] = round(accuracy(scored, latent), 4)
            # a number field's rows (its median) carry an interval, not a confidence: calibration reads the others
            answers["truth_calibration"] = against(scored[scored["confidence"] != ""], latent)
            answers["calibrations"] = [*answers.get("calibrations", []), {
                **answers["truth_calibration"], "controls": False, "title": "against the simulator's latent answers"}]
    answered = data[data["item_id"] != ""].groupby("field")["item_id"].nunique().to_dict()
    truth_notes = report_lines(items_truth or [], answered)  # what the rehearsal's choices mean
    per_assignment = data.drop_duplicates("assignment_id")
    context = {"name": run.cfg.name, "template": run.cfg.template, "target": route_label(run),
               "responses": len(per_assignment), "workers": data["worker_id"].nunique(),
               "items": data.loc[~is_control & (data["item_id"] != ""), "item_id"].nunique(),  # the task's own
               "approved": int((per_assignment["decision"] == "approve").sum()),
               "rejected": int((per_assignment["decision"] == "reject").sum()),
               "blocked": blocked.to_dict("records"), "fields": _fields(run, data[~is_control]),
               "flags": sorted(flags["rule"].value_counts().items()),
               "incomplete": shortfall_lines(run.store, run.cfg.name),
               "truth": truth_table.to_dict("records") if truth_table is not None else [],
               "sample": data.head(30).to_dict("records"), "answers": answers, "truth_notes": truth_notes,
               "review": [] if (review := review_report(run)) is None else review.to_dict("records")}
    figures = work_figures(run, "responses")
    figures[0] = ("responses approved", f"{context['approved']} of {context['responses']} on {context['items']} items")
    saving = adaptive_saving(run.store, run.cfg.name, run.store.recorded_config(run.cfg.name),
                             platform_for(run.platform).assignment_cost(run.cfg))
    figures += [("adaptive overlap", adaptive_line(saving))] if saving else []
    short = short_item_lines(run.store, run.cfg.name)  # every item answered or named
    context["summary"] = summary_header(run.store, run.cfg.name, figures, money_so_far(run),
                                        about=f"Task page: {run.cfg.template}.", lines=short,
                                        provenance=run.notes.get("provenance"))
    (out_dir / "report.html").write_text(render("custom_report.html.j2", context), encoding="utf-8")
    summary = [f"responses: {context['responses']} from {context['workers']} workers on {context['items']} items "
               f"({context['approved']} approved, {context['rejected']} rejected); workers blocked: {len(blocked)}",
               *[f"  {f['name']}: {f['rule']} ({f['answered']})" for f in context["fields"]],
               f"dataset: {out_dir / 'dataset.csv'} and {out_dir / 'dataset.json'}",
               f"report:  {out_dir / 'report.html'}", *short]
    if context["answers"]:
        made = context["answers"]
        summary.append(f"answers: {out_dir / made['answers_file']} ({made['answer_count']} answers, mean confidence "
                       f"{made['mean_confidence']}), worker skill: {out_dir / made['workers_file']}")
        summary += [f"  {line}" for line in (made.get("blocked_line"), *made.get("notes", [])) if line]
        summary += [f"  {f['field']}: {f['method']}, chosen by auto: {f['why']}" for f in context["answers"]["methods"]
                    if f.get("why")]
        if "truth_calibration" in context["answers"]:
            latent = context["answers"]["truth_calibration"]
            summary.append(f"  against the simulator's latent answers: accuracy {latent['accuracy']}, mean confidence "
                           f"{latent['mean_confidence']}, ECE {latent['ece']} ({latent['ece_bins']})")
    summary += [adaptive_line(saving)] if saving else []
    summary += [line if line.startswith("simulated text") else f"simulated choices: {line}" for line in truth_notes]
    summary += _scores(run, data, out_dir)
    (out_dir / "summary.txt").write_text("\n".join(summary) + "\n", encoding="utf-8")  # its last line ends too
    return {"out_dir": out_dir, "responses": context["responses"], "truth": truth_table, "blocked": blocked,
            "adaptive": saving}
