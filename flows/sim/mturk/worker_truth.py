"""The simulator's ground truth about its workers."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from flows.sim.mturk.qual_requirements import comparator
from flows.sim.people import crowd

if TYPE_CHECKING:
    from flows.sim.mturk.market_records import MarketState as Marketplace


def worker_truth(market: Marketplace) -> list[dict[str, Any]]:
    """Each worker's profile, whether blocked, and ``gate``: "refused", "passed" or "" before any HIT."""
    gates = {json.dumps(r, sort_keys=True): r for r in (
        [q for q in h.fields.get("QualificationRequirements", []) if q.get("Comparator") != "DoesNotExist"]
        for h in market.hits.values())}
    checks = [[(q["QualificationTypeId"], comparator(q)) for q in reqs] for reqs in gates.values()]

    def gate(w: crowd.Worker) -> str:
        if not checks:
            return ""
        ok = any(all(test(market.qual_value(w, type_id)) for type_id, test in c) for c in checks)
        return "passed" if ok else "refused"
    return [w.public() | {"blocked": w.worker_id in market.blocks, "gate": gate(w)} for w in market.workers.values()]
