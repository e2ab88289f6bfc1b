"""The random review sample is seeded on every task kind: the work it draws from is read in one fixed order,
never in the order the collecting threads stored it (an own-page campaign run twice with seed 1 on fresh
ledgers gave the same dataset and another sample)."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from flows.campaigns.batch_review import batch_assignments
from flows.core.ledger.store import Store
from qc.worker_rules import random_sample


def ledger_stored_in(order: list[int], path: Path) -> Store:
    store = Store(path)
    store.table("hits").insert_all([{"hit_id": f"H{k}", "campaign": "c", "batch": 1, "hit_index": k, "token": ""}
                                    for k in (3, 0, 2, 1)])
    work = [{"assignment_id": f"A{k:02d}", "hit_id": f"H{k % 4}", "campaign": "c", "batch": 1,
             "worker_id": f"W{(7 * k) % 5}", "status": "Submitted"} for k in range(20)]
    store.table("assignments").insert_all([work[k] for k in order])
    store.table("assignments").insert_all([{"assignment_id": "Z", "hit_id": "H0", "campaign": "c", "batch": 1,
                                            "worker_id": "W9", "status": "NOT ON PROLIFIC"}])
    return store


def test_the_batch_is_read_in_one_order_whatever_order_it_was_stored_in(tmp_path: Path) -> None:
    orders = [list(range(20)), list(reversed(range(20))), random.Random(4).sample(range(20), 20)]
    read = []
    for n, order in enumerate(orders):
        run = SimpleNamespace(store=ledger_stored_in(order, tmp_path / f"{n}.db"), cfg=SimpleNamespace(name="c"))
        read.append([a["assignment_id"] for a in batch_assignments(run, 1)])  # type: ignore[arg-type]
        assert "Z" in [a["assignment_id"] for a in batch_assignments(run, 1, posted_only=False)]  # type: ignore[arg-type]
    assert read[0] == read[1] == read[2] and "Z" not in read[0]
    places = {f"A{k:02d}": (k % 4, f"W{(7 * k) % 5}", f"A{k:02d}") for k in range(20)}
    assert read[0] == sorted(read[0], key=places.__getitem__)  # the page's place, the worker, the id
    samples = [random_sample(pd.DataFrame({"assignment_id": ids, "worker_id": "w"}), {"seed": 6,
                                                                                      "random_sample_share": 0.2})
               for ids in read]
    assert samples[0]["assignment_id"].tolist() == samples[2]["assignment_id"].tolist()
