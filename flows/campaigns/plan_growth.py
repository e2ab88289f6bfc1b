"""A campaign planned on the first items of its file grows when a run asks for more."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from flows.answers.control_items import controls_note, used_controls
from flows.answers.control_quiz import stored_quiz
from flows.campaigns.campaign_plan import checked_items, plan_items, planned_items
from flows.core.config.config import CampaignConfig
from flows.core.errors import BudgetError, ConfigError
from flows.core.run.run_context import Run


@dataclass(frozen=True)
class Growth:
    """What a growth added to the ledger, and the campaign row it replaced: enough to undo it."""

    item_ids: list[str]
    config_json: str
    status: str


def plan_or_grow(run: Run, limit: int | None = None, scale: int = 1) -> Growth | None:
    """The campaign's plan: made once (flows/campaigns/campaign_plan.py), then resumed, grown or refused."""
    if run.store.table("items").count_where("campaign = ?", [run.cfg.name]):
        return grow_or_refuse(run, limit, scale)
    plan_items(run, limit, scale)
    return None


@contextmanager
def budget_refusal_undoes(run: Run, growth: Growth | None) -> Iterator[None]:
    """A :class:`BudgetError` in the block takes ``growth`` out of the ledger again (nothing was posted)."""
    try:
        yield
    except BudgetError:
        if growth is not None:
            with run.store.transaction():
                run.store.executemany("DELETE FROM items WHERE campaign = ? AND item_id = ?",
                                      [[run.cfg.name, item_id] for item_id in growth.item_ids])
                run.store.table("campaigns").update(run.cfg.name, {"config_json": growth.config_json,
                                                                   "status": growth.status})
        raise


def grow_or_refuse(run: Run, limit: int | None, scale: int) -> Growth | None:
    """Resume on the planned items, or add batches for the items asked for after them, or refuse."""
    cfg, store = run.cfg, run.store
    stored = stored_plan(store, cfg.name)
    planned, controls, verdict, asked = growth_verdict(cfg, stored, limit, scale)
    if verdict == "resume":
        return None  # the same items: resumed as it was
    if verdict:
        raise ConfigError(verdict)
    first = max(int(r["batch"]) for r in stored) + 1
    quiz = {k[0] for k in stored_quiz(store, cfg.name).get("key", [])}  # never on a page: its takers met them
    rows = new_rows(cfg, limit, len(planned), first, frozenset(controls) | quiz)
    with store.transaction():
        store.table("items").insert_all(rows, pk=("campaign", "item_id"))
        was = store.rows("SELECT config_json, status FROM campaigns WHERE name = ?", [cfg.name])[0]
        info = json.loads(was["config_json"])
        info.update(items=len(stored) + len(rows), batches=max(r["batch"] for r in rows))
        store.table("campaigns").update(cfg.name, {"config_json": json.dumps(info), "status": "running"})
    added = asked - len(planned)
    run.progress(f"plan: {cfg.name} grows by {added} item(s) after its {len(planned)} planned ones, in batch(es) "
                 f"{first}-{max(r['batch'] for r in rows)}; the planned items keep their batches and are not "
                 f"posted again{controls_note(len(rows) - added)}")
    return Growth([r["item_id"] for r in rows], was["config_json"], was["status"])


def stored_plan(store: Any, campaign: str) -> list[dict[str, Any]]:
    """The campaign's planned items in plan order (``item_id, batch``); [] when it has none."""
    return store.rows("SELECT item_id, batch FROM items WHERE campaign = ? ORDER BY rowid", [campaign])


def growth_verdict(cfg: CampaignConfig, stored: list[dict[str, Any]], limit: int | None, scale: int
                   ) -> tuple[list[str], set[str], str, int]:
    """(planned ordinary items, controls, "resume" | "" (grow) | why refused, items asked), for the dry run too."""
    controls = used_controls(cfg, {r["item_id"] for r in stored})
    planned = [r["item_id"] for r in stored if r["item_id"] not in controls]
    asked = asked_items(cfg, limit, scale)
    many = len(asked) if asked is not None else 0
    if asked == planned or (asked is None and len(planned) + len(controls) == planned_items(cfg, limit, scale)[0]):
        return planned, controls, "resume", many
    if asked is None or len(asked) <= len(planned) or asked[:len(planned)] != planned:
        return planned, controls, refusal(cfg, len(planned), len(controls), many if asked is not None else None), many
    return planned, controls, "", many


def asked_items(cfg: CampaignConfig, limit: int | None, scale: int) -> list[str] | None:
    """The ordinary item ids this run asks for, in file order; None when a plan of that kind cannot grow."""
    if scale != 1 or cfg.study is not None:
        return None
    from flows.campaigns.task_kinds import kind_of

    own = kind_of(cfg).item_ids  # a kind with items of its own (a page of one's own), or the caption's images
    ids = own(cfg) if own is not None else [r["image_id"] for r in checked_items(cfg)]
    return ids[:limit] if limit else ids


def new_rows(cfg: CampaignConfig, limit: int | None, planned: int, first: int, used: frozenset[str]
             ) -> list[dict[str, Any]]:
    """The plan rows of the items after the first ``planned`` ones, in ``cfg.batches`` batches from ``first``."""
    from flows.campaigns.task_kinds import kind_of

    if (plan := kind_of(cfg).item_plan) is not None:  # a kind with items of its own: it grows its own plan
        return plan(cfg, limit, planned=planned, first_batch=first, used_controls=used)
    items = list(checked_items(cfg))[planned:limit]
    per_batch = -(-len(items) // cfg.batches)
    return [{"campaign": cfg.name, "item_id": it["image_id"], "file_name": it["file_name"], "url": it["url"],
             "batch": first + i // per_batch, "hit_index": (i % per_batch) // cfg.images_per_hit}
            for i, it in enumerate(items)]


def refusal(cfg: CampaignConfig, planned: int, controls: int, asked: int | None) -> str:
    what = f"{planned} item(s)" + (f" and {controls} control item(s)" if controls else "")
    why = ("this run asks for a different set of items (--scale, or an evaluation study, whose tasks are drawn "
           "from the whole item set, cannot grow)" if asked is None else
           f"this run asks for {asked} item(s), not the planned ones followed by more (a smaller --limit, or the "
           "items file's rows changed or reordered)")
    return (f"campaign {cfg.name} was planned on {what}; {why}: run it as before to resume it (a larger "
            "--limit, or rows appended to the items file, adds batches for the new items), or pass "
            "--new-attempt to start a campaign of its own on the new items")
