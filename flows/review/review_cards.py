"""The review page's content: the filtered queue, each item with its evidence and what was done."""

from __future__ import annotations

import math
import re
import time
from typing import Any
from urllib.parse import urlparse

import pandas as pd

from flows.campaigns.block_evidence import EVERY_BATCH, control_scores_so_far, pooled_evidence_so_far
from flows.campaigns.campaign_plan import Run
from flows.campaigns.caption_telemetry import telemetry_words
from flows.campaigns.review_data import (
    applied_work,
    campaign_queue,
    histories,
    item_flags,
    platform_now,
    worker_captions,
)
from flows.core.ledger.store import Store
from postprocess.answers.worker_skill import SkillPolicy, shown_p
from qc.campaign_state import item_states


def rule_names(rules: str) -> set[str]:
    """Rule names in a queue row's ``rules`` ("a,b" for assignments, "ax2;bx1" for workers)."""
    return {re.sub(r"x\d+$", "", r.strip()) for r in re.split(r"[,;]", rules) if r.strip()}


DECIDED = {"person": "decided by a person", "rules": "decided by the rules; the platform was told"}


def time_left(seconds: float) -> str:
    if seconds is None or math.isnan(seconds):
        return "no auto-approval deadline"
    if seconds <= 0:
        return "auto-approval time has passed"
    days, rest = divmod(int(seconds), 86400)
    return f"{days}d {rest // 3600}h {rest % 3600 // 60}m before auto-approval"


def _filtered(queue: pd.DataFrame, filters: dict[str, str]) -> pd.DataFrame:
    keep = pd.Series(True, index=queue.index)
    if filters.get("rule"):
        keep &= queue["rules"].map(lambda r: filters["rule"] in rule_names(r))
    if filters.get("batch"):
        keep &= queue["batch"].astype(str) == filters["batch"]
    if filters.get("worker"):
        keep &= queue["worker_id"] == filters["worker"]
    if filters.get("show") == "open":
        keep &= queue["state"] == "open"
    return queue[keep]


def queue_cards(run: Run, mode: str, filters: dict[str, str]) -> dict[str, Any]:
    """Cards for the page, the filters' choices, counts, and the image hosts the CSP must allow."""
    store, name = run.store, run.cfg.name
    # each item's state (open, decided by a person or by the rules) as every other view counts it
    queue = item_states(campaign_queue(store, name, run.cfg.policy, mode, now := platform_now(run)),
                        applied_work(store, name), run.cfg.review, now)
    history = histories(store, name)
    actions = store.rows("SELECT * FROM review_actions WHERE campaign = ? ORDER BY id", [name])
    controls = control_lines(store, name)
    pooled = PooledLines(store, name)
    cards, origins = [], set()
    for n, row in enumerate(_filtered(queue, filters).to_dict("records")):
        captions = worker_captions(store, name, int(row["batch"]), row["worker_id"])
        captions = [{**c, "telemetry": words} for c, words in zip(captions, telemetry_words(run, captions),
                                                                   strict=True)]
        origins |= {_origin(c["url"]) for c in captions if c["url"]}
        done = [{**a, "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(a["decided_at"]))}
                for a in actions if a["worker_id"] == row["worker_id"]
                and (row["kind"] == "worker" or a["assignment_id"] in ("", row["assignment_id"]))]
        cards.append({**row, "n": n, "time_left": DECIDED.get(row["state"]) or time_left(row["seconds_left"]),
                      "captions": captions,
                      "flags": item_flags(store, name, int(row["batch"]), row["worker_id"]),
                      "history": history[history["worker_id"] == row["worker_id"]].to_dict("records"),
                      "controls": controls.get(row["worker_id"], ""), "done": done,
                      "pooled": pooled.line(int(row["batch"]), row["worker_id"]),
                      "key_base": f"{name}:{row['item']}:{len(done)}"})
    return {"cards": cards, "image_origins": sorted(o for o in origins if o),
            "choices": {"rule": sorted(set().union(*[rule_names(r) for r in queue["rules"]])),
                        "batch": sorted({str(b) for b in queue["batch"]}),
                        "worker": sorted(set(queue["worker_id"]))},
            "counts": {"total": len(queue), "open": int((queue["state"] == "open").sum())},
            "doubted": pooled.doubted()}


def control_lines(store: Store, campaign: str) -> dict[str, str]:
    """Worker -> "3 of 5 right (60%)" over every control item they answered so far."""
    scores = control_scores_so_far(store, campaign, 10**9)
    if scores is None:
        return {}
    return {str(r.worker_id): f"{r.correct} of {r.controls} right ({r.accuracy:.0%})"
            for r in scores.itertuples(index=False)}


class PooledLines:
    """The pooled control rule's evidence (postprocess/answers/worker_skill.py) as the review page shows it: per card,
    the worker's as the block step judged it after the card's batch; above the cards, the workers it
    doubts over every batch so far. Nothing for a campaign planned without the rule."""

    def __init__(self, store: Store, campaign: str):
        self.store, self.campaign = store, campaign
        self.by_batch: dict[int, tuple[pd.DataFrame, SkillPolicy] | None] = {}

    def scores(self, batch: int) -> tuple[pd.DataFrame, SkillPolicy] | None:
        if batch not in self.by_batch:
            self.by_batch[batch] = pooled_evidence_so_far(self.store, self.campaign, batch)
        return self.by_batch[batch]

    def line(self, batch: int, worker_id: str) -> str:
        scored = self.scores(batch)
        mine = None if scored is None else scored[0][scored[0]["worker_id"] == str(worker_id)]
        if scored is None or mine is None or mine.empty:
            return ""
        return f"after batch {batch}: {described(mine.iloc[0], scored[1])}"

    def doubted(self) -> list[dict[str, Any]]:
        """Every worker the rule would block or finds at risk over every batch so far, with their evidence."""
        scored = self.scores(EVERY_BATCH)
        if scored is None:
            return []
        doubted = scored[0][scored[0]["pooled_status"] != "ok"].sort_values(["pooled_p_above", "worker_id"])
        return [{"worker_id": w["worker_id"], "line": described(w, scored[1])} for _, w in doubted.iterrows()]


def described(w: pd.Series, policy: SkillPolicy) -> str:
    """One worker's pooled evidence in words (postprocess.answers.worker_skill.POOLED_COLUMNS)."""
    agreeing = "" if pd.isna(w["pooled_agreement"]) else f", agreeing {w['pooled_agreement']:.0%} with the others"
    return (f"{w['pooled_status']}; P(accuracy >= {policy.block_below:g}) = {shown_p(w['pooled_p_above'])} "
            f"(blocks under {shown_p(policy.alpha)} with {policy.min_evidence:g} sources or more), posterior "
            f"accuracy {w['pooled_accuracy']:.2f}; controls {w['pooled_controls_right']} of {w['pooled_controls']} "
            f"right; {w['pooled_labels']} labels on {w['pooled_pages']} page(s){agreeing}; evidence "
            f"{w['pooled_evidence']:.2f} sources")


def _origin(url: str) -> str:
    parts = urlparse(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else ""
