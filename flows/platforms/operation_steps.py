"""What every platform's cancel shares."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from flows.core.errors import PlatformError
from flows.core.ledger.store import Store
from flows.core.run.run_context import Run
from flows.platforms.units import units_planned

UNDECIDED = ("SELECT count(*) AS n FROM assignments a WHERE campaign = ? AND NOT EXISTS (SELECT 1 FROM decisions d "
             "WHERE d.campaign = a.campaign AND d.assignment_id = a.assignment_id)")  # what a cancel would review
CLOSED_BY_CANCEL = "closed-by-cancel"  # the ledger key's mark of a unit `hitflow cancel` closed


def cancel_key(campaign: str, batch: int, unit_index: int) -> str:
    """The ledger key under which ``hitflow cancel`` closes one open unit (a HIT), intent first."""
    return f"{campaign}:{CLOSED_BY_CANCEL}:b{batch}:h{unit_index}"


def closed_by_cancel(store: Store, campaign: str, batch: int | None = None) -> list[dict[str, Any]]:
    """The ledger entries of the units a cancel closed (or set out to), of one batch or all."""
    prefix = f"{campaign}:{CLOSED_BY_CANCEL}:" + ("" if batch is None else f"b{batch}:")
    return store.rows("SELECT * FROM ledger WHERE idem_key >= ? AND idem_key < ? ORDER BY id",
                      [prefix, prefix[:-1] + ";"])  # ';' sorts right after ':'


def each_call(errors: list[str], what: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``; a platform error is noted in ``errors`` (unless ``what`` is empty) and counts as 0."""
    try:
        return fn(*args)
    except PlatformError as exc:
        if what:
            errors.append(f"{what}: {exc}")
        return 0


def finish_cancel(run: Run, errors: list[str], line: str) -> None:
    """The campaign is cancelled; a failed call is reported after everything else was tried."""
    run.store.table("campaigns").update(run.cfg.name, {"status": "cancelled"})
    run.progress(line)
    if errors:
        raise PlatformError(f"cancel did what it could but {len(errors)} call(s) failed (first: {errors[0]}); "
                            "run `hitflow cancel` again, it is safe to repeat")


def short_by_cancel(store: Store, campaign: str, per_unit: int) -> dict[int, tuple[int, int]]:
    """What a resumed run will post again per batch: (HITs a cancel closed short, the assignments they lack)."""
    closed: dict[int, set[str]] = {}
    for entry in closed_by_cancel(store, campaign):
        closed.setdefault(int(entry["batch"]), set()).add(json.loads(entry["params"]).get("HITId", ""))
    out: dict[int, tuple[int, int]] = {}
    for batch, hit_ids in sorted(closed.items()):
        if batch < 1 or store.batch_status(campaign, batch) not in ("planned", "published"):
            continue  # the gating test's HITs (batch 0) are not posted again; a batch collected since has its shortfall
        hits = store.rows("SELECT h.hit_id, h.hit_index, h.item_ids, (SELECT count(*) FROM assignments a WHERE "
                          "a.campaign = h.campaign AND a.hit_id = h.hit_id) AS got FROM hits h WHERE campaign = ? "
                          "AND batch = ?", [campaign, batch])
        got: dict[str, int] = {}
        for h in hits:
            got[h["item_ids"]] = got.get(h["item_ids"], 0) + int(h["got"])
        units, indexes = units_planned(store, campaign, batch), {h["hit_index"] for h in hits}
        lacking = [per_unit - got[h["item_ids"]] for h in hits if h["hit_id"] in hit_ids
                   and h["hit_index"] + units not in indexes and got[h["item_ids"]] < per_unit]
        if lacking:
            out[batch] = (len(lacking), sum(lacking))
    return out
