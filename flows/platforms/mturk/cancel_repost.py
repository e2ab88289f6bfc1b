"""A cancelled campaign resumed on purpose: what a cancel closed short posted once more."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from flows.core.ledger.ledger_calls import LedgeredCall, intend_calls, send_calls
from flows.core.ledger.store import SETTLED
from flows.core.run.run_context import Run
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.batch_publish import POST_THREADS, ensure_hit_type, hit_call, record_hit
from flows.platforms.operation_steps import closed_by_cancel
from flows.platforms.units import hit_groups, units_planned


def repost_closed_by_cancel(run: Run, batch: int, per_hit: int) -> list[str]:
    """Post again the items of the HITs a cancel closed short; returns those closed HITs (not waited for)."""
    entries = closed_by_cancel(run.store, run.cfg.name, batch)
    if not entries:
        return []
    hits = {h["hit_id"]: h for h in run.store.rows("SELECT * FROM hits WHERE campaign = ? AND batch = ?",
                                                   [run.cfg.name, batch])}
    stored = Counter(r["hit_id"] for r in run.store.rows(
        "SELECT hit_id FROM assignments WHERE campaign = ? AND batch = ?", [run.cfg.name, batch]))
    got = Counter[str]()
    for hit_id, hit in hits.items():  # per item group: every HIT that showed these items
        got[hit["item_ids"]] += stored[hit_id]
    units, items = units_planned(run.store, run.cfg.name, batch), dict(hit_groups(run, batch))
    done, wanted = [], []
    closed = [hits[hit_id] for e in entries if (hit_id := json.loads(e["params"]).get("HITId")) in hits]
    for hit in closed:
        view = mturk.get_hit(run.client, hit["hit_id"])
        if view["HITStatus"] == "Assignable":
            continue  # the cancel stopped before expiring it: it is collected as it is
        pending = int(view["NumberOfAssignmentsPending"])
        if not pending:
            done.append(hit["hit_id"])
        again = hit["hit_index"] + units
        recorded = run.store.ledger_entry(f"{run.cfg.name}:b{batch}:h{again}")
        if recorded is not None and recorded["status"] in SETTLED:
            continue  # posted again already (an earlier resumed run)
        missing = int(json.loads(recorded["params"])["MaxAssignments"]) if recorded else \
            per_hit - got[hit["item_ids"]] - pending
        if missing > 0:
            wanted.append((again, items[again % units], missing))
    _post(run, batch, wanted)
    return done


def _post(run: Run, batch: int, wanted: list[tuple[int, list[dict[str, Any]], int]]) -> None:
    if not wanted:
        return
    type_id = ensure_hit_type(run, batch)
    calls = {c.key: (c, index, items) for index, items, missing in wanted
             for c in [hit_call(run, batch, type_id, index, items, missing)]}
    _, todo = intend_calls(run.store, run.cfg.name, batch, [c for c, _, _ in calls.values()])

    def record(call: LedgeredCall, result: dict[str, Any]) -> None:
        _, index, items = calls[call.key]
        record_hit(run, batch, index, [i["item_id"] for i in items], result["HITId"])

    send_calls(run.store, [c for c, _ in todo], POST_THREADS, record=record)
    run.progress(f"batch {batch}: `hitflow cancel` closed {len(wanted)} HIT(s) short of their work; their items "
                 f"are posted again, once, for the {sum(m for _, _, m in wanted)} missing assignment(s)")
