"""Whole reads of the ledger the review cards read a page at a time: what the cards are checked against."""

from __future__ import annotations

from typing import Any

from flows.campaigns.review_data import CAPTIONS
from flows.core.ledger.store import Store


def worker_captions(store: Store, campaign: str, batch: int, worker_id: str) -> list[dict[str, Any]]:
    """Every caption the worker wrote in the batch, beside its image, with any strike."""
    return store.rows(f"{CAPTIONS} WHERE a.campaign = ? AND a.batch = ? AND a.worker_id = ? ORDER BY a.rowid, "
                      "x.item_id", [campaign, batch, worker_id])


def item_flags(store: Store, campaign: str, batch: int, worker_id: str) -> list[dict[str, Any]]:
    """Every flag of the worker in the batch, by rule."""
    return store.rows("SELECT rule, value, threshold, assignment_id, image_id, detail FROM qc_flags "
                      "WHERE campaign = ? AND batch = ? AND worker_id = ? ORDER BY rule, rowid",
                      [campaign, batch, worker_id])
