"""Rounds of more work on posted units (adaptive overlap, caption top-ups), intents first."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import pandas as pd

from flows.core.run.run_context import Run
from flows.platforms.registry import platform_for
from flows.platforms.unit_extensions import EXTENSION_OPS, ROUND_NOTE
from postprocess.answers.extension_rounds import short_reasons

DONE_NOTE = "ExtensionRoundsDone"


def round_note(run: Run, batch: int, round_no: int) -> str:
    return f"{run.cfg.name}:b{batch}:extension-r{round_no}:collected"


def extended_batches(run: Run) -> list[int]:
    """The batches any recorded round extended, in order."""
    marks = ",".join("?" * len(EXTENSION_OPS))
    return [int(row["batch"]) for row in run.store.rows(
        f"SELECT DISTINCT batch FROM ledger WHERE campaign = ? AND operation IN ({marks}) ORDER BY batch",
        [run.cfg.name, *EXTENSION_OPS])]


def recorded_rounds(run: Run, batch: int) -> dict[int, list[str]]:
    """The units each recorded round extends, by round (a unit extended by k appears k times)."""
    rounds: dict[int, list[str]] = {}
    marks = ",".join("?" * len(EXTENSION_OPS))
    for row in run.store.rows(f"SELECT params FROM ledger WHERE campaign = ? AND batch = ? AND operation IN ({marks}) "
                              "ORDER BY id", [run.cfg.name, batch, *EXTENSION_OPS]):
        params = json.loads(row["params"] or "{}")
        extra = int(params.get("NumberOfAdditionalAssignments", 1))
        unit = params.get("HITId") or params["unit"]  # MTurk's HIT, or a unit the task server hands out
        rounds.setdefault(int(params["round"]), []).extend([str(unit)] * extra)
    return rounds


def extended_by_unit(rounds: dict[int, list[str]]) -> dict[str, int]:
    """Assignments each unit gained over the recorded rounds."""
    return dict(Counter(unit for units in rounds.values() for unit in units))


def unit_frame(run: Run, batch: int, rounds: dict[int, list[str]]) -> pd.DataFrame:
    """``unit_id, item_id, asked, received`` for every unit of the batch."""
    extended = extended_by_unit(rounds)
    received = {r["hit_id"]: r["n"] for r in run.store.rows(
        "SELECT hit_id, count(*) AS n FROM assignments WHERE campaign = ? AND batch = ? GROUP BY hit_id",
        [run.cfg.name, batch])}
    rows = [{"unit_id": unit, "item_id": item, "asked": run.cfg.assignments_per_image + int(extended.get(unit, 0)),
             "received": int(received.get(unit, 0))}
            for unit, items in platform_for(run.platform).posted_units(run, batch) for item in items]
    return pd.DataFrame(rows, columns=["unit_id", "item_id", "asked", "received"])


def next_round(run: Run, batch: int, bound: int, plan: Callable[[dict[int, list[str]]], list[str]],
               what: str) -> dict[str, Any]:
    """Finish the last round if cut short, else run the next, at most ``bound``; ``extended`` 0: rounds over."""
    done = f"{run.cfg.name}:b{batch}:extension-rounds:done"
    if run.store.ledger_entry(done) is not None:
        return {"extended": 0}
    rounds = recorded_rounds(run, batch)
    last = max(rounds, default=0)
    if last and run.store.ledger_entry(round_note(run, batch, last)) is None:
        return run_round(run, batch, last, rounds[last], what)
    units = plan(rounds) if last < bound else []
    if units:
        return run_round(run, batch, last + 1, units, what)
    run.store.intend(run.cfg.name, batch, DONE_NOTE, done, {"rounds": last})
    run.store.settle(done, "ok")
    return {"round": last, "extended": 0}


def run_round(run: Run, batch: int, round_no: int, units: list[str], what: str) -> dict[str, Any]:
    result = platform_for(run.platform).extend_units(run, batch, round_no, units)
    note = round_note(run, batch, round_no)
    run.store.intend(run.cfg.name, batch, ROUND_NOTE, note, {"round": round_no, "units": len(set(units))})
    run.store.settle(note, "ok")
    run.progress(f"batch {batch}: {what} round {round_no}: {len(set(units))} unit(s) got {len(units)} more "
                 f"assignment(s), {result.get('assignments', 0)} new submission(s) in")
    return {"round": round_no, **result}


def short_with_reasons(run: Run, short: pd.DataFrame, cap: int) -> pd.DataFrame:
    """``short`` (``item_id, accepted, batch``) with each one's ``reason``, from its batch's units."""
    parts = []
    for batch, group in short.groupby("batch", sort=True):
        rounds = recorded_rounds(run, int(batch))
        ran_out = len(rounds) >= run.cfg.answers.top_up_rounds
        parts.append(short_reasons(group, unit_frame(run, int(batch), rounds), cap, ran_out))
    return pd.concat(parts, ignore_index=True) if parts else short.assign(reason=pd.Series(dtype=str))
