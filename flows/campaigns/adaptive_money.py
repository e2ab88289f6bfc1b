"""Adaptive overlap's money: the assignments asked against what fixed overlap would have asked."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from flows.core.ledger.store import Store
from flows.platforms.unit_extensions import EXTENSION_OPS


def adaptive_saving(store: Store, name: str, info: dict[str, Any], unit: Decimal) -> dict[str, Any]:
    """Adaptive overlap: the assignments asked (posted + extensions) against fixed overlap's, and their cost."""
    fixed = int(info.get("fixed_overlap", 0))
    if not fixed:
        return {}
    units = posted_units(store, name)
    asked, full = units * int(info.get("assignments_per_image", 0)) + extra_assignments(store, name), units * fixed
    return {"asked": asked, "fixed": full, "cost": f"{unit * asked:.2f}", "fixed_cost": f"{unit * full:.2f}",
            "saving": f"{unit * (full - asked):.2f}", "share": round(asked / full, 3) if full else 0.0}


def extra_assignments(store: Store, name: str, batch: int | None = None) -> int:
    """Assignments the extensions the platform took added, of ``batch`` or of every batch."""
    where = "" if batch is None else " AND batch = ?"
    return sum(int(json.loads(r["params"] or "{}").get("NumberOfAdditionalAssignments", 1)) for r in store.rows(
        f"SELECT params FROM ledger WHERE campaign = ? AND operation IN ({','.join('?' * len(EXTENSION_OPS))}) "
        f"AND status IN ('ok', 'adopted'){where}", [name, *EXTENSION_OPS, *([] if batch is None else [batch])]))


def posted_units(store: Store, name: str) -> int:
    """Units posted: MTurk's HITs, or the task server's units of every published batch."""
    hits = int(store.table("hits").count_where("campaign = ? AND batch > 0", [name]))
    if hits:
        return hits
    return int(store.rows("SELECT count(*) AS n FROM (SELECT DISTINCT i.batch, i.hit_index FROM items i JOIN batches b "
                          "ON b.campaign = i.campaign AND b.batch = i.batch WHERE i.campaign = ? AND i.batch > 0 "
                          "AND b.status != 'planned') AS u", [name])[0]["n"])


def adaptive_line(a: dict[str, Any]) -> str:
    return (f"adaptive overlap: {a['asked']} assignments asked of fixed overlap's {a['fixed']} ({a['share']:.0%}): "
            f"${a['cost']} against ${a['fixed_cost']}, saving ${a['saving']}")


def campaign_saving(store: Store, name: str, unit: Decimal) -> dict[str, Any]:
    """``adaptive_saving`` from the campaign's recorded config (empty without adaptive overlap)."""
    rows = store.rows("SELECT config_json FROM campaigns WHERE name = ?", [name])
    return adaptive_saving(store, name, json.loads(rows[0]["config_json"] or "{}"), unit) if rows else {}
