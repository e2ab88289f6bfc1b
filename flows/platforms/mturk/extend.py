"""Adaptive overlap on MTurk: CreateAdditionalAssignmentsForHIT on each uncertain HIT, once."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from flows.core.ledger.ledger_calls import Adopted, LedgeredCall, intend_calls, send_calls
from flows.core.run.run_context import Run
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk import batch_collect
from flows.platforms.mturk.batch_publish import POST_THREADS
from flows.platforms.unit_extensions import extension_key  # a HIT's key as a served unit's

EXTEND_OP = "CreateAdditionalAssignmentsForHIT"


def extension_token(key: str) -> str:
    """UniqueRequestToken (<= 64 characters) of one extension, the same in every run."""
    return "hf-x-" + hashlib.sha256(key.encode()).hexdigest()[:40]


def extension_call(run: Run, batch: int, round_no: int, hit_id: str, extra: int = 1) -> LedgeredCall:
    key = extension_key(run.cfg.name, batch, round_no, hit_id)

    def send() -> dict[str, Any]:
        made = mturk.add_assignments(run.client, hit_id, extra, extension_token(key))
        return Adopted(HITId=hit_id, added=extra) if made else {"HITId": hit_id, "added": extra}

    return LedgeredCall(EXTEND_OP, key, {"HITId": hit_id, "NumberOfAdditionalAssignments": extra, "round": round_no},
                        send)


def posted_units(run: Run, batch: int) -> list[tuple[str, list[str]]]:
    """(HIT id, item ids) of every HIT of the batch, in posting order."""
    return [(h["hit_id"], json.loads(h["item_ids"] or "[]"))
            for h in run.store.rows("SELECT hit_id, item_ids FROM hits WHERE campaign = ? AND batch = ? "
                                    "ORDER BY hit_index, rowid", [run.cfg.name, batch])]


def extend_units(run: Run, batch: int, round_no: int, unit_ids: list[str]) -> dict[str, Any]:
    """Extend the HITs ``unit_ids`` (a HIT named k times by k) once, whatever happens, then collect their work."""
    calls = [extension_call(run, batch, round_no, h, n) for h, n in Counter(unit_ids).items()]
    done, todo = intend_calls(run.store, run.cfg.name, batch, calls)
    send_calls(run.store, [c for c, _ in todo], POST_THREADS)
    others = {r["hit_id"] for r in run.store.rows("SELECT hit_id FROM hits WHERE campaign = ? AND batch = ?",
                                                   [run.cfg.name, batch])} - set(unit_ids)
    collected = batch_collect.collect_batch(run, batch, settled=others)
    return {"extended": len(calls), "sent_now": len(todo), "earlier": len(done),
            "assignments": collected["assignments"]}
