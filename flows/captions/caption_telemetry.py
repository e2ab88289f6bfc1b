"""Each caption row's telemetry from the ledger, for :mod:`qc.telemetry_frame` to flatten."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from flows.core.run.run_context import Run
from qc.telemetry_frame import telemetry_columns
from qc.telemetry_rules import telemetry_in_words

TELEMETRY_FIELD = "hitflow_telemetry"


def attach_telemetry(run: Run, frame: pd.DataFrame, batch: int | None = None, own: bool = False) -> pd.DataFrame:
    """``frame`` plus ``telemetry`` and ``telemetry_field``, reading only ``batch``'s or ``own`` records."""
    if frame.empty:
        return frame.assign(telemetry="", telemetry_field="")
    records, pages = _records(run, batch, frame if own else None)
    positions: dict[str, dict[str, int]] = {}

    def field_name(page: str, image_id: str) -> str:
        if page not in positions:
            positions[page] = {item: i for i, item in enumerate(json.loads(pages.get(page) or "[]"))}
        index = positions[page].get(image_id)
        return "" if index is None else f"caption_{index}"

    # One text object per assignment, shared by its captions' rows (object dtype), not one copy a row.
    texts = [records.get(a) or "" for a in frame["assignment_id"].tolist()]
    names = [field_name(str(h) if str(h) in pages else str(a), str(i)) if t else "" for a, h, i, t in
             zip(frame["assignment_id"].tolist(), frame["hit_id"].tolist(), frame["image_id"].tolist(),
                 texts, strict=True)]
    return frame.assign(telemetry=pd.Series(texts, index=frame.index, dtype=object), telemetry_field=names)


def _records(run: Run, batch: int | None, frame: pd.DataFrame | None = None
             ) -> tuple[dict[str, str], dict[str, str]]:
    """Each assignment's telemetry record, and each page's items by HIT or session: of the campaign, of ``batch``, or
    of ``frame``'s assignments and pages alone (their keys, not a scan of the campaign)."""
    def among(column: str, values: list[str]) -> tuple[str, list[Any]]:
        return f" AND {column} IN ({', '.join('?' * len(values))})", values

    if frame is not None:
        ids, hits = sorted(set(frame["assignment_id"].astype(str))), sorted(set(frame["hit_id"].astype(str)))
        mine, on_hits, on_sessions = among("x.assignment_id", ids), among("hit_id", hits), among("session_id", ids)
    else:
        on_hits = on_sessions = ("", []) if batch is None else (" AND batch = ?", [batch])
        mine = (on_hits[0].replace("batch", "a.batch"), on_hits[1])
    rows = run.store.rows(
        "SELECT x.assignment_id, x.value FROM answers x JOIN assignments a ON a.campaign = x.campaign AND "
        f"a.assignment_id = x.assignment_id WHERE a.campaign = ? AND x.item_id = '' AND x.field = ?{mine[0]}",
        [run.cfg.name, TELEMETRY_FIELD, *mine[1]])
    records = {r["assignment_id"]: r["value"] or "" for r in rows}
    if not records:
        return records, {}
    # the page's items in order: an MTurk HIT's, or a task-server session's
    pages = {r["hit_id"]: r["item_ids"] for r in run.store.rows(
        f"SELECT hit_id, item_ids FROM hits WHERE campaign = ?{on_hits[0]}", [run.cfg.name, *on_hits[1]])}
    return records, pages | {r["session_id"]: r["item_ids"] for r in run.store.rows(
        f"SELECT session_id, item_ids FROM task_sessions WHERE campaign = ?{on_sessions[0]}",
        [run.cfg.name, *on_sessions[1]])}


def telemetry_words(run: Run, captions: list[dict[str, object]]) -> list[str]:
    """Each caption's telemetry in words, for the review page (``captions``: ``assignment_id, image_id, caption``)."""
    if not captions:
        return []
    frame = pd.DataFrame(captions)[["assignment_id", "image_id", "caption"]]
    ids = sorted(set(frame["assignment_id"].astype(str)))
    hits = {r["assignment_id"]: r["hit_id"] for r in run.store.rows(
        f"SELECT assignment_id, hit_id FROM assignments WHERE campaign = ? AND assignment_id IN "
        f"({', '.join('?' * len(ids))})", [run.cfg.name, *ids])}  # the captions' own: not the campaign's 40,000
    frame["hit_id"] = frame["assignment_id"].map(hits).fillna("")
    flat = telemetry_columns(attach_telemetry(run, frame, own=True))
    return [telemetry_in_words(row) for row in flat.to_dict("records")]
