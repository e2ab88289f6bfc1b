"""Batch step 2: wait for submissions, store every raw answer, parse it into fields."""

from __future__ import annotations

import json
import re
import time
import xml.etree.ElementTree as ET
from datetime import datetime
from typing import Any

from flows import mturk_adapter as mturk
from flows.campaign_plan import Run
from flows.sim.forms import parse_answer_xml

_INDEXED = re.compile(r"^(?P<field>.+)_(?P<index>\d+)$")
MAX_POLL_S = 6 * 3600


def _epoch(value: Any) -> float | None:
    if value is None:
        return None
    return value.timestamp() if isinstance(value, datetime) else float(value)


def answer_rows(assignment_id: str, answer_xml: str, item_ids: list[str]) -> list[dict[str, str]]:
    """One row per item x field: ``caption_2`` belongs to the item in ``image_id_2``. Only the
    HIT's own ``item_ids`` get rows: answers for items it never showed are dropped."""
    fields = parse_answer_xml(answer_xml)
    by_index: dict[str, str] = {}
    for name, value in fields.items():
        m = _INDEXED.match(name)
        if m and m["field"] == "image_id":
            by_index[m["index"]] = value
    rows = []
    for name, value in fields.items():
        m = _INDEXED.match(name)
        if m and m["field"] != "image_id":
            idx = int(m["index"])
            item = by_index.get(m["index"], item_ids[idx] if idx < len(item_ids) else "")
            if item in item_ids:
                rows.append({"assignment_id": assignment_id, "item_id": item, "field": m["field"], "value": value})
        elif not m:
            rows.append({"assignment_id": assignment_id, "item_id": "", "field": name, "value": value})
    return rows


def store_assignment(run: Run, batch: int, hit: dict[str, Any], a: dict[str, Any]) -> bool:
    """Store the raw answer first, then its parsed rows; True when it was new."""
    db = run.store.db
    known = db["assignments"].count_where("assignment_id = ?", [a["AssignmentId"]])
    row = {"assignment_id": a["AssignmentId"], "hit_id": a["HITId"], "campaign": run.cfg.name, "batch": batch,
           "worker_id": a["WorkerId"], "status": a["AssignmentStatus"], "accept_time": _epoch(a.get("AcceptTime")),
           "submit_time": _epoch(a.get("SubmitTime")), "auto_approval_time": _epoch(a.get("AutoApprovalTime")),
           "answer_xml": a.get("Answer", ""), "fetched_at": time.time()}
    if known:
        run.store.table("assignments").update(a["AssignmentId"], {"status": a["AssignmentStatus"]})
        return False
    try:
        parsed = answer_rows(a["AssignmentId"], a.get("Answer", ""), json.loads(hit["item_ids"]))
        row["parse_error"] = ""
    except ET.ParseError as exc:
        parsed, row["parse_error"] = [], f"answer XML is malformed: {exc}"
    with run.store.transaction():
        run.store.table("assignments").insert(row, pk="assignment_id")
        run.store.table("answers").insert_all(parsed, pk=("assignment_id", "item_id", "field"), replace=True)
        run.store.table("workers").insert({"worker_id": a["WorkerId"], "first_seen": time.time()},
                                           pk="worker_id", ignore=True)
    return True


def collect_batch(run: Run, batch: int, per_hit: int | None = None) -> dict[str, Any]:
    """Poll until every HIT of the batch is full (``per_hit`` submissions, by default the campaign's
    assignments per image) or closed; the wait backs off when idle."""
    cfg = run.cfg
    per_hit = per_hit or cfg.assignments_per_image
    hits = run.store.rows("SELECT * FROM hits WHERE campaign = ? AND batch = ?", [cfg.name, batch])
    open_hits = {h["hit_id"]: h for h in hits}
    interval, waited, new_total = float(cfg.poll_interval_s), 0.0, 0
    deadline = cfg.hit_lifetime_s + cfg.assignment_duration_s
    while open_hits:
        new = 0
        for hit_id, hit in list(open_hits.items()):
            subs = mturk.list_submissions(run.client, hit_id)
            new += sum(store_assignment(run, batch, hit, a) for a in subs)
            if len(subs) >= per_hit or _closed(run, hit_id):
                del open_hits[hit_id]
        new_total += new
        done = len(hits) - len(open_hits)
        what = f"batch {batch}" if batch else "qualification test"
        run.progress(f"{what}: {done}/{len(hits)} HITs complete, {new_total} assignments in")
        if not open_hits or waited >= deadline:
            break
        interval = float(cfg.poll_interval_s) if new else min(interval * 2, MAX_POLL_S)
        run.wait(interval)
        waited += interval
    return {"assignments": new_total, "hits_still_open": len(open_hits)}


def _closed(run: Run, hit_id: str) -> bool:
    view = mturk.get_hit(run.client, hit_id)
    return view["HITStatus"] in ("Reviewable", "Reviewing", "Disposed") and not view["NumberOfAssignmentsPending"]
