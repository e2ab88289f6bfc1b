"""QC step of an evaluation study, into one flag table."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pandas as pd

from flows.campaigns.batch_review import batch_assignments, replace_batch_flags
from flows.campaigns.campaign_plan import Run
from flows.campaigns.task_pages import page_rules
from flows.core.pages.mturk_forms import answer_fields
from flows.core.pages.templates import page_items
from flows.studies.study_plan import questions
from qc import custom_rules, study_rules  # noqa: F401  (register the study rules and those over a worker's history)
from qc.answer_faults import built_by_hand
from qc.judgement_spec import check_answers
from qc.runner import run_rules

_ITEM_FIELD = re.compile(r"^image_id_(\d+)$")
# rules that judge a worker's answers over the study so far, run on every answer up to the batch
OVER_HISTORY = ("choice_straight_lining", "item_blind", "page_straight_lining")
ANSWER_COLUMNS = ["assignment_id", "worker_id", "image_id", "field", "answer", "ticks", "options", "scale"]


def response_items(fields: dict[str, str]) -> list[str]:
    """The item ids a response names, in page order."""
    found = sorted((int(m.group(1)), v) for k, v in fields.items() if (m := _ITEM_FIELD.match(k)))
    return [v for _, v in found]


def check_response(run: Run, fields: dict[str, str],
                   rows: dict[str, dict[str, Any]]) -> tuple[list[str], list[dict[str, str]]]:
    """(item ids, submit-rule problems) for one response; ``rows``: the study's items by id."""
    ids = response_items(fields)
    unknown = [i for i in ids if i not in rows]
    if unknown or not ids:
        return ids, [{"rule": "unknown_items", "field": "image_id", "detail": f"items not in this study: {unknown}"}]
    spec = page_rules(run.cfg, page_items([rows[i] for i in ids]))
    return ids, check_answers(spec, fields)


def work_seconds(assignment: dict[str, Any], fields: dict[str, str]) -> float:
    """The page's own clock (load to submit) when it reported one, else submit minus accept."""
    try:
        return (float(fields["page_end_ms"]) - float(fields["page_start_ms"])) / 1000.0
    except (KeyError, ValueError):
        return float((assignment["submit_time"] or 0) - (assignment["accept_time"] or 0))


def response_frame(run: Run, batch: int) -> pd.DataFrame:
    """One row per response: the column contract of ``qc.study_rules``."""
    assert run.cfg.study is not None
    # the fields that carry a task's answer, from the page's own questions (``score_0`` -> ``score``)
    main = tuple(q["name"].rsplit("_", 1)[0] for q in questions(run.cfg.study.kind, 0, {"sentences": []}))
    rows = {r["item_id"]: r for r in run.store.rows("SELECT item_id, file_name, url, payload FROM items "
                                                    "WHERE campaign = ?", [run.cfg.name])}
    records, problems = [], []
    for a in batch_assignments(run, batch, posted_only=False):
        malformed = ""  # why the answer could not be read, when it could not (held for a person)
        try:
            fields = answer_fields(a["answer_xml"] or "")
            ids, found = check_response(run, fields, rows)
        except ET.ParseError as exc:
            fields, ids = {}, []
            found, malformed = unreadable(exc)
        tasks = [i for i in range(len(ids)) if any(f"{m}_{i}" in fields for m in main)]
        answers = ["/".join(fields.get(f"{m}_{i}", "") for m in main) for i in tasks]
        records.append({"assignment_id": a["assignment_id"], "worker_id": a["worker_id"],
                        "work_time_s": work_seconds(a, fields), "n_tasks": len(tasks),
                        "main_answers": "\x1f".join(answers),
                        "problems": "; ".join(f"{p['field']}: {p['rule']}" for p in found), "malformed": malformed})
        problems += [{"campaign": run.cfg.name, "assignment_id": a["assignment_id"], "worker_id": a["worker_id"], **p}
                     for p in found]
        if malformed:  # recorded beside the page's rules broken, though no rule of the page decides it
            problems.append({"campaign": run.cfg.name, "assignment_id": a["assignment_id"], "worker_id": a["worker_id"],
                             "rule": "malformed_answer", "field": "", "detail": malformed})
    with run.store.transaction():
        ids = [r["assignment_id"] for r in records]
        run.store.execute(f"DELETE FROM response_problems WHERE campaign = ? AND assignment_id IN "
                          f"({','.join('?' * len(ids))})", [run.cfg.name, *ids])
        if problems:
            run.store.table("response_problems").insert_all(problems)
    return pd.DataFrame(records, columns=["assignment_id", "worker_id", "work_time_s", "n_tasks", "main_answers",
                                          "problems", "malformed"])


def unreadable(exc: ET.ParseError) -> tuple[list[dict[str, str]], str]:
    """(rules broken, why malformed) for an answer that does not parse."""
    if built_by_hand(exc):
        return [{"rule": "built_by_hand", "field": "", "detail": str(exc)}], ""
    return [], str(exc)


def study_qc_batch(run: Run, batch: int) -> dict[str, Any]:
    """The study rules over the batch's responses; the batch's flags replaced in one transaction."""
    assert run.cfg.study is not None
    frame = response_frame(run, batch)
    params = {"min_seconds_per_task": run.cfg.study.min_seconds_per_task,
              "straight_lining_min_tasks": run.cfg.study.straight_lining_min_tasks}
    flags = run_rules(frame, params, tuple(r for r in run.cfg.qc_rules if r not in OVER_HISTORY))
    judged = tuple(r for r in OVER_HISTORY if r in run.cfg.qc_rules)
    if judged:
        so_far = pd.concat([batch_answers(run, int(r["batch"])) for r in run.store.rows(
            "SELECT DISTINCT batch FROM assignments WHERE campaign = ? AND batch > 0 AND batch <= ? ORDER BY batch",
            [run.cfg.name, batch])], ignore_index=True)
        found = run_rules(so_far, run.cfg.qc_params, judged)
        flags = pd.concat([flags, found[found["worker_id"].isin(set(frame["worker_id"]))]], ignore_index=True)
    counts = replace_batch_flags(run, batch, flags, f"{len(frame)} responses")
    return {"responses": len(frame), "flags": counts}


def batch_answers(run: Run, batch: int) -> pd.DataFrame:
    """One row per response, task and question, kept while the batch's responses stay the same."""
    kept = run.notes.setdefault("study_answers", {})
    seen = run.store.rows("SELECT COUNT(*) AS n, MAX(rowid) AS last FROM assignments WHERE campaign = ? AND batch = ?",
                          [run.cfg.name, batch])[0]
    key = (batch, seen["n"], seen["last"])
    if key not in kept:
        kept[key] = pd.DataFrame(_answer_rows(run, batch), columns=ANSWER_COLUMNS)
    return kept[key]


def _answer_rows(run: Run, batch: int) -> list[dict[str, Any]]:
    assert run.cfg.study is not None
    payloads = {r["item_id"]: json.loads(r["payload"] or "{}") for r in run.store.rows(
        "SELECT item_id, payload FROM items WHERE campaign = ?", [run.cfg.name])}
    rows = []
    for a in batch_assignments(run, batch, posted_only=False):  # the rules over a history read it in order
        try:
            fields = answer_fields(a["answer_xml"] or "")
        except ET.ParseError:
            continue  # unreadable: flagged by the response rules, says nothing here
        for i, item in enumerate(response_items(fields)):
            for q in questions(run.cfg.study.kind, i, payloads.get(item) or {"sentences": []}):
                many, options = q["type"] == "many", q.get("options") or []
                scale = (f"{q['min']:g}..{q['max']:g}" if q["type"] in ("slider", "number")
                         else f"{options[0]}..{options[-1]}" if q.get("ordered")  # a rating, read as a scale
                         else f"choice {len(options)}" if q["type"] == "one" else "")
                rows.append({"assignment_id": a["assignment_id"], "worker_id": a["worker_id"], "image_id": item,
                             "field": q["name"].rsplit("_", 1)[0], "answer": fields.get(q["name"], ""), "ticks": many,
                             "options": 0 if many else len(options), "scale": scale})
    return rows
