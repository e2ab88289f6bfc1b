"""QC step of an evaluation study: every stored response checked against its page's submit rules
(the same spec the page enforced) and the study QC rules, into one flag table."""

from __future__ import annotations

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
from qc import study_rules  # noqa: F401  (registers the study rules)
from qc.answer_faults import built_by_hand
from qc.judgement_spec import check_answers
from qc.runner import run_rules

_ITEM_FIELD = re.compile(r"^image_id_(\d+)$")


def response_items(fields: dict[str, str]) -> list[str]:
    """The item ids a response names, in page order."""
    found = sorted((int(m.group(1)), v) for k, v in fields.items() if (m := _ITEM_FIELD.match(k)))
    return [v for _, v in found]


def main_fields(kind: str) -> tuple[str, ...]:
    """The fields that carry a task's answer, from the page's own questions (``score_0`` -> ``score``)."""
    return tuple(q["name"].rsplit("_", 1)[0] for q in questions(kind, 0, {"sentences": []}))


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
    main = main_fields(run.cfg.study.kind)
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
        run.store.execute(f"DELETE FROM response_problems WHERE assignment_id IN ({','.join('?' * len(ids))})", ids)
        if problems:
            run.store.table("response_problems").insert_all(problems)
    return pd.DataFrame(records, columns=["assignment_id", "worker_id", "work_time_s", "n_tasks", "main_answers",
                                          "problems", "malformed"])


def unreadable(exc: ET.ParseError) -> tuple[list[dict[str, str]], str]:
    """(the page's rules broken, the reason it is malformed) for an answer that does not parse. A value no
    browser writes was built by hand around the page: ``invalid_answer``, as a bypassed page's rule. Any
    other failure (XML the platform wrote, JSON a page's script wrote, a size the page let through) could
    be ours: ``malformed_answer``, held for a person and never a rejection or a block (qc/answer_faults.py)."""
    if built_by_hand(exc):
        return [{"rule": "built_by_hand", "field": "", "detail": str(exc)}], ""
    return [], str(exc)


def study_qc_batch(run: Run, batch: int) -> dict[str, Any]:
    """The study rules over the batch's responses; the batch's flags replaced in one transaction."""
    assert run.cfg.study is not None
    frame = response_frame(run, batch)
    params = {"min_seconds_per_task": run.cfg.study.min_seconds_per_task,
              "straight_lining_min_tasks": run.cfg.study.straight_lining_min_tasks}
    flags = run_rules(frame, params, run.cfg.qc_rules)
    counts = replace_batch_flags(run, batch, flags, f"{len(frame)} responses")
    return {"responses": len(frame), "flags": counts}
