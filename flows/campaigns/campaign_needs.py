"""What needs a person in a campaign, for ``hitflow status`` and ``ui``, pandas only if needed."""

from __future__ import annotations

from typing import Any

from flows.campaigns.kept_states import kept_items, settings_key
from flows.campaigns.review_rows import applied_rows, held_rows, ledger_now, paused_runs, review_settings
from flows.core.ledger.store import Store
from qc.campaign_state import campaign_state


def needs_state(store: Store, campaign: str, now: float | None = None) -> dict[str, Any]:
    """``ledger_state``'s state, from rows alone where the review is "none" or the states were kept."""
    now = ledger_now(store, campaign) if now is None else now
    key = settings_key(store, campaign)  # before the config is loaded, as ledger_state reads it
    items = kept_items(store, campaign, key) if key is not None else None
    if items is None:
        cfg, mode = settings = review_settings(store, campaign)
        if cfg is not None and mode != "none":
            from flows.campaigns.review_data import ledger_state

            return ledger_state(store, campaign, now, settings, key)[0]
    return campaign_state(items or [], applied_rows(store, campaign), held_rows(store, campaign), now)


def review_status(store: Store, campaign: str, state: dict[str, Any] | None = None) -> dict[str, Any]:
    """For ``hitflow status``: open queue items (from ``state`` when given) and people's decisions, per batch."""
    rows = store.rows("SELECT batch, action, count(*) AS n FROM review_actions WHERE campaign = ? "
                      "GROUP BY batch, action ORDER BY batch, action", [campaign])
    by_batch: dict[int, dict[str, int]] = {}
    for r in rows:
        by_batch.setdefault(int(r["batch"]), {})[r["action"]] = int(r["n"])
    state = state or (needs_state(store, campaign) if store.rows(
        "SELECT 1 FROM campaigns WHERE name = ?", [campaign]) else {"open": 0})
    open_items = int(state["open"])
    # items a person decided, per batch, counted as the queue counts them (the actions above are every click)
    items = {int(b): int(s.get("person", 0)) for b, s in (state.get("by_batch") or {}).items() if s.get("person")} \
        or {int(b): int(n) for b, n in (state.get("person_by_batch") or {}).items()}  # status' copy of the state
    return {"open": open_items, "decided_by_people": by_batch, "items_decided_by_people": items,
            "paused_runs": [p["flow_run_id"] for p in paused_runs(store, campaign)]}


def format_review_status(review: dict[str, Any]) -> str:
    """"review: 0 item(s) open; decided by people: batch 1: 6 item(s) (approve 4, keep 2)"."""
    items = review.get("items_decided_by_people", {})
    people = "; ".join(f"batch {b}: " + (f"{items.get(b, 0)} item(s) (" if items else "")
                       + ", ".join(f"{a} {n}" for a, n in acts.items()) + (")" if items else "")
                       for b, acts in sorted(review["decided_by_people"].items()))
    paused = "".join(f"; Prefect flow run {run_id} paused for it" for run_id in review.get("paused_runs", []))
    return f"  review: {review['open']} item(s) open; decided by people: {people or 'nothing yet'}{paused}"
