"""QC step of a campaign on the user's own page: its declared rules, then the generic rules per kind of field."""

from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET
from typing import Any

import pandas as pd

from flows.answers.control_quiz import quiz_rows
from flows.campaigns.batch_review import batch_assignments, replace_batch_flags, sample_so_far
from flows.campaigns.block_evidence import control_blocks_due
from flows.campaigns.campaign_plan import Run
from flows.core.pages.mturk_forms import answer_fields, form_fields
from flows.core.pages.radio_buttons import button_groups, merge_buttons
from flows.core.pages.templates import page_items
from flows.custom.custom_task import INDEXED, custom_page, custom_source, custom_spec, field_kinds, masked_page
from flows.custom.custom_text_qc import TEXT_LEVEL, page_reading, text_flags
from flows.custom.item_options import Layout, option_layouts
from flows.custom.page_scripts import left_blank, script_blanks
from flows.studies.study_review import OVER_HISTORY, response_items, unreadable, work_seconds
from qc.answer_values import WHEN_INPUTS, number
from qc.custom_rules import has_value
from qc.flags import FLAG_COLUMNS, flag_frame
from qc.form_constraints import Spec, check_form, problems_text, split_held
from qc.runner import run_rules
from qc.timing_rules import REVIEW_ONLY_FLAGS

RESPONSE_COLUMNS = ["assignment_id", "worker_id", "work_time_s", "problems", "answered", "fields", "ticks", "malformed",
                    "sentinels", "page_items"]
BY_KIND = {"mark_agreement": "annotations"}  # rules over one kind of answer field only
# OVER_HISTORY judges a worker's choice, number, date and tick answers over the campaign so far (a one-item page
# judges a worker from all their pages): run on every such answer up to the batch (custom_flags)
HISTORY_KINDS = ("choice", "number", "date")
# controls whose value as the page loads is one a person may choose (an option, a slider's start, a preset date)
CHOSEN_KINDS = ("radio", "checkbox", "select", "range", "number", *WHEN_INPUTS)
ANSWER_COLUMNS = ["assignment_id", "worker_id", "image_id", "field", "kind", "answer", "telemetry", "telemetry_field",
                  "options", "ticks", "scale"]


class PageRules:
    """The rules of the page a response was given, by its items (rendered once per set of items)."""

    def __init__(self, run: Run, batch: int):
        self.run = run
        # the quiz's controls head a worker's first page on a task server: its rules cover them as the items
        self.items = quiz_rows(run.store, run.cfg.name) | {r["item_id"]: r for r in run.store.rows(
            "SELECT item_id, file_name, url, payload FROM items WHERE campaign = ?", [run.cfg.name])}
        self.hits = {h["hit_id"]: json.loads(h["item_ids"]) for h in run.store.rows(
            "SELECT hit_id, item_ids FROM hits WHERE campaign = ? AND batch = ?", [run.cfg.name, batch])}
        self.specs: dict[tuple[str, ...], Spec] = {}
        self.layouts: dict[tuple[str, ...], dict[str, Layout]] = {}  # fields whose options come from the items
        self.written: dict[tuple[str, ...], dict[str, str]] = {}
        self.blanks: dict[tuple[str, ...], frozenset[str]] = {}  # the page script's words for "no answer"
        self.checks = set(run.cfg.attention.page_checks)  # the page's own: scored apart

    def items_of(self, hit_id: str, fields: dict[str, str]) -> list[str]:
        """The HIT's items; a task server's unit (Prolific, links) names its own, checked when it came in."""
        return self.hits.get(hit_id) or response_items(fields)

    def spec(self, ids: list[str]) -> Spec:
        key = tuple(ids)
        if key not in self.specs:
            known = [self.items[i] for i in ids if i in self.items]
            self.specs[key] = custom_spec(self.run.cfg, page_items(known)) if known else {"fields": []}
            self.layouts[key] = option_layouts(self.specs[key], page_items(known), set(self.run.cfg.truth.values()))
        return self.specs[key]

    def constants(self, ids: list[str]) -> dict[str, str]:
        """What the page itself writes into its text fields (a value="<END>", a textarea's text; not what it
        fills from the item): an answer still equal to it was never given."""
        key = tuple(ids)
        if key not in self.written:
            known = page_items([self.items[i] for i in ids if i in self.items])
            page = custom_page(self.run.cfg, known) if known else ""
            # a slider's or a number's starting value is one a person may choose: not the page's constant; a box's
            # placeholder ("Type the words here") is the page's words, never the worker's
            fields = form_fields(page)
            shown = {f.name: f.value or f.attrs.get("placeholder", "") for f in fields if f.kind not in CHOSEN_KINDS}
            source = custom_source(self.run.cfg) if known else ""
            self.written[key] = {n: v for n, v in shown.items() if v.strip() and not from_items(v, known, source)}
            self.blanks[key] = script_blanks(page, {o for f in fields if f.kind in CHOSEN_KINDS
                                                    for o in (*f.options, f.value)})
        return self.written[key]


def from_items(value: str, items: list[dict[str, Any]], source: str = "") -> bool:
    """Whether a field's value as the page loads came from its items (is one of their values, or holds one of four
    characters or more not written as it is in the page's template ``source``): no page constant."""
    shown = value.strip()
    written = bool(source) and (shown in source or html.escape(shown, quote=False) in source)
    for item in items:
        for v in item.values():
            text = str(v).strip() if isinstance(v, str | int | float) and not isinstance(v, bool) else ""
            if text and (text == shown or (len(text) >= 4 and text in shown and not written)):
                return True
    return False


def blank_page_constants(run: Run, rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` (the dataset's: ``batch, hit_id, item_id, field, value``) with every value still the page's own
    made "", as QC reads it (the ledger keeps what was posted)."""
    keep = []
    for batch, part in rows.groupby("batch", sort=False):
        rules = PageRules(run, int(batch))
        pages: dict[str, tuple[list[str], dict[str, str]]] = {}
        for hit_id, answer in part.groupby("hit_id", sort=False):  # a task-server unit names its own items
            ids = rules.hits.get(str(hit_id)) or [i for i in dict.fromkeys(answer["item_id"].tolist()) if i]
            pages[str(hit_id)] = (ids, rules.constants(ids))
        for at, hit_id, item, field, value in zip(part.index, part["hit_id"], part["item_id"], part["field"],
                                                  part["value"], strict=True):
            ids, written = pages[str(hit_id)]
            if value and written and value == written.get(f"{field}_{ids.index(item)}" if item in ids else field):
                keep.append(at)
    return rows.assign(value=rows["value"].where(~rows.index.isin(keep), ""))


def answer_frames(run: Run, batch: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per response with its rule problems, one row per answer field x item)."""
    rules = PageRules(run, batch)
    responses, answers = [], []
    for a in batch_assignments(run, batch):
        malformed = ""  # why the answer could not be read, when it could not (held for a person)
        try:
            fields = answer_fields(a["answer_xml"] or "")
            ids = rules.items_of(a["hit_id"], fields)
            spec = rules.spec(ids)
            fields = merge_buttons(fields, button_groups(spec["fields"]))  # MTurk answers such a group per button
            # what the page let through (more marks than QC compares, on a widget without that cap) is held
            problems, malformed = split_held(check_form(spec, fields))
        except ET.ParseError as exc:  # the worker's doing (built by hand) or possibly ours: qc/answer_faults.py
            fields, ids, spec = {}, [], {"fields": []}
            problems, malformed = unreadable(exc)
        if ids and not spec["fields"]:
            problems.append({"rule": "unknown_items", "field": "image_id", "detail": "items not in this campaign"})
        rows = [r for r in _answer_rows(a, spec, fields, ids, set(rules.layouts.get(tuple(ids), {})))
                if r["field"] not in rules.checks]
        sentinels = _no_page_constants(rows, rules.constants(ids), spec, rules.blanks.get(tuple(ids), frozenset()))
        responses.append({"assignment_id": a["assignment_id"], "worker_id": a["worker_id"],
                          "work_time_s": work_seconds(a, fields), "page_items": len(ids),
                          "problems": problems_text(problems),
                          "answered": sum(has_value(r["answer"], r["kind"]) for r in rows), "fields": len(rows),
                          "ticks": sum(bool(r["ticks"]) for r in rows),
                          "malformed": malformed, "sentinels": "; ".join(sentinels)})
        answers += rows
    return pd.DataFrame(responses, columns=RESPONSE_COLUMNS), pd.DataFrame(answers, columns=ANSWER_COLUMNS)


def _no_page_constants(rows: list[dict[str, Any]], written: dict[str, str], spec: Spec,
                       blanks: frozenset[str] = frozenset()) -> list[str]:
    """Each answer still equal to what the page itself wrote into its field is made no answer (the ledger
    keeps what was posted); returns those of fields that must be answered (a hidden field the page's script
    writes, a required field), as ``field_i='<END>'``: every field of the response, not only its first. A
    hidden field holding the script's own "no answer" (``blanks``, whole or as a part) is left blank too."""
    must = {f["name"] for f in spec["fields"] if f.get("input") == "hidden" or f.get("required")}
    hidden = {f["name"] for f in spec["fields"] if f.get("input") == "hidden"}
    left = []
    for r in rows:
        value = written.get(r["telemetry_field"], "")
        if r["answer"] and r["answer"] == value:
            r["answer"] = ""
            if r["telemetry_field"] in must and number(value) is None:  # a count a script leaves at 0: answered
                left.append(f"{r['telemetry_field']}={value[:40]!r}")
        elif r["telemetry_field"] in hidden and (said := left_blank(r["answer"], blanks)):
            r["answer"] = "" if said == r["answer"].strip() else r["answer"]
            left.append(f"{r['telemetry_field']}={said[:40]!r}")
    return left


def _answer_rows(a: dict[str, Any], spec: Spec, fields: dict[str, str], ids: list[str],
                 own: set[str]) -> list[dict[str, Any]]:
    """One row per answer field x item; a field whose options come from the item (``own``) answered by place."""
    kinds, rows = field_kinds(spec), []
    for f in spec["fields"]:
        m = INDEXED.match(f["name"])
        base, index = (m["base"], int(m["index"])) if m else (f["name"], -1)
        item = fields.get(f"image_id_{index}", ids[index] if 0 <= index < len(ids) else "") if index >= 0 else ""
        answer = fields.get(f["name"], "")
        rows.append({"assignment_id": a["assignment_id"], "worker_id": a["worker_id"], "image_id": item, "field": base,
                     # a number a page's script writes into a hidden field (its stars): read as a slider's
                     "kind": "number" if f.get("input") == "hidden" and number(answer) is not None else kinds[base],
                     "answer": by_place(answer, f["options"], f["type"] == "many") if base in own else answer,
                     "telemetry": fields.get("hitflow_telemetry", ""), "telemetry_field": f["name"],
                     # a single choice's option count: how likely one answer is by chance (choice_straight_lining)
                     "options": len(f.get("options") or []) if f["type"] == "one" else 0, "ticks": f["type"] == "many",
                     "scale": answer_scale(f)})
    return rows


def by_place(answer: str, options: list[str], many: bool) -> str:
    """An answer as its options' places (``option 1|option 3``): where each item has options of its own, a habit
    (the first box, every time) is in where a worker clicks."""
    said = answer.split("|") if many else [answer]
    return "|".join(f"option {options.index(o) + 1}" if o in options else o for o in said if o)


def answer_scale(f: dict[str, Any]) -> str:
    """The scale a field's answers are on, as the page declares it (qc/page_straight_lining.py): "1..7" for a
    bounded number or slider, "choice 5" for one of five options; "" for anything else."""
    if f["type"] == "number" and f.get("min") is not None and f.get("max") is not None:
        return f"{f['min']:g}..{f['max']:g}"
    if f.get("ordered"):  # radio buttons shown as the points of a scale (flows/core/pages/form_spec.py numbered)
        points = [float(o) for o in f["options"]]
        return f"{min(points):g}..{max(points):g}"
    return f"choice {len(f.get('options') or [])}" if f["type"] == "one" else ""


def custom_flags(responses: pd.DataFrame, answers: pd.DataFrame, params: dict[str, Any],
                 enabled: tuple[str, ...], history: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every enabled rule on the frame it reads: responses, each free-text field (its own rules,
    flows/custom/custom_text_qc.py), the marks, and the choice, number and tick answers over ``history`` (the
    campaign's so far, this batch's last; default: this batch's) for the workers of this batch, and the flags that
    block for any earlier worker."""
    per_response = tuple(r for r in enabled if r not in TEXT_LEVEL and r not in BY_KIND and r not in OVER_HISTORY)
    frames = [run_rules(responses.assign(image_id="", caption=""), params, per_response)]
    frames += text_flags(answers[answers["kind"] == "text"], params, enabled)
    frames += [run_rules(answers[answers["kind"] == kind], params, (rule,)) for rule, kind in BY_KIND.items()
               if rule in enabled]
    judged = tuple(r for r in OVER_HISTORY if r in enabled)
    if judged:
        so_far = (answers if history is None else history)
        found = run_rules(so_far[so_far["kind"].isin(HISTORY_KINDS)], params, judged)
        # an earlier worker's evidence grows as others answer their items: a block then keeps their answers out
        here = found["worker_id"].isin(set(responses["worker_id"])) | (found["worker_id"] == "")
        frames.append(found[here | ~found["rule"].isin(REVIEW_ONLY_FLAGS)])
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True)[FLAG_COLUMNS] if frames else pd.DataFrame(columns=FLAG_COLUMNS)


def custom_qc_batch(run: Run, batch: int) -> dict[str, Any]:
    """The batch's responses checked and flagged; its flags replaced in one transaction."""
    responses, answers = answer_frames(run, batch)
    params = {**run.cfg.qc_params, "seed": run.cfg.seed + batch, **_page_reading(run),
              "item_text": _item_text(run, batch), **sample_so_far(run, batch)}
    params["time_reference"], history = so_far(run, batch, (responses, answers))  # a page's time: every batch's
    flags = custom_flags(responses, answers, params, run.cfg.qc_rules, history)
    flags = pd.concat([flags, known_answer_flags(run, batch, set(responses["worker_id"]))], ignore_index=True)
    counts = replace_batch_flags(run, batch, flags, f"{len(responses)} responses")
    return {"responses": len(responses), "flags": counts}


def known_answer_flags(run: Run, batch: int, workers: set[str]) -> pd.DataFrame:
    """The batch's workers whom control items judge over the campaign so far, as flags with that evidence; the
    block step blocks on the same reading."""
    due = control_blocks_due(run.store, run.cfg.name, batch)
    rows = [{"worker_id": str(r.worker_id), "rule": str(rule.split(" ", 1)[0]), "value": int(r.flags),
             "threshold": "", "detail": f"known answers over the campaign: {rule}"}
            for r in due.itertuples() if str(r.worker_id) in workers for rule in str(r.rules).split(";")]
    return flag_frame(rows)


def so_far(run: Run, batch: int, frames: tuple[pd.DataFrame, pd.DataFrame]) -> tuple[list[Any], pd.DataFrame]:
    """(earlier batches' (work time, items on the page), their choice, number and tick answers then ``frames``')."""
    earlier = [int(r["batch"]) for r in run.store.rows(
        "SELECT DISTINCT batch FROM assignments WHERE campaign = ? AND batch > 0 AND batch != ? ORDER BY batch",
        [run.cfg.name, batch]) if int(r["batch"]) < batch]
    read = [_judged(run, b) for b in earlier] + [_judged(run, batch, frames)]
    return [t for times, _ in read[:-1] for t in times], pd.concat([a for _, a in read], ignore_index=True)


def _judged(run: Run, batch: int, frames: tuple[pd.DataFrame, pd.DataFrame] | None = None
            ) -> tuple[list[Any], pd.DataFrame]:
    """A batch's work times and choice, number and tick answers (``frames``: read already), kept while its responses
    stay the same: reading every earlier batch again took over half the QC step's time on a 500-item campaign."""
    kept = run.notes.setdefault("choice_history", {})
    seen = run.store.rows("SELECT COUNT(*) AS n, MAX(rowid) AS last FROM assignments WHERE campaign = ? AND batch = ? "
                          "AND status != 'NOT ON PROLIFIC'", [run.cfg.name, batch])[0]
    key = (batch, seen["n"], seen["last"])
    if key not in kept or frames is not None:
        responses, answers = answer_frames(run, batch) if frames is None else frames
        kept[key] = (responses[["work_time_s", "page_items"]].values.tolist(),
                     answers[answers["kind"].isin(HISTORY_KINDS)])
    return kept[key]


def _item_text(run: Run, batch: int) -> dict[str, list[str]]:
    """Per item of the batch and of the quiz, the values of its columns the page may show (never its truth columns): an
    answer quoting them is about the item, not a template (qc/shown_text.py)."""
    hidden = {"item_id", *run.cfg.truth.values()}
    rows = run.store.rows("SELECT item_id, payload FROM items WHERE campaign = ? AND batch = ?", [run.cfg.name, batch])
    shown: dict[str, list[str]] = {}
    for r in [*rows, *quiz_rows(run.store, run.cfg.name).values()]:  # the quiz's items are shown too
        payload = json.loads(r["payload"] or "{}")
        values = payload.items() if isinstance(payload, dict) else ()
        shown[str(r["item_id"])] = [str(v) for k, v in values if k not in hidden and isinstance(v, str) and v.strip()]
    return shown


def _page_reading(run: Run) -> dict[str, Any]:
    """What the text rules read on the custom page: its first page, its items' values masked
    (flows/custom/custom_text_qc.py)."""
    first = run.store.rows("SELECT item_id, file_name, url, payload FROM items WHERE campaign = ? AND batch = 1 "
                           "AND hit_index = 0 ORDER BY rowid", [run.cfg.name])
    if not first:
        return {"page_text": "", "field_questions": {}, "canned_texts": []}
    return page_reading(masked_page(run.cfg, [dict(r) for r in first]))
