"""Blocking evidence kept in the ledger per (worker, batch, rule): equal to the evidence rebuilt
from the raw assignments, answers and flags (also after an early batch's flags are rewritten), the
same blocks, and the rows read per batch do not grow with the batch number."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pandas as pd

from flows.campaigns import block_evidence
from flows.campaigns.batch_review import replace_batch_flags
from flows.core.ledger.store import Store
from qc.decisions import DecisionPolicy
from qc.flags import FLAG_COLUMNS
from qc.worker_history import blocks_on_rates, worker_history

WORKERS = ["W1", "W2", "W3", "W4", "W5"]
POLICY = DecisionPolicy(block_min_rate={"min_words": 0.3, "caps_lock": 0.5, "duplicate_text": 0.4},
                        block_min_evidence=5)


def flags_of(rng: random.Random, batch: int, worker: str) -> list[dict[str, str]]:
    """Caption-, assignment- and worker-level flags, some of them repeated, at random."""
    aid, out = f"A{batch}{worker}", []
    for n in range(rng.randint(0, 4)):
        out.append({"worker_id": worker, "rule": "min_words", "value": "2", "threshold": "8", "assignment_id": aid,
                    "image_id": f"i{batch}{n % 3}", "detail": ""})
    if rng.random() < 0.4:
        out.append({"worker_id": worker, "rule": "caps_lock", "value": f"{rng.random():.2f}", "threshold": "0.5",
                    "assignment_id": "", "image_id": "", "detail": ""})
    if rng.random() < 0.3:
        out.append({"worker_id": worker, "rule": "duplicate_text", "value": str(rng.randint(1, 4)),
                    "threshold": "1", "assignment_id": "", "image_id": "", "detail": ""})
    return out


def add_batch(store: Store, rng: random.Random, batch: int) -> None:
    """One batch: every worker an assignment of 3-6 captions and some flags."""
    for worker in WORKERS:
        aid = f"A{batch}{worker}"
        store.table("assignments").insert({"assignment_id": aid, "hit_id": f"H{batch}", "campaign": "c",
                                           "batch": batch, "worker_id": worker, "status": "Submitted"})
        store.table("answers").insert_all([{"campaign": "c", "assignment_id": aid, "item_id": f"i{batch}{n}",
                                            "field": "caption",
                                            "value": "a caption"} for n in range(rng.randint(3, 6))])
        rows = flags_of(rng, batch, worker)
        if rows:
            store.table("qc_flags").insert_all([{**r, "campaign": "c", "batch": batch} for r in rows])


def rebuilt(store: Store, up_to: int) -> pd.DataFrame:
    """The whole campaign's evidence from the raw rows at once (what the kept rows must equal)."""
    assignments = pd.DataFrame(store.rows(
        "SELECT a.assignment_id, a.worker_id, a.batch, COUNT(*) AS captions FROM assignments a JOIN answers x "
        "ON x.campaign = a.campaign AND x.assignment_id = a.assignment_id WHERE a.batch <= ? "
        "GROUP BY a.campaign, a.assignment_id", [up_to]))
    flags = pd.DataFrame(store.rows(f"SELECT {', '.join(FLAG_COLUMNS)}, batch FROM qc_flags WHERE batch <= ?",
                                    [up_to]), columns=[*FLAG_COLUMNS, "batch"])
    return worker_history(assignments, flags)


def counting(store: Store) -> list[int]:
    """Count every row the store hands back (rows() and frame())."""
    read: list[int] = []
    rows, frame = store.rows, store.frame

    def rows_counted(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        out = rows(*args, **kwargs)
        read.append(len(out))
        return out

    def frame_counted(*args: Any, **kwargs: Any) -> pd.DataFrame:
        out = frame(*args, **kwargs)
        read.append(len(out))
        return out

    setattr(store, "rows", rows_counted)  # noqa: B010  (an instance attribute over the method)
    setattr(store, "frame", frame_counted)  # noqa: B010
    return read


def test_kept_history_equals_the_rebuilt_one_also_after_an_early_batch_is_rewritten(ledger_location: str) -> None:
    store, rng = Store(ledger_location), random.Random(7)  # SQLite and PostgreSQL
    for batch in range(1, 7):
        add_batch(store, rng, batch)
        pd.testing.assert_frame_equal(block_evidence.campaign_history(store, "c", batch), rebuilt(store, batch),
                                      check_dtype=False)
        assert block_evidence.blocks_due(store, "c", POLICY, batch).equals(
            blocks_on_rates(rebuilt(store, batch), POLICY))
    before = block_evidence.campaign_history(store, "c", 6)
    # late work re-ran batch 2's QC: W1 is now flagged on every caption of it
    late = pd.DataFrame([{"worker_id": "W1", "rule": "min_words", "value": "1", "threshold": "8",
                          "assignment_id": "A2W1", "image_id": f"i2{n}", "detail": ""} for n in range(6)],
                        columns=FLAG_COLUMNS)
    run = SimpleNamespace(store=store, cfg=SimpleNamespace(name="c"), progress=lambda _line: None)
    replace_batch_flags(cast(Any, run), 2, late, "late work")
    after = block_evidence.campaign_history(store, "c", 6)
    pd.testing.assert_frame_equal(after, rebuilt(store, 6), check_dtype=False)
    assert not after.equals(before)  # the rewrite reached the kept rows
    assert block_evidence.blocks_due(store, "c", POLICY, 6).equals(blocks_on_rates(rebuilt(store, 6), POLICY))
    assert not block_evidence.blocks_due(store, "c", POLICY, 6).empty  # the comparison blocks someone
    assert block_evidence.campaign_history(store, "other", 6).empty


def test_rows_read_per_batch_do_not_grow_with_the_batch_number(tmp_path: Path) -> None:
    store, rng = Store(tmp_path / "h.db"), random.Random(11)
    read = counting(store)
    per_batch: list[int] = []
    for batch in range(1, 13):
        add_batch(store, rng, batch)
        read.clear()
        block_evidence.blocks_due(store, "c", POLICY, batch)  # as decide_batch and block_batch ask
        block_evidence.blocks_due(store, "c", POLICY, batch)
        per_batch.append(sum(read))
    # each batch: its own rows once, then per-worker sums (rebuilding every earlier batch read
    # 50, 106, 152, ... 518 rows here: growing with the batch number)
    assert max(per_batch) < 2 * min(per_batch), per_batch
