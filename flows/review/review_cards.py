"""The review page's content: the filtered queue, each item with its evidence and what was done."""

from __future__ import annotations

import math
import time
from typing import Any
from urllib.parse import urlencode

import pandas as pd

from flows.campaigns.answer_cards import web_origin
from flows.campaigns.block_evidence import EVERY_BATCH, control_scores_so_far, pooled_evidence_so_far
from flows.campaigns.campaign_plan import Run
from flows.campaigns.kept_states import keep_for_config
from flows.campaigns.queue_cache import fingerprint, kept_queue
from flows.campaigns.review_data import applied_work, campaign_queue, card_flags, histories, platform_now
from flows.campaigns.task_kinds import kind_of
from flows.core.errors import InputFormatError
from flows.core.ledger.store import Store
from flows.platforms.registry import platform_facts
from postprocess.answers.worker_skill import SkillPolicy, shown_p
from qc.campaign_state import item_states
from qc.review_queue import rule_names

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


def queue_cards(run: Run, mode: str, filters: dict[str, str], now: float | None = None) -> dict[str, Any]:
    """One page of cards, the filters' choices, counts and image hosts; ``now``: the platform's clock."""
    store, name = run.store, run.cfg.name
    now = platform_now(run) if now is None else now
    # each item's state as every other view counts it, the queue kept while the ledger is unchanged
    seen = fingerprint(store, name)
    built = kept_queue(store, name, (run.cfg.policy, mode), now, lambda: campaign_queue(store, name, run.cfg.policy,
                                                                                         mode, now), seen)
    queue = item_states(built, applied_work(store, name), run.cfg.review, now)
    # after a person's decision: the states `hitflow status` reads back, while the config still holds
    keep_for_config(store, name, (run.cfg.policy, mode), seen, [
        {"batch": b, "state": s} for b, s in zip(queue["batch"].tolist(), queue["state"].tolist(), strict=True)])
    shown = _filtered(queue, filters)
    pages = max(1, math.ceil(len(shown) / PAGE_CARDS))
    page = min(pages, _page(filters.get("page", ""), shown))
    pooled = PooledLines(store, name)
    cards = page_cards(run, shown.iloc[(page - 1) * PAGE_CARDS:page * PAGE_CARDS], (page - 1) * PAGE_CARDS, pooled)
    kind, words = kind_of(run.cfg), platform_facts(run.platform).WORDS  # a submission on Prolific, not an assignment
    return {"cards": cards, "image_origins": sorted({web_origin(src) for card in cards for r in card["rows"]
                                                     for _, src in r.images} - {""}),
            "work": words.work, "works": words.works, "unit": kind.unit_word,
            "strikes": bool(kind.extra.get("strikes")),
            "choices": {"rule": sorted(set().union(*[rule_names(r) for r in set(queue["rules"])])),
                        "batch": sorted({str(b) for b in queue["batch"]}),
                        "worker": sorted(set(queue["worker_id"]))},
            "counts": {"total": len(queue), "open": int((queue["state"] == "open").sum()), "shown": len(shown)},
            "pages": {"page": page, "of": pages, "first": (page - 1) * PAGE_CARDS + 1 if cards else 0,
                      "last": (page - 1) * PAGE_CARDS + len(cards)},
            "doubted": pooled.doubted()}


CARD_ROWS = 25  # items answered (and flags) a card shows: five caption HITs' worth, enough to judge a worker by
PAGE_CARDS = 20  # cards a page: every card reads its worker's captions, flags and history (a 40,000-image
# campaign's queue holds ~8,000 items: all on one page never finished loading)


def page_links(filters: dict[str, str], pages: dict[str, int]) -> dict[str, str]:
    """The previous and next page of cards under the same filters ("" at either end)."""
    kept = {k: v for k, v in filters.items() if v and k != "page"}

    def link(page: int) -> str:
        return "./?" + urlencode({**kept, "page": page}) if 1 <= page <= pages["of"] else ""

    return {"previous": link(pages["page"] - 1), "next": link(pages["page"] + 1)}


def _page(asked: str, shown: pd.DataFrame) -> int:
    """The page asked for (1 and up), or the one holding the first open item (the page's current card)."""
    if asked:
        if not (asked.isascii() and asked.isdigit() and 0 < len(asked) <= 6 and int(asked) > 0):
            raise InputFormatError(f"page {asked[:20]!r} is not a page number (1, 2, ...)")
        return int(asked)
    open_at = (shown["state"] == "open").to_numpy().nonzero()[0]
    return int(open_at[0]) // PAGE_CARDS + 1 if len(open_at) else 1


def page_cards(run: Run, rows: pd.DataFrame, first: int, pooled: PooledLines) -> list[dict[str, Any]]:
    """The cards of a page's queue rows (``first``: the first one's number), as the task kind reads them."""
    store, name = run.store, run.cfg.name
    records = rows.to_dict("records")
    if not records:
        return []
    history = {w: rows.to_dict("records") for w, rows in  # the page's workers only
               histories(store, name, {r["worker_id"] for r in records}).groupby("worker_id", sort=False)}
    actions = store.rows("SELECT * FROM review_actions WHERE campaign = ? ORDER BY id", [name])
    # a busy worker's card shows CARD_ROWS of their answers and flags (its own assignment's first), and how many
    work = kind_of(run.cfg).cards(run, [(int(r["batch"]), r["worker_id"], r["assignment_id"]) for r in records],
                                  CARD_ROWS)
    cards = []
    for n, (row, (mine, assignments)) in enumerate(zip(records, work, strict=True), start=first):
        if row["assignment_id"]:  # approve and reject act on this assignment alone: its card shows it alone
            mine = [r for r in mine if r.assignment_id == row["assignment_id"]]
        flags, raised = card_flags(store, name, int(row["batch"]), row["worker_id"], row["assignment_id"], CARD_ROWS)
        done = [{**a, "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(a["decided_at"]))}
                for a in actions if a["worker_id"] == row["worker_id"]
                and (row["kind"] == "worker" or a["assignment_id"] in ("", row["assignment_id"]))]
        cards.append({**row, "n": n, "time_left": DECIDED.get(row["state"]) or time_left(row["seconds_left"]),
                      "rows": mine, "from_assignments": len({r.assignment_id for r in mine}),
                      "assignments": assignments,
                      "flags": flags, "flags_raised": raised,
                      "history": history.get(row["worker_id"], []),
                      "controls": pooled.controls.get(row["worker_id"], ""), "done": done,
                      "pooled": pooled.line(int(row["batch"]), row["worker_id"]),
                      "key_base": f"{name}:{row['item']}:{len(done)}"})
    return cards


def control_lines(store: Store, campaign: str) -> dict[str, str]:
    """Worker -> "3 of 5 right (60%)" over every control item they answered so far."""
    scores = control_scores_so_far(store, campaign, 10**9)
    if scores is None:
        return {}
    return {str(r.worker_id): f"{r.correct} of {r.controls} right ({r.accuracy:.0%})"
            for r in scores.itertuples(index=False)}


class PooledLines:
    """The workers' evidence on the review page: control answers so far, and the pooled control rule's."""

    def __init__(self, store: Store, campaign: str):
        self.store, self.campaign = store, campaign
        self.controls = control_lines(store, campaign)
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
        return [{"worker_id": w["worker_id"], "line": described(w, scored[1]),
                 "controls": self.controls.get(str(w["worker_id"]), "")} for _, w in doubted.iterrows()]


def described(w: pd.Series, policy: SkillPolicy) -> str:
    """One worker's pooled evidence in words, but for their control answers (:func:`control_lines` counts them)."""
    agreeing = "" if pd.isna(w["pooled_agreement"]) else f", agreeing {w['pooled_agreement']:.0%} with the others"
    return (f"{w['pooled_status']}; P(accuracy >= {policy.block_below:g}) = {shown_p(w['pooled_p_above'])} "
            f"(blocks under {shown_p(policy.alpha)} with {policy.min_evidence:g} sources or more), posterior "
            f"accuracy {w['pooled_accuracy']:.2f}; {w['pooled_labels']} labels on {w['pooled_pages']} page(s)"
            f"{agreeing}; evidence "
            f"{w['pooled_evidence']:.2f} sources")

