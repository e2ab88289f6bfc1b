"""Open now, collect later: a live route's run leaves an open batch with ``BatchOpen`` (exit 9)."""

from __future__ import annotations

import json
import time

from flows.core.errors import BatchOpen
from flows.core.run.run_context import Run
from flows.core.terminal import WaitingBar, on_terminal


def detaches(run: Run) -> bool:
    """Whether this run leaves an open batch instead of waiting for it in-process."""
    mode = run.notes.get("detach") or run.cfg.detach
    return mode == "always" or (mode == "live" and bool(run.notes.get("live_route")))


def open_window(run: Run, batch: int) -> float:
    """When the batch opened on the platform's clock, recorded by the run that published it."""
    rows = run.store.rows("SELECT status, opened_at FROM batches WHERE campaign = ? AND batch = ?",
                          [run.cfg.name, batch])
    if rows and rows[0]["opened_at"]:
        return float(rows[0]["opened_at"])
    now = run.clock()
    run.store.set_batch(run.cfg.name, batch, opened_at=now, status=rows[0]["status"] if rows else "planned")
    return now


def seconds_left(run: Run, batch: int) -> float:
    return open_window(run, batch) + (run.cfg.batch_open_s or run.cfg.hit_lifetime_s) - run.clock()


def span(seconds: float) -> str:
    """``2 d 3 h``, ``4 h 10 min``, ``35 s``: how long, to a person."""
    s = max(0, int(seconds))
    days, hours, minutes = s // 86400, s % 86400 // 3600, s % 3600 // 60
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {s % 60} s" if minutes else f"{s} s"


def closes_now(run: Run, batch: int, filled: int, places: int, pending: int = 0, detail: str = "") -> bool:
    """True when a waiting batch closes now; else a detaching run leaves (``BatchOpen``), a waiting one gets False."""
    left = seconds_left(run, batch)
    what = f"batch {batch}" if batch else "qualification test"
    text = (f"{what}: {filled}/{places} places filled, {pending} in progress{detail}; "
            + ("closing now" if left <= 0 else f"{span(left)} left"))
    closing = (filled >= places and not pending) or left <= 0
    if closing or not detaches(run):
        show_waiting(run, batch, text, (filled, pending, detail, left <= 0), progress=(filled, places))
    if closing:
        end_waiting(run, batch)
        return True
    if detaches(run):  # the leaving message says it all: no progress line before it
        end_waiting(run, batch)
        raise BatchOpen(f"{what} open: {filled}/{places} in, {pending} in progress, {span(left)} left "
                        f"(closes {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(run.clock() + left))})",
                        batch, filled, places, left)
    return False


def show_waiting(run: Run, batch: int, text: str, state: tuple[object, ...],
                 progress: tuple[int, int] | None = None) -> None:
    """One updating line per waiting batch: a bar with an ETA on a terminal, else the line when it changes."""
    if run.progress is print and on_terminal():
        bars: dict[int, WaitingBar] = run.notes.setdefault("waiting_bars", {})
        if batch not in bars:
            bars[batch] = WaitingBar()
        bars[batch].show(text, *(progress or (0, None)))
        return
    lines: dict[int, tuple[object, ...]] = run.notes.setdefault("waiting_lines", {})
    if lines.get(batch) != state:
        lines[batch] = state
        run.progress(text)


def end_waiting(run: Run, batch: int) -> None:
    """Finish a batch's bar (so the next message starts on its own line) and forget its last line."""
    run.notes.get("waiting_lines", {}).pop(batch, None)
    bar = run.notes.get("waiting_bars", {}).pop(batch, None)
    if bar is not None:
        bar.stop()


def record_unfilled(run: Run, batch: int, units: int, places: int, got: int) -> None:
    """A study or invite round closed short of its places, noted on the batch for summary, status and exit 8."""
    full_units = run.store.rows(
        "SELECT COUNT(*) AS n FROM (SELECT hit_id FROM assignments WHERE campaign = ? AND batch = ? GROUP BY hit_id "
        "HAVING COUNT(*) >= ?) AS full_units", [run.cfg.name, batch, run.cfg.assignments_per_image])[0]["n"]
    short = {"hits": units, "expected": places, "got": got, "short_hits": max(0, units - full_units),
             "still_open": 0, "route": run.platform} if got < places else {}
    run.store.set_batch(run.cfg.name, batch, shortfall=json.dumps(short) if short else "")
    if short:
        run.progress(f"batch {batch}: INCOMPLETE: {got} of {places} places filled when it closed")
