"""Adaptive overlap on a custom page ([answers] min_judgements, max_judgements, confidence).

Each unit (a HIT) is posted with ``min_judgements`` assignments. After the batch's collection, each
round aggregates every judgement received so far (the campaign's earlier batches too, so a worker's
skill comes from what they already did; rejected work and blocked workers left out), and the units
with an item whose answer's confidence is below ``confidence`` get one more assignment, up to
``max_judgements`` (postprocess.adaptive.units_to_extend). The platform extends and collects
(``Platform.extend_units``); then QC and decisions see the whole batch as usual.

A round is resumable: its extensions are in the ledger (written before any call), so a run killed
mid-round finishes that round with the same units; a note marks the round collected, after which
the next round is planned from the data. The number of rounds is bounded by max - min.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from flows.core.run.run_context import Run
from flows.custom.custom_outputs import choice_fields, control_items, dataset_frame
from flows.platforms.registry import platform_for
from postprocess.adaptive import units_to_extend
from postprocess.answers import aggregate

EXTEND_OP = "CreateAdditionalAssignmentsForHIT"
ROUND_NOTE = "AdaptiveRoundCollected"


def _round_note(run: Run, batch: int, round_no: int) -> str:
    return f"{run.cfg.name}:b{batch}:adaptive-r{round_no}:collected"


def recorded_rounds(run: Run, batch: int) -> dict[int, list[str]]:
    """The units each recorded round extends (from the ledger's intents), by round."""
    rounds: dict[int, list[str]] = {}
    for row in run.store.rows("SELECT params FROM ledger WHERE campaign = ? AND batch = ? AND operation = ? "
                              "ORDER BY id", [run.cfg.name, batch, EXTEND_OP]):
        params = json.loads(row["params"] or "{}")
        rounds.setdefault(int(params["round"]), []).append(str(params["HITId"]))
    return rounds


def received_judgements(run: Run) -> pd.DataFrame:
    """Every choice received so far (``item_id, worker_id, field, label``): not rejected, not by a blocked worker."""
    data = dataset_frame(run)
    blocked = {r["worker_id"] for r in run.store.rows("SELECT worker_id FROM blocks WHERE campaign = ?",
                                                       [run.cfg.name])}
    keep = (data["decision"] != "reject") & data["field"].isin(choice_fields(run)) \
        & (data["value"].astype(str) != "") & ~data["worker_id"].isin(blocked)
    return data[keep].rename(columns={"value": "label"})[["item_id", "worker_id", "field", "label"]]


def unit_frame(run: Run, batch: int, rounds: dict[int, list[str]]) -> pd.DataFrame:
    """``unit_id, item_id, asked, received`` for every unit of the batch."""
    extended = pd.Series([h for hits in rounds.values() for h in hits], dtype=str).value_counts()
    received = {r["hit_id"]: r["n"] for r in run.store.rows(
        "SELECT hit_id, count(*) AS n FROM assignments WHERE campaign = ? AND batch = ? GROUP BY hit_id",
        [run.cfg.name, batch])}
    rows = [{"unit_id": h["hit_id"], "item_id": item,
             "asked": run.cfg.assignments_per_image + int(extended.get(h["hit_id"], 0)),
             "received": int(received.get(h["hit_id"], 0))}
            for h in run.store.rows("SELECT hit_id, item_ids FROM hits WHERE campaign = ? AND batch = ? "
                                    "ORDER BY hit_index, rowid", [run.cfg.name, batch])
            for item in json.loads(h["item_ids"] or "[]")]
    return pd.DataFrame(rows, columns=["unit_id", "item_id", "asked", "received"])


def plan_round(run: Run, batch: int, rounds: dict[int, list[str]]) -> list[str]:
    """The units the next round extends, from the judgements received so far."""
    settings = run.cfg.answers
    judgements = received_judgements(run)
    if judgements.empty:
        return []
    answers = aggregate(judgements, settings.method, settings.min_per_worker, controls=control_items(run)).answers
    return units_to_extend(answers, unit_frame(run, batch, rounds), settings.confidence, settings.max_judgements)


def adaptive_round(run: Run, batch: int) -> dict[str, Any]:
    """One round: finish the last recorded round if its collection was cut short, else plan and run
    the next. ``extended`` 0 means the batch's rounds are over."""
    rounds = recorded_rounds(run, batch)
    last = max(rounds, default=0)
    if last and run.store.ledger_entry(_round_note(run, batch, last)) is None:
        return _run_round(run, batch, last, rounds[last])
    bound = run.cfg.answers.max_judgements - run.cfg.answers.min_judgements
    units = plan_round(run, batch, rounds) if last < bound else []
    if not units:
        return {"round": last, "extended": 0}
    return _run_round(run, batch, last + 1, units)


def _run_round(run: Run, batch: int, round_no: int, units: list[str]) -> dict[str, Any]:
    result = platform_for(run.platform).extend_units(run, batch, round_no, units)
    note = _round_note(run, batch, round_no)
    run.store.intend(run.cfg.name, batch, ROUND_NOTE, note, {"round": round_no, "units": len(units)})
    run.store.settle(note, "ok")
    run.progress(f"batch {batch}: adaptive round {round_no}: {len(units)} unit(s) got one more judgement, "
                 f"{result.get('assignments', 0)} new assignment(s) in")
    return {"round": round_no, **result}
