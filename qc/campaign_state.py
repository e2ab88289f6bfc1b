"""What needs a person, what is decided and by whom, and when the platform pays by itself, computed once for every view
(docs/how-to/review.md).
- ``queue``: :func:`qc.review_queue.build_queue`'s rows (:data:`qc.review_queue.QUEUE_COLUMNS`).
- ``work``: ``assignment_id, batch, auto_approval_time`` (platform epoch seconds; None/NaN if unknown) and ``applied``
  ("" or None while no decision was sent).
- ``held``: ``batch, why`` of batches held for a person; ``mode``: ``[policy] review``; ``now``: the platform's clock.
:func:`item_states` adds ``state`` (open, person, rules, rules_next) and ``seconds_left`` (never negative, NaN once
decided); :func:`campaign_state` (plain rows: no pandas) sums them per batch and campaign."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

STATES = ("open", "person", "rules", "rules_next")


def item_states(queue: pd.DataFrame, work: pd.DataFrame, mode: str, now: float) -> pd.DataFrame:
    """The queue with ``state`` and ``seconds_left`` as the module docstring says."""
    import pandas as pd

    # lists, not the Series themselves: iterating an Arrow-backed column costs a Python call per value
    ids = work["assignment_id"].tolist()
    sent = dict(zip(ids, work["applied"].fillna("").astype(str).tolist(), strict=True))
    due = dict(zip(ids, pd.to_numeric(work["auto_approval_time"], errors="coerce").tolist(), strict=True))
    out = queue.copy()
    decided = _decided_batches(work)  # once, not per worker row (193 rows at 40,000 images: ~0.3 s)
    states, left = [], []
    for by_person, kind, assignment_id, auto_action, batch in zip(*(out[c].tolist() for c in (
            "decided", "kind", "assignment_id", "auto_action", "batch")), strict=True):  # lists: not itertuples
        if by_person:
            state = "person"
        elif kind == "assignment" and sent.get(assignment_id, ""):
            state = "rules"
        elif kind == "worker" and str(auto_action) in ("block", "keep") and int(batch) in decided:
            state = "rules"  # the batch's block step ran on the rules' word
        else:
            state = "rules_next" if mode == "none" else "open"
        states.append(state)
        at = due.get(assignment_id, float("nan")) if kind == "assignment" else float("nan")
        left.append(max(0.0, float(at) - now) if state in ("open", "rules_next") and pd.notna(at) else float("nan"))
    out["state"], out["seconds_left"] = states, left
    return out


def _decided_batches(work: pd.DataFrame) -> set[int]:
    """The batches with work whose every assignment's decision the platform was told."""
    sent = (work["applied"].fillna("").astype(str) != "").groupby(work["batch"].astype(int)).all()
    return {int(b) for b, every in sent.items() if every}


def campaign_state(items: Iterable[dict[str, Any]], work: Iterable[dict[str, Any]],
                   held: Iterable[dict[str, Any]], now: float) -> dict[str, Any]:
    """``needs_person`` (open queue items plus held batches), the counts by state, the assignments no
    decision reached the platform for (``undecided``), and ``auto_approval_in_s`` (the soonest of those,
    never negative; None when none is due), for the campaign and ``by_batch``; ``items``: :func:`item_states`' rows."""
    states: dict[int, list[str]] = {}
    due: dict[int, list[float]] = {}
    holds: dict[int, int] = {}
    for i in items:
        states.setdefault(int(i["batch"]), []).append(i["state"])
    for w in work:  # grouped in one pass each: a 40,000-image ledger holds ~200,000 assignments
        mine = due.setdefault(int(w["batch"]), [])
        if _unsent(w["applied"]):
            mine.append(_seconds(w["auto_approval_time"]))
    for h in held:
        holds[int(h["batch"])] = holds.get(int(h["batch"]), 0) + 1
    by_batch = {b: _sums(states.get(b, []), due.get(b, []), holds.get(b, 0), now)
                for b in sorted(states.keys() | due.keys() | holds.keys())}
    return {**_sums([s for one in states.values() for s in one], [t for one in due.values() for t in one],
                    sum(holds.values()), now), "by_batch": by_batch}


def _sums(states: list[str], due: list[float], holds: int, now: float) -> dict[str, Any]:
    counts = {s: states.count(s) for s in STATES}
    known = [t for t in due if not math.isnan(t)]
    return {"needs_person": counts["open"] + holds, **counts, "held": holds, "undecided": len(due),
            "auto_approval_in_s": round(max(0.0, min(known) - now)) if known else None}


def _unsent(applied: Any) -> bool:
    """No decision reached the platform: "" (or a missing value, as pandas' ``fillna("")`` reads it)."""
    return applied is None or (isinstance(applied, float) and math.isnan(applied)) or str(applied) == ""


def _seconds(value: Any) -> float:
    """A stored time as a number, NaN when unknown or not one (``pd.to_numeric(errors="coerce")``'s reading)."""
    if value is None:
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def state_words(state: dict[str, Any]) -> str:
    """The one line every text view prints: "needs a person: 3 (2 review item(s) open, 1 held batch)"..."""
    parts = [f"{state['open']} review item(s) open"] if state["open"] else []
    parts += [f"{state['held']} held batch(es)"] if state["held"] else []
    return f"needs a person: {state['needs_person']}" + (f" ({', '.join(parts)})" if parts else "")
