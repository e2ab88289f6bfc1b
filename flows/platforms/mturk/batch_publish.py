"""Batch step 1: post a batch's HITs, each written to the ledger before it is posted."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import replace
from functools import partial
from typing import Any

from flows.core.ledger.ledger_calls import Adopted, LedgeredCall, intend_calls, ledgered, send_calls
from flows.core.pages.mturk_forms import html_question
from flows.core.run.run_context import Run
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.hit_owner import is_ours, planned, post_hit
from flows.platforms.mturk.qualification_stage import gate_qualification
from flows.platforms.mturk.qualifications import block_qualification, check_budget, gating_requirements
from flows.platforms.units import hit_groups, hit_token, page_html

# Posting waits on the network, so more threads overlap more calls (16: 6x the sequential loop).
POST_THREADS = 16
PUBLISH_CHUNK = 500  # HITs whose pages are built, intended and posted together


def hit_type_params(run: Run, block_qual_id: str, test: tuple[str, int] = ("", 0)) -> dict[str, Any]:
    cfg = run.cfg
    return {"Title": cfg.title, "Description": cfg.description, "Keywords": cfg.keywords,
            "Reward": f"{cfg.reward:.2f}", "AssignmentDurationInSeconds": cfg.assignment_duration_s,
            "AutoApprovalDelayInSeconds": cfg.auto_approval_delay_s,
            "QualificationRequirements": gating_requirements(cfg, block_qual_id, *test)}


def ensure_hit_type(run: Run, batch: int) -> str:
    block_qual = block_qualification(run) if run.cfg.gating.block_mode == "soft" else ""
    params = hit_type_params(run, block_qual, gate_qualification(run))

    def create() -> dict[str, Any]:
        type_id = mturk.create_hit_type(run.client, params)
        run.store.table("hit_types").upsert({"hit_type_id": type_id, "campaign": run.cfg.name, "batch": batch,
                                             "params_json": json.dumps(params)}, pk=("campaign", "hit_type_id"))
        return {"HITTypeId": type_id}

    call = LedgeredCall("CreateHITType", f"{run.cfg.name}:b{batch}:hittype", params, create)
    return str(ledgered(run.store, run.cfg.name, batch, call)["HITTypeId"])


def item_annotation(key: str, item_ids: list[str]) -> str:
    """A HIT's RequesterAnnotation: its ledger key and a digest of its items, so only a same-item plan adopts it."""
    digest = hashlib.sha256("\x1f".join(item_ids).encode()).hexdigest()[:20]
    return f"{key}:items-{digest}"


def _platform_annotations(run: Run, since: dict[str, Any]) -> dict[str, str]:
    """HITs the platform has, by RequesterAnnotation, read page by page, for adopting lost intents."""
    return {h["RequesterAnnotation"]: h["HITId"] for h in mturk.paginate(run.client, "list_hits", "HITs")
            if h.get("RequesterAnnotation") and is_ours(since, h)}  # not another ledger's (hit_owner.py)


def hit_call(run: Run, batch: int, type_id: str, hit_index: int, items: list[dict[str, Any]],
             assignments: int = 0, since: dict[str, Any] | None = None) -> LedgeredCall:
    """One HIT, posted with its deterministic token and recorded in ``hits`` before it is settled."""
    cfg, key = run.cfg, f"{run.cfg.name}:b{batch}:h{hit_index}"
    ids = [i["item_id"] for i in items]
    token = hit_token(cfg, batch, hit_index, ids)
    params = {"MaxAssignments": assignments or cfg.assignments_per_image, "LifetimeInSeconds": cfg.hit_lifetime_s,
              "RequesterAnnotation": item_annotation(key, ids), "Question": html_question(page_html(run, items))}

    since = planned(run) if since is None else since  # (hit_owner.planned: read once a batch by publish_batch)

    def post() -> dict[str, Any]:
        hit_id, was_dup = post_hit(run.client, since, type_id, params, token)
        return Adopted(HITId=hit_id) if was_dup else {"HITId": hit_id}

    return LedgeredCall("CreateHITWithHITType", key, params, post)


def record_hit(run: Run, batch: int, hit_index: int, ids: list[str], hit_id: str) -> None:
    """A posted HIT's row (before its ledger entry is settled: no settled call lacks its row)."""
    with run.store.transaction():
        run.store.table("hits").upsert({"hit_id": hit_id, "campaign": run.cfg.name, "batch": batch,
                                        "hit_index": hit_index, "token": hit_token(run.cfg, batch, hit_index, ids),
                                        "item_ids": json.dumps(ids), "created_at": time.time(),
                                        "status": "posted"}, pk=("campaign", "hit_id"))


def publish_batch(run: Run, batch: int, crash_after: int | None = None) -> dict[str, Any]:
    """Post every planned HIT the ledger has not seen confirmed, ``PUBLISH_CHUNK`` at a time, intents first."""
    cfg, store = run.cfg, run.store
    groups = hit_groups(run, batch)
    estimate = check_budget(run, batch, len(groups))
    type_id = ensure_hit_type(run, batch)
    posted, earlier = 0, 0
    platform_hits: dict[str, str] | None = None  # listed once, and only when an intent may have been made
    since = planned(run)  # when this ledger planned the campaign: which HITs under its tokens are its own

    def record(call: LedgeredCall, result: dict[str, Any]) -> None:
        nonlocal posted
        hit_index, ids = indexes[call.key]
        record_hit(run, batch, hit_index, ids, result["HITId"])
        posted += 1
        if crash_after is not None and posted >= crash_after:
            raise RuntimeError(f"simulated crash after {posted} HITs")

    for start in range(0, len(groups), PUBLISH_CHUNK):
        chunk = groups[start:start + PUBLISH_CHUNK]
        indexes = {f"{cfg.name}:b{batch}:h{i}": (i, [it["item_id"] for it in items]) for i, items in chunk}
        _, todo = intend_calls(store, cfg.name, batch, [hit_call(run, batch, type_id, i, items, since=since)
                                                              for i, items in chunk])
        earlier += len(chunk) - len(todo)
        if platform_hits is None and any(status == "intended" for _, status in todo):
            platform_hits = _platform_annotations(run, since)
        adopted = platform_hits or {}
        calls = [c if c.params["RequesterAnnotation"] not in adopted else
                 replace(c, send=partial(Adopted, HITId=adopted[c.params["RequesterAnnotation"]])) for c, _ in todo]
        send_calls(store, calls, POST_THREADS, record=record)
    run.progress(f"batch {batch}: {len(groups)} HITs ({posted} posted now, {earlier} earlier), "
                 f"estimate ${estimate:.2f} with fees")
    store.set_batch(cfg.name, batch, hit_type_id=type_id, cost_estimate=f"{estimate:.2f}")
    return {"hits": len(groups), "posted_now": posted, "estimate": str(estimate)}
