"""The report's first screen: the answer before the evidence. Captions kept, workers, blocked,
money against the budget, dates, and what needs a person now and by when. Reads only the ledger."""

from __future__ import annotations

import time
from typing import Any

import pandas as pd

from flows.core.store import Store

# Below this, the auto-approval deadline is close enough to say so in red (hitflow status says it too).
URGENT_S = 24 * 3600


def when(seconds: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds)) if seconds else "not yet"


def _dates(store: Store, campaign: str) -> dict[str, str]:
    created = store.rows("SELECT created_at FROM campaigns WHERE name = ?", [campaign])
    work = store.rows("SELECT min(accept_time) AS first, max(submit_time) AS last FROM assignments "
                      "WHERE campaign = ?", [campaign])[0]
    return {"created": when(created[0]["created_at"] if created else None),
            "first_work": when(work["first"]), "last_work": when(work["last"])}


def needs_a_person(store: Store, campaign: str, now: float) -> list[dict[str, Any]]:
    """What waits for someone, each with its deadline and whether it is urgent; [] when nothing does."""
    out = []
    for b in store.rows("SELECT * FROM batches WHERE campaign = ? ORDER BY batch", [campaign]):
        if b.get("hold") and not b.get("hold_release"):
            out.append({"what": f"batch {b['batch']} is held for review: {b['hold']}", "by": "before the next batch",
                        "urgent": True})
    undecided = store.rows(
        "SELECT count(*) AS n, min(auto_approval_time) AS due FROM assignments a WHERE campaign = ? AND "
        "NOT EXISTS (SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)", [campaign])[0]
    if undecided["n"]:
        due = undecided["due"]
        out.append({"what": f"{undecided['n']} submitted assignment(s) have no decision yet; the platform "
                            "approves and pays them itself at the deadline",
                    "by": when(due), "urgent": bool(due) and due - now < URGENT_S})
    review = store.rows("SELECT count(*) AS n FROM decisions WHERE campaign = ? AND review = 1 AND "
                        "(applied IS NULL OR applied = '')", [campaign])[0]["n"]
    if review:
        out.append({"what": f"{review} decision(s) queued for manual review are not applied yet",
                    "by": "before auto-approval", "urgent": False})
    return out


def report_summary(store: Store, campaign: str, captions: pd.DataFrame, blocked: pd.DataFrame,
                   cost: dict[str, Any], now: float | None = None) -> dict[str, Any]:
    """``captions``: every caption with ``is_rejected``; ``cost``: spent and budget as text."""
    now = time.time() if now is None else now
    spent, budget = float(cost["spent"]), float(cost["budget"])
    return {
        "captions": len(captions), "kept": int((~captions["is_rejected"]).sum()) if len(captions) else 0,
        "workers": int(captions["worker_id"].nunique()) if len(captions) else 0,
        "blocked": len(blocked), "spent": cost["spent"], "budget": cost["budget"],
        "share_of_budget": f"{100 * spent / budget:.0f}%" if budget else "no budget set",
        **_dates(store, campaign), "needs": needs_a_person(store, campaign, now),
    }
