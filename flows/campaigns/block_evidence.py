"""Who is due a block, read from the ledger: one implementation for the block step, the review
queue and the outputs, so the review page proposes exactly the blocks the run would make."""

from __future__ import annotations

import pandas as pd

from flows.core.ledger.store import Store
from qc.decisions import DecisionPolicy, workers_to_block
from qc.flags import FLAG_COLUMNS
from qc.worker_history import blocks_on_rates, worker_history


def batch_flags(store: Store, campaign: str, batch: int) -> pd.DataFrame:
    rows = store.rows("SELECT worker_id, rule, value, threshold, assignment_id, image_id, detail "
                      "FROM qc_flags WHERE campaign = ? AND batch = ?", [campaign, batch])
    return pd.DataFrame(rows, columns=FLAG_COLUMNS)


def campaign_history(store: Store, campaign: str, up_to_batch: int) -> pd.DataFrame:
    """Every worker's captions and flags by rule, per batch, over the campaign up to a batch.

    Built batch by batch: a worker's history is per (worker, batch, rule), so only one batch's
    assignments are in memory at a time (all of them at once took ~330,000 rows at COCO's size)."""
    batches = [r["batch"] for r in store.rows("SELECT DISTINCT batch FROM assignments WHERE campaign = ? "
                                              "AND batch > 0 AND batch <= ? ORDER BY batch", [campaign, up_to_batch])]
    parts = [_batch_history(store, campaign, batch) for batch in batches]
    if not parts:
        return _batch_history(store, campaign, -1)  # the empty table, with its columns
    return pd.concat(parts, ignore_index=True).sort_values(["worker_id", "batch", "rule"], ignore_index=True)


def _batch_history(store: Store, campaign: str, batch: int) -> pd.DataFrame:
    assignments = store.frame(
        "SELECT a.assignment_id, a.worker_id, a.batch, COUNT(*) AS captions FROM assignments a "
        "JOIN answers x ON x.assignment_id = a.assignment_id WHERE a.campaign = ? AND a.batch = ? "
        "AND x.item_id != '' AND x.field = 'caption' GROUP BY a.assignment_id",
        [campaign, batch], ["assignment_id", "worker_id", "batch", "captions"])
    flags = pd.DataFrame(store.rows(
        "SELECT worker_id, rule, value, threshold, assignment_id, image_id, detail, batch FROM qc_flags "
        "WHERE campaign = ? AND batch = ?", [campaign, batch]), columns=[*FLAG_COLUMNS, "batch"])
    return worker_history(assignments, flags)


def blocks_due(store: Store, campaign: str, policy: DecisionPolicy, batch: int) -> pd.DataFrame:
    """Workers to block after a batch: on rates over the campaign so far, or (older configs)
    on one batch's flag counts; workers blocked earlier are left out. Columns: worker_id, rules, ..."""
    if policy.block_min_rate:
        due = blocks_on_rates(campaign_history(store, campaign, batch), policy)
    else:
        due = workers_to_block(batch_flags(store, campaign, batch), policy)
    earlier = {r["worker_id"] for r in store.rows("SELECT worker_id FROM blocks WHERE campaign = ? AND batch < ?",
                                                  [campaign, batch])}
    return due[~due["worker_id"].isin(earlier)].reset_index(drop=True)
