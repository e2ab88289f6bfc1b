"""The review queue read from the ledger, each item's evidence, and the step that waits for a person."""

from __future__ import annotations

import time
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import pandas as pd

from flows.campaigns.block_evidence import blocks_due
from flows.campaigns.identity import recorded_platform
from flows.campaigns.kept_states import keep_items, settings_key
from flows.campaigns.queue_cache import fingerprint, kept_queue
from flows.campaigns.review_rows import WORK_COLUMNS, applied_rows, held_rows, ledger_now, review_settings
from flows.core.errors import HitflowError
from flows.core.ledger.store import Store
from flows.core.run.run_context import Run
from flows.platforms.registry import platform_for
from flows.platforms.targets import advance_sim_clock
from qc.campaign_state import campaign_state, item_states
from qc.decisions import DecisionPolicy
from qc.review_queue import QUEUE_COLUMNS, QUEUE_FLAG_COLUMNS, build_queue, people_vs_rules, worker_history

if TYPE_CHECKING:
    from flows.core.config.config import CampaignConfig


class ReviewPending(HitflowError):
    """The run stopped before decisions because a person has not cleared the batch's queue."""

    exit_code = 0  # waiting is the configured behaviour, not a failure

    def __init__(self, message: str, campaign: str = "", batch: int = 0, wait_s: float | None = None,
                 virtual_clock: bool = False, embedded: bool = False):
        super().__init__(message)
        self.campaign, self.batch = campaign, batch
        self.wait_s = wait_s  # platform seconds until the review deadline; None when no deadline is known
        self.virtual_clock = virtual_clock  # the simulator's clock: its seconds are not wall-clock seconds
        self.embedded = embedded  # the run's own simulator: the review page needs its state file in turn

    def __reduce__(self) -> tuple[Any, ...]:  # a Prefect task's exception may travel pickled
        return (type(self), (str(self), self.campaign, self.batch, self.wait_s, self.virtual_clock, self.embedded))


def review_frames(store: Store, campaign: str) -> dict[str, pd.DataFrame]:
    """The queue's inputs, in :mod:`qc.review_queue`'s column contract (caption batches only)."""
    return {
        # the flags' columns the queue reads: their values and details (long text) halved the read's CPU
        "flags": store.frame("SELECT " + ", ".join(QUEUE_FLAG_COLUMNS) + " FROM qc_flags WHERE campaign = ? "
                             "AND batch > 0 ORDER BY rowid", [campaign], QUEUE_FLAG_COLUMNS),
        "assignments": store.frame("SELECT assignment_id, worker_id, batch, auto_approval_time, status "
                                   "FROM assignments WHERE campaign = ? AND batch > 0 ORDER BY rowid", [campaign],
                                   ["assignment_id", "worker_id", "batch", "auto_approval_time", "status"]),
        "actions": store.frame("SELECT batch, worker_id, assignment_id, action, reviewer FROM review_actions "
                               "WHERE campaign = ? ORDER BY id", [campaign],
                               ["batch", "worker_id", "assignment_id", "action", "reviewer"]),
        "decisions": store.frame("SELECT assignment_id, action, applied FROM decisions WHERE campaign = ?",
                                 [campaign], ["assignment_id", "action", "applied"]),
        "blocks": store.frame("SELECT worker_id, batch FROM blocks WHERE campaign = ?", [campaign],
                              ["worker_id", "batch"]),
    }


def campaign_queue(store: Store, campaign: str, policy: DecisionPolicy, mode: str,
                   now: float | None = None) -> pd.DataFrame:
    f = review_frames(store, campaign)
    work = f["assignments"]
    # Settled unpaid by the platform (returned, timed out): no verdict can be sent, so they hold no batch.
    work = work[~work["status"].isin(settled_unpaid(store, campaign))].copy()
    work["auto_approval_time"] = pd.to_numeric(work["auto_approval_time"], errors="coerce")
    batches = sorted({int(b) for b in f["flags"]["batch"]} | {int(b) for b in work["batch"]})
    due = {b: blocks_due(store, campaign, policy, b) for b in batches}
    policy = routed(store, campaign, policy)  # the queue shows what the route will do (Prolific: its grounds)
    # a campaign that does not wait for review still gets the full queue when someone opens the page
    return build_queue(f["flags"], work, f["actions"], policy, "flagged" if mode == "none" else mode,
                       time.time() if now is None else now, due)


def routed(store: Store, campaign: str, policy: DecisionPolicy) -> DecisionPolicy:
    """``policy`` with the rejection grounds of the campaign's platform (route_policy.py)."""
    rows = store.rows("SELECT config_json, config_path FROM campaigns WHERE name = ?", [campaign])
    if not rows or policy.reject_grounds is not None:
        return policy
    platform = recorded_platform(store, campaign, rows[0]["config_json"])
    if platform_for(platform).REJECTION_GROUNDS is None:
        return policy
    from flows.campaigns.route_policy import route_policy
    from flows.core.config.config import load_config

    try:
        cfg = load_config(rows[0]["config_path"])
    except (HitflowError, OSError, TypeError):
        cfg = None
    return route_policy(cfg, platform, policy)


def settled_unpaid(store: Store, campaign: str) -> tuple[str, ...]:
    """The stored statuses the campaign's platform settled unpaid (none for a campaign not in the store)."""
    rows = store.rows("SELECT config_json FROM campaigns WHERE name = ?", [campaign])
    return platform_for(recorded_platform(store, campaign, rows[0]["config_json"])).SETTLED_UNPAID if rows else ()


def platform_now(run: Run) -> float:
    """The platform's clock: auto-approval deadlines are in its time (the simulator's is virtual)."""
    if run.target.kind == "sim":
        return advance_sim_clock(run.target, 0)
    return time.time()


def histories(store: Store, campaign: str, workers: Collection[str] | None = None) -> pd.DataFrame:
    """Per worker and batch (:func:`qc.review_queue.worker_history`); ``workers``: theirs alone."""
    f = review_frames(store, campaign) if workers is None else worker_frames(store, campaign, sorted(set(workers)))
    return worker_history(f["flags"], f["assignments"], f["decisions"], f["blocks"])


def worker_frames(store: Store, campaign: str, workers: list[str]) -> dict[str, pd.DataFrame]:
    """:func:`review_frames`' flags, assignments, decisions and blocks of ``workers`` only."""
    some = f"worker_id IN ({', '.join('?' * len(workers))})"
    mine = [campaign, *workers]
    work = store.frame("SELECT a.assignment_id, a.worker_id, a.batch, d.action FROM assignments a LEFT JOIN "
                       f"decisions d ON d.campaign = a.campaign AND d.assignment_id = a.assignment_id WHERE a.campaign "
                       f"= ? AND a.batch > 0 AND a.{some}",
                       mine, ["assignment_id", "worker_id", "batch", "action"])  # one pass for both
    return {
        "flags": store.frame(f"SELECT worker_id, batch FROM qc_flags WHERE campaign = ? AND batch > 0 AND {some}",
                             mine, ["worker_id", "batch"]),
        "assignments": work[["assignment_id", "worker_id", "batch"]],
        "decisions": work.loc[work["action"].notna(), ["assignment_id", "action"]],
        "blocks": store.frame(f"SELECT worker_id, batch FROM blocks WHERE campaign = ? AND {some}", mine,
                              ["worker_id", "batch"]),
    }


CAPTIONS = """
    SELECT a.assignment_id, x.item_id AS image_id, x.value AS caption, i.url, (s.image_id IS NOT NULL) AS struck
    FROM assignments a JOIN answers x ON x.campaign = a.campaign AND x.assignment_id = a.assignment_id
      AND x.field = 'caption'
    LEFT JOIN items i ON i.campaign = a.campaign AND i.item_id = x.item_id
    LEFT JOIN struck_captions s ON s.campaign = a.campaign AND s.assignment_id = a.assignment_id
      AND s.image_id = x.item_id"""


def worker_work(store: Store, campaign: str, cards: list[tuple[int, str, str]], most: int
                ) -> tuple[list[list[str]], list[int]]:
    """Per card: at most ``most`` of the worker's assignments in the batch, own first, and their count."""
    workers = sorted({w for _, w, _ in cards})
    work: dict[tuple[int, str], list[str]] = {}
    for r in store.rows(f"SELECT assignment_id, batch, worker_id FROM assignments WHERE campaign = ? AND worker_id "
                        f"IN ({', '.join('?' * len(workers))}) ORDER BY rowid", [campaign, *workers]):
        work.setdefault((int(r["batch"]), r["worker_id"]), []).append(r["assignment_id"])
    chosen = [sorted(work.get((b, w), []), key=own.__ne__)[:most] for b, w, own in cards]  # stable: own first
    return chosen, [len(work.get((b, w), [])) for b, w, _ in cards]


def card_captions(store: Store, campaign: str, cards: list[tuple[int, str, str]], most: int
                  ) -> list[tuple[list[dict[str, Any]], int]]:
    """Per card: the worker's captions in the batch with strikes, ``most`` at most, and their count."""
    # an assignment holds a caption or more: the first ``most`` of each card's hold all it shows
    chosen, done = worker_work(store, campaign, cards, most)
    ids = sorted({a for mine in chosen for a in mine})
    found: dict[str, list[dict[str, Any]]] = {}
    for r in store.rows(f"{CAPTIONS} WHERE a.campaign = ? AND a.assignment_id IN ({', '.join('?' * len(ids))}) "
                        "ORDER BY x.item_id", [campaign, *ids]) if ids else []:
        found.setdefault(r["assignment_id"], []).append(r)
    return [([c for a in mine for c in found.get(a, [])][:most], n) for mine, n in zip(chosen, done, strict=True)]


def card_flags(store: Store, campaign: str, batch: int, worker_id: str, own: str, most: int
               ) -> tuple[list[dict[str, Any]], int]:
    """The worker's flags in the batch, ``most`` at most, one of each rule in turn; and their count."""
    rows = store.rows("""
        SELECT rule, value, threshold, assignment_id, image_id, detail, raised FROM (
          SELECT rule, value, threshold, assignment_id, image_id, detail, rowid AS n, COUNT(*) OVER () AS raised,
                 ROW_NUMBER() OVER (PARTITION BY rule ORDER BY rowid) AS turn
          FROM qc_flags WHERE campaign = ? AND batch = ? AND worker_id = ?
          ORDER BY (assignment_id = ?) DESC, turn, rowid LIMIT ?) AS chosen
        ORDER BY rule, n""", [campaign, batch, worker_id, own, most])
    return [{k: v for k, v in r.items() if k != "raised"} for r in rows], int(rows[0]["raised"]) if rows else 0


def review_gate(run: Run, batch: int) -> dict[str, Any]:
    """Stop before decisions while the batch's queue has open items, unless auto-approval is near."""
    cfg = run.cfg
    if cfg.review == "none" or cfg.study is not None:
        return {"review": "none"}
    queue = kept_queue(run.store, cfg.name, (cfg.policy, cfg.review), now := platform_now(run),
                       lambda: campaign_queue(run.store, cfg.name, cfg.policy, cfg.review, now))
    mine = queue[queue["batch"] == batch]
    states = item_states(mine, applied_work(run.store, cfg.name), cfg.review, now)  # as every view counts them
    open_items = mine[(states["state"] == "open").to_numpy()]
    if open_items.empty:  # counted as status and the queue count them: by each item's state, not the queue's size
        by_person = int((states["state"] == "person").sum())
        by_rules = len(mine) - by_person
        run.progress(f"batch {batch}: review done ({by_person} item(s) decided by a person"
                     + (f", {by_rules} by the rules)" if by_rules else ")"))
        return {"review": "done", "reviewed": by_person}
    left = pd.to_numeric(mine["seconds_left"], errors="coerce").min()
    if pd.notna(left) and left <= cfg.review_deadline_s:
        run.progress(f"batch {batch}: review deadline reached with {len(open_items)} item(s) open; "
                     "the policy's automatic decisions apply to them")
        run.store.set_batch(cfg.name, batch, review_note=f"{len(open_items)} open at the deadline: automatic")
        return {"review": "deadline", "open": len(open_items)}
    ledger_state(run.store, cfg.name, now)  # kept for `hitflow status` (kept_states.py): the queue is kept above
    raise ReviewPending(f"batch {batch} waits for review ({len(open_items)} item(s) open): "
                        f"`hitflow review {cfg.name} --db {run.store.shown()}`, stop it (Ctrl-C) when the queue is "
                        "clear, then run the campaign again",
                        cfg.name, batch, float(left - cfg.review_deadline_s) if pd.notna(left) else None,
                        run.target.kind == "sim", bool(run.target.state))


def review_report(run: Run) -> pd.DataFrame | None:
    """The reports' "People and the rules" section: per batch, people against the rules with its review note;
    None when nobody reviewed and nothing waited."""
    if run.cfg.review == "none" and not run.store.table("review_actions").count_where("campaign = ?", [run.cfg.name]):
        return None
    summary = people_vs_rules(campaign_queue(run.store, run.cfg.name, run.cfg.policy, run.cfg.review))
    notes = {r["batch"]: r.get("review_note") or "" for r in
             run.store.rows("SELECT * FROM batches WHERE campaign = ?", [run.cfg.name])}
    return summary.assign(note=[notes.get(b, "") for b in summary["batch"]])


def ledger_state(store: Store, campaign: str, now: float | None = None,
                 settings: tuple[CampaignConfig | None, str] | None = None,
                 key: str | None = None) -> tuple[dict[str, Any], pd.DataFrame]:
    """What needs a person, what is decided and by whom, and when auto-approval comes, with the queue."""
    now = ledger_now(store, campaign) if now is None else now
    if settings is None:
        key = settings_key(store, campaign)  # before the config is loaded: its text then or an older one
        settings = review_settings(store, campaign)
    cfg, mode = settings
    reviewed = cfg is not None and mode != "none"
    seen = fingerprint(store, campaign) if reviewed else ""
    # with review = "none" nothing in the queue can be open: it is not built (the queue page builds its own)
    queue = kept_queue(store, campaign, (cfg.policy, mode), now,  # unchanged ledger: the queue built before
                       lambda: campaign_queue(store, campaign, cfg.policy, mode, now), seen) \
        if cfg is not None and mode != "none" else pd.DataFrame(columns=QUEUE_COLUMNS)
    work = applied_rows(store, campaign)
    items = item_states(queue, pd.DataFrame(work, columns=WORK_COLUMNS), mode, now)
    states = items[["batch", "state"]].to_dict("records")
    if reviewed and key is not None:
        keep_items(store, campaign, key, seen, states)
    return campaign_state(states, work, held_rows(store, campaign), now), items


def applied_work(store: Store, campaign: str) -> pd.DataFrame:
    """Every stored assignment with what the platform was told of its decision ("" while nothing)."""
    return pd.DataFrame(applied_rows(store, campaign), columns=WORK_COLUMNS)
