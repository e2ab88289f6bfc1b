"""QC step of a campaign on the user's own page: every response checked against the rules its page
declared, then the generic rules over frames built per kind of field (``qc/custom_rules.py``)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import pandas as pd

from flows.batch_review import replace_batch_flags
from flows.campaign_plan import Run
from flows.custom_task import INDEXED, custom_spec, field_kinds
from flows.sim.forms import parse_answer_xml
from flows.study_review import work_seconds
from flows.task_pages import page_items
from qc.custom_rules import TEXT_RULES
from qc.flags import FLAG_COLUMNS
from qc.form_constraints import Spec, check_form
from qc.runner import run_rules

RESPONSE_COLUMNS = ["assignment_id", "worker_id", "work_time_s", "problems"]
ANSWER_COLUMNS = ["assignment_id", "worker_id", "image_id", "field", "kind", "answer"]


def _hit_specs(run: Run, batch: int) -> dict[str, tuple[list[str], Spec]]:
    """Per HIT of the batch: its item ids and the rules of its page."""
    items = {r["item_id"]: r for r in run.store.rows("SELECT item_id, file_name, url, payload FROM items "
                                                     "WHERE campaign = ?", [run.cfg.name])}
    specs = {}
    for hit in run.store.rows("SELECT hit_id, item_ids FROM hits WHERE campaign = ? AND batch = ?",
                              [run.cfg.name, batch]):
        ids = [i for i in json.loads(hit["item_ids"]) if i in items]
        specs[hit["hit_id"]] = (ids, custom_spec(run.cfg, page_items([items[i] for i in ids])))
    return specs


def _response_items(ids: list[str], fields: dict[str, str]) -> list[str]:
    """Item ids by page position: the page's ``image_id_<i>`` when it sent them, else the HIT's."""
    return [fields.get(f"image_id_{k}", item) for k, item in enumerate(ids)]


def answer_frames(run: Run, batch: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per response with its rule problems, one row per answer field x item)."""
    specs = _hit_specs(run, batch)
    responses, answers = [], []
    for a in run.store.rows("SELECT * FROM assignments WHERE campaign = ? AND batch = ? "
                            "AND status != 'NOT ON PROLIFIC'", [run.cfg.name, batch]):
        ids, spec = specs.get(a["hit_id"], ([], {"fields": []}))
        try:
            fields = parse_answer_xml(a["answer_xml"] or "")
            problems = check_form(spec, fields)
        except ET.ParseError as exc:
            fields, problems = {}, [{"rule": "malformed_answer", "field": "", "detail": str(exc)}]
        responses.append({"assignment_id": a["assignment_id"], "worker_id": a["worker_id"],
                          "work_time_s": work_seconds(a, fields),
                          "problems": "; ".join(f"{p['field']}: {p['rule']}" for p in problems)})
        kinds, shown = field_kinds(spec), _response_items(ids, fields)
        for f in spec["fields"]:
            m = INDEXED.match(f["name"])
            base, index = (m["base"], int(m["index"])) if m else (f["name"], -1)
            item = shown[index] if 0 <= index < len(shown) else ""
            answers.append({"assignment_id": a["assignment_id"], "worker_id": a["worker_id"], "image_id": item,
                            "field": base, "kind": kinds[base], "answer": fields.get(f["name"], "")})
    return pd.DataFrame(responses, columns=RESPONSE_COLUMNS), pd.DataFrame(answers, columns=ANSWER_COLUMNS)


def custom_flags(responses: pd.DataFrame, answers: pd.DataFrame, params: dict[str, Any],
                 enabled: tuple[str, ...]) -> pd.DataFrame:
    """Every enabled rule on the frame it reads: responses, each free-text field, the choice fields."""
    per_response = tuple(r for r in enabled if r not in TEXT_RULES and r != "choice_straight_lining")
    frames = [run_rules(responses.assign(image_id="", caption=""), params, per_response)]
    texts = answers[answers["kind"] == "text"]
    for field, group in texts.groupby("field"):
        frame = group.assign(caption=group["answer"], is_precanned=False).reset_index(drop=True)
        flags = run_rules(frame, params, tuple(r for r in enabled if r in TEXT_RULES))
        frames.append(flags.assign(detail=[f"{field}: {d}" for d in flags["detail"]]))
    if "choice_straight_lining" in enabled:
        frames.append(run_rules(answers[answers["kind"] == "choice"], params, ("choice_straight_lining",)))
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True)[FLAG_COLUMNS] if frames else pd.DataFrame(columns=FLAG_COLUMNS)


def custom_qc_batch(run: Run, batch: int) -> dict[str, Any]:
    """The batch's responses checked and flagged; its flags replaced in one transaction."""
    responses, answers = answer_frames(run, batch)
    params = {**run.cfg.qc_params, "seed": run.cfg.seed + batch}
    flags = custom_flags(responses, answers, params, run.cfg.qc_rules)
    counts = replace_batch_flags(run, batch, flags, f"{len(responses)} responses")
    return {"responses": len(responses), "flags": counts}
