"""A scheduled campaign between two runs said to be waiting, not "(stopped)"."""

from __future__ import annotations

import json
import time
from typing import Any

from flows.core.ledger.store import Store

SCHEDULED_RUN = "scheduled_run"  # the ledger's note of one run of the next-batch deployment
WAITING = "scheduled"  # the status shown for such a campaign between two runs (``status --json``)


def note_scheduled_run(store: Store, campaign: str, interval_s: int, cron: str, now: float | None = None) -> None:
    """Write that a scheduled run of ``campaign`` started now, and on which schedule."""
    at = time.time() if now is None else now
    key = f"{campaign}:{SCHEDULED_RUN}:{at!r}"
    store.intend(campaign, 0, SCHEDULED_RUN, key, {"interval_s": interval_s, "cron": cron, "at": at})
    store.settle(key, "done")


def last_scheduled_run(store: Store, campaign: str) -> dict[str, Any] | None:
    """The latest scheduled run's note (``interval_s``, ``cron``, ``at``), None when none ran."""
    rows = store.rows("SELECT params FROM ledger WHERE campaign = ? AND operation = ? ORDER BY id DESC LIMIT 1",
                      [campaign, SCHEDULED_RUN])
    return json.loads(rows[0]["params"] or "{}") if rows else None


def waiting_words(note: dict[str, Any]) -> str:
    """"waiting for its next scheduled run, about <time> (every N s)", the cron's words, or late."""
    if note.get("cron"):
        return f"waiting for its next scheduled run (cron {note['cron']})"
    interval = int(note.get("interval_s") or 0)
    if not interval or not note.get("at"):
        return "waiting for its next scheduled run"
    due = float(note["at"]) + interval
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(due))
    if due >= time.time():
        return f"waiting for its next scheduled run, about {when} (every {interval} s)"
    return (f"waiting for its next scheduled run, due {when} (every {interval} s) and not started: is "
            "`hitflow serve-schedules` (or a worker of `hitflow deploy`'s pool) still running?")
