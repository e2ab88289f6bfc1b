"""Adaptive overlap where the task server hands out units: ``ExtendUnit`` rows."""

from __future__ import annotations

import json
from collections import Counter
from functools import partial
from typing import Any

from flows.core.ledger.ledger_calls import LedgeredCall
from flows.core.ledger.store import Store
from flows.core.run.run_context import Run
from flows.platforms.units import hit_groups

EXTEND_UNIT_OP = "ExtendUnit"
ROUND_NOTE = "ExtensionRoundCollected"  # written once a round's work is collected (flows/campaigns/extension_rounds.py)
# Every ledger operation that gives a posted unit more judgements (MTurk's call, the task server's units)
EXTENSION_OPS = ("CreateAdditionalAssignmentsForHIT", EXTEND_UNIT_OP)


def served_units(run: Run, batch: int, prefix: str) -> list[tuple[str, list[str]]]:
    """(unit id, item ids) of every unit of the batch, the unit id as the task server stores it."""
    return [(f"{prefix}:u{index}", [str(r["item_id"]) for r in rows]) for index, rows in hit_groups(run, batch)]


def unit_index(unit_id: str) -> int:
    """The items' unit index of a served unit id (``...:u7`` -> 7)."""
    return int(unit_id.rsplit(":u", 1)[1])


def extension_key(name: str, batch: int, round_no: int, unit_id: str) -> str:
    return f"{name}:b{batch}:extend:r{round_no}:{unit_id}"


def unit_calls(run: Run, batch: int, round_no: int, unit_ids: list[str]) -> list[LedgeredCall]:
    """One ``ExtendUnit`` row per unit of the round, settled once the round's platform call is made."""
    return [LedgeredCall(EXTEND_UNIT_OP, extension_key(run.cfg.name, batch, round_no, unit),
                         {"unit": unit, "index": unit_index(unit), "NumberOfAdditionalAssignments": extra,
                          "round": round_no}, partial(recorded, unit, extra))
            for unit, extra in sorted(Counter(unit_ids).items())]


def recorded(unit: str, extra: int) -> dict[str, Any]:
    return {"unit": unit, "added": extra}


def extra_by_index(store: Store, campaign: str, batch: int) -> dict[int, int]:
    """More judgements asked of each unit of the batch (by unit index), intents included."""
    extra: dict[int, int] = {}
    for row in store.rows("SELECT params FROM ledger WHERE campaign = ? AND batch = ? AND operation = ?",
                          [campaign, batch, EXTEND_UNIT_OP]):
        params: dict[str, Any] = json.loads(row["params"] or "{}")
        index = int(params["index"])
        extra[index] = extra.get(index, 0) + int(params.get("NumberOfAdditionalAssignments", 1))
    return extra


def round_places(run: Run, batch: int) -> int:
    """Responses the batch's units are asked for now: ``min_judgements`` each plus every extension."""
    units = len(served_units(run, batch, "u"))
    return units * run.cfg.assignments_per_image + sum(extra_by_index(run.store, run.cfg.name, batch).values())


def responses(run: Run, batch: int) -> int:
    return int(run.store.table("assignments").count_where("campaign = ? AND batch = ?", [run.cfg.name, batch]))


def extending_batches(store: Store, campaign: str) -> list[int]:
    """Batches whose last round of ``ExtendUnit`` rows is not collected yet."""
    last: dict[tuple[int, str], int] = {}
    for row in store.rows("SELECT batch, operation, params FROM ledger WHERE campaign = ? AND operation IN (?, ?)",
                          [campaign, EXTEND_UNIT_OP, ROUND_NOTE]):
        key = (int(row["batch"]), str(row["operation"]))
        last[key] = max(last.get(key, 0), int(json.loads(row["params"] or "{}")["round"]))
    return sorted(b for (b, op), n in last.items() if op == EXTEND_UNIT_OP and n > last.get((b, ROUND_NOTE), 0))
