"""Batch steps 3-5: QC over the stored answers, decisions applied, flagged workers blocked."""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial
from typing import Any

import pandas as pd

from flows.campaigns import block_evidence as evidence
from flows.campaigns.attention_scoring import attention_flags
from flows.campaigns.batch_hold import approve_despite, blocks_despite, held_rules, released_rules
from flows.campaigns.page_text import qc_params
from flows.campaigns.route_policy import route_policy
from flows.captions.caption_telemetry import attach_telemetry
from flows.core.ledger.ledger_calls import LedgeredCall, ledgered
from flows.core.run.run_context import Run
from flows.platforms.registry import platform_for
from qc.decisions import decide
from qc.runner import prepare, run_rules

BLOCKED_WORK = "blocked_worker"  # [policy] reject_blocked_work's reason


def caption_frame(run: Run, batch: int | None = None, telemetry: bool = True) -> pd.DataFrame:
    """One row per caption (QC columns plus lineage) in the plan's order; ``telemetry=False``: without telemetry."""
    # batch 0 is the qualification test, not captions; a response Prolific never reported is no one's work
    where = "a.campaign = ? AND a.batch > 0 AND a.status != 'NOT ON PROLIFIC'"
    params: list[Any] = [run.cfg.name]
    if batch is not None:
        where += " AND a.batch = ?"
        params.append(batch)
    columns = ["assignment_id", "worker_id", "batch", "hit_id", "status", "accept_time", "submit_time", "image_id",
               "caption", "text_present", "start_ms", "end_ms"]
    frame = run.store.frame(f"""
        SELECT a.assignment_id, a.worker_id, a.batch, a.hit_id, a.status, a.accept_time, a.submit_time,
               x.item_id AS image_id,
               MAX(CASE WHEN x.field = 'caption' THEN x.value END) AS caption,
               MAX(CASE WHEN x.field = 'text_present' THEN x.value END) AS text_present,
               MAX(CASE WHEN x.field = 'start_ms' THEN x.value END) AS start_ms,
               MAX(CASE WHEN x.field = 'end_ms' THEN x.value END) AS end_ms
        FROM assignments a JOIN answers x ON x.campaign = a.campaign AND x.assignment_id = a.assignment_id
        LEFT JOIN hits h ON h.campaign = a.campaign AND h.hit_id = a.hit_id
        WHERE {where} AND x.item_id != '' GROUP BY a.campaign, a.assignment_id, x.item_id, h.hit_index
        ORDER BY a.batch, h.hit_index, a.worker_id, x.item_id""", params, columns)
    frame["work_time_s"] = _work_times(frame, run.cfg.time_source)
    return prepare(attach_telemetry(run, frame, batch) if telemetry else frame, run.cfg.submit_rules.canned_text)


def _work_times(frame: pd.DataFrame, source: str) -> pd.Series:
    if source == "page_active_time":
        spans = (pd.to_numeric(frame["end_ms"], errors="coerce") - pd.to_numeric(frame["start_ms"], errors="coerce"))
        return spans.groupby(frame["assignment_id"]).transform("sum") / 1000.0
    return frame["submit_time"].astype(float) - frame["accept_time"].astype(float)


def qc_batch(run: Run, batch: int) -> dict[str, Any]:
    frame = caption_frame(run, batch)
    params = {**qc_params(run.cfg, run.cfg.seed + batch), **sample_so_far(run, batch)}  # page text: instruction_echo
    flags = run_rules(frame, params, run.cfg.qc_rules)
    broken = run.store.rows("SELECT assignment_id, worker_id, parse_error FROM assignments "
                            "WHERE campaign = ? AND batch = ? AND parse_error != ''", [run.cfg.name, batch])
    extra = [{"worker_id": b["worker_id"], "rule": "malformed_answer", "value": "", "threshold": "",
              "assignment_id": b["assignment_id"], "image_id": "", "detail": b["parse_error"]} for b in broken]
    flags = pd.concat([flags, pd.DataFrame(extra, columns=flags.columns)], ignore_index=True) if extra else flags
    counts = replace_batch_flags(run, batch, flags, f"{len(frame)} captions")
    return {"captions": len(frame), "flags": counts}


def batch_assignments(run: Run, batch: int, *, posted_only: bool = True) -> list[dict[str, Any]]:
    """The batch's assignments in a fixed order (place, worker, id); ``posted_only``: without returned places."""
    where = " AND status != 'NOT ON PROLIFIC'" if posted_only else ""
    return run.store.rows(
        f"SELECT * FROM assignments WHERE campaign = ? AND batch = ?{where} ORDER BY (SELECT MIN(h.hit_index) "
        "FROM hits h WHERE h.hit_id = assignments.hit_id AND h.campaign = assignments.campaign), worker_id, "
        "assignment_id", [run.cfg.name, batch])


def sample_so_far(run: Run, batch: int) -> dict[str, list[str]]:
    """What a re-checked batch's review sample must keep and must not pick: earlier picks, decided work."""
    picked = run.store.rows("SELECT DISTINCT assignment_id FROM qc_flags WHERE campaign = ? AND batch = ? "
                            "AND rule = 'random_sample'", [run.cfg.name, batch])
    decided = run.store.rows("SELECT assignment_id FROM decisions WHERE campaign = ? AND batch = ?",
                             [run.cfg.name, batch])
    return {"sampled_before": [r["assignment_id"] for r in picked],
            "decided": [r["assignment_id"] for r in decided]}


def replace_batch_flags(run: Run, batch: int, flags: pd.DataFrame, what: str) -> dict[str, int]:
    """Store the batch's flag table in place of any earlier one (one transaction); the counts by rule."""
    checked = attention_flags(run, batch)
    if checked is not None and not checked.empty:
        flags = pd.concat([flags, checked], ignore_index=True) if not flags.empty else checked
    records = [{**{k: str(v) for k, v in r.items()}, "campaign": run.cfg.name, "batch": batch}
               for r in flags.to_dict("records")]
    with run.store.transaction():  # replace the batch's flags as one decision
        run.store.execute("DELETE FROM qc_flags WHERE campaign = ? AND batch = ?", [run.cfg.name, batch])
        evidence.forget_history(run.store, run.cfg.name, batch)
        if records:
            run.store.table("qc_flags").insert_all(records)
    counts = flags["rule"].value_counts().to_dict()
    by_rule = ", ".join(f"{rule} {n}" for rule, n in sorted(counts.items()))
    run.progress(f"batch {batch}: QC over {what}, " + (f"{len(flags)} flag(s) by rule: {by_rule}" if by_rule
                                                       else "no flags"))
    return counts


def decide_batch(run: Run, batch: int) -> dict[str, Any]:
    """Record one decision per assignment in one transaction, then apply them via the ledger."""
    cfg, store = run.cfg, run.store
    assignments = pd.DataFrame(store.rows("SELECT assignment_id, worker_id FROM assignments WHERE campaign = ? "
                                          "AND batch = ?", [cfg.name, batch]), columns=["assignment_id", "worker_id"])
    flags = evidence.batch_flags(store, cfg.name, batch)
    policy = route_policy(cfg, run.platform)  # on Prolific: rejections on its valid grounds only
    decisions = decide(flags, assignments, policy)
    due = evidence.blocks_due(store, cfg.name, cfg.policy, batch)
    unreadable = flags.loc[flags["rule"] == "malformed_answer", "worker_id"]  # most of a batch: the page's defect
    # one rule on most of it: held for a person, judged on what the rules would reject on any route
    anywhere = decisions if policy.reject_grounds is None else decide(flags, assignments,
                                                                        replace(policy, reject_grounds=None))
    set_aside = held_rules(run, batch, anywhere, due, set(unreadable))
    decisions = approve_despite(decisions, set_aside)
    if cfg.reject_blocked_work:
        blocked = set(blocks_despite(due, set_aside)["worker_id"])
        mask = decisions["worker_id"].isin(blocked) & (decisions["action"] == "approve")
        if policy.reject_grounds is None or BLOCKED_WORK in policy.reject_grounds:
            decisions.loc[mask, ["action", "reasons"]] = ["reject", BLOCKED_WORK]
        else:  # a block is no ground to reject on this route: a person looks at the work
            decisions.loc[mask, "review"] = True
    now = time.time()
    records = [{**d, "campaign": cfg.name, "batch": batch, "review": int(d["review"]), "decided_at": now,
                "applied": ""} for d in decisions.to_dict("records")]
    with store.transaction():
        if records:
            store.table("decisions").insert_all(records, pk=("campaign", "assignment_id"), ignore=True)
    stored = store.rows("SELECT * FROM decisions WHERE campaign = ? AND batch = ?", [cfg.name, batch])
    platform = platform_for(run.platform)
    sent = platform.decide(run, batch, [d for d in stored if not d["applied"]])  # a person's are sent already
    counts = {r["action"]: int(r["n"]) for r in store.rows(  # the ledger's, after the platform's answer ("unpaid")
        "SELECT action, count(*) AS n FROM decisions WHERE campaign = ? AND batch = ? GROUP BY action ORDER BY action",
        [cfg.name, batch])}
    how = "" if platform.SENDS_DECISIONS else f" (recorded only: {platform.LABEL} pay nobody)"
    run.progress(f"batch {batch}: decisions: {in_words(counts)}; {person_words(run, batch)}{how}")
    return {"decisions": counts, **sent}


def person_words(run: Run, batch: int) -> str:
    """What of the batch needs a person now, as every view counts it (nobody with ``review = "none"``)."""
    if run.cfg.review == "none":
        return "needs a person: 0 (review = \"none\": the rules decide)"
    from flows.campaigns.review_data import ledger_state, platform_now
    from qc.campaign_state import state_words

    state = ledger_state(run.store, run.cfg.name, platform_now(run))[0]
    return state_words(state["by_batch"].get(batch) or {"needs_person": 0, "open": 0, "held": 0})


DECISION_WORDS = {"approve": "approved", "reject": "rejected", "unpaid": "left unpaid (not finished on the platform)"}


def in_words(counts: dict[str, int]) -> str:
    """``{"approve": 10, "unpaid": 262}`` as "10 approved, 262 left unpaid (...)"; "none" when empty."""
    return ", ".join(f"{n} {DECISION_WORDS.get(action, action)}" for action, n in counts.items()) or "none"


def block_batch(run: Run, batch: int) -> dict[str, Any]:
    """Exclude the batch's flagged workers before the next batch is posted."""
    due = evidence.blocks_due(run.store, run.cfg.name, run.cfg.policy, batch)
    to_block = blocks_despite(due, released_rules(run, batch))
    # a reviewer's unblock outranks the rule
    to_block = to_block[~to_block["worker_id"].isin(evidence.kept_workers(run.store, run.cfg.name))]
    stopped = {r["worker_id"]: r["rules"] for r in run.store.rows(  # stopped on the task server, not yet applied
        "SELECT worker_id, rules FROM blocks WHERE campaign = ? AND applied = ''", [run.cfg.name])}
    mode = block_workers(run, batch, {**stopped, **{str(r["worker_id"]): str(r["rules"])
                                                    for r in to_block.to_dict("records")}})
    people = platform_for(run.platform).WORDS.people
    run.progress(f"batch {batch}: {len(to_block)} {people} blocked ({mode})")
    return {"blocked": len(to_block)}


def block_workers(run: Run, batch: int, rules_by_worker: dict[str, str]) -> str:
    """Keep each worker out of every later batch, once (ledgered), and record the block; the mode."""
    cfg, store, platform = run.cfg, run.store, platform_for(run.platform)
    mode = platform.block_mode(cfg)
    for worker, rules in rules_by_worker.items():
        ledgered(store, cfg.name, batch, LedgeredCall(
            "ExcludeWorker", f"{cfg.name}:block:{worker}", {"WorkerId": worker, "mode": mode},
            partial(platform.block, run, worker, f"QC: {rules}")))
        store.table("blocks").insert({"campaign": cfg.name, "worker_id": worker, "batch": batch, "rules": rules,
                                      "mode": mode, "applied": "yes"}, pk=("campaign", "worker_id"), ignore=True)
        store.execute("UPDATE blocks SET applied = 'yes' WHERE campaign = ? AND worker_id = ?", [cfg.name, worker])
    return mode


def stop_failing_workers(run: Run, batch: int) -> None:
    """While a batch is collected: block now the workers whose control answers so far fail the control rule."""
    due = evidence.control_blocks_due(run.store, run.cfg.name, batch)
    due = due[~due["worker_id"].isin(evidence.settled_workers(run.store, run.cfg.name))]
    if len(due):
        mode = block_workers(run, batch, dict(zip(due["worker_id"].astype(str), due["rules"].astype(str), strict=True)))
        run.progress(f"batch {batch}: {len(due)} {platform_for(run.platform).WORDS.people} stopped on their control "
                     f"items ({mode})")
