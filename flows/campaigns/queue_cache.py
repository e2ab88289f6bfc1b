"""The review queue kept between two asks while the ledger's :func:`fingerprint` is unchanged."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flows.core.db_url import is_postgres_url
from flows.core.ledger.store import Store

if TYPE_CHECKING:  # the fingerprint alone serves `hitflow status` (flows/campaigns/kept_states.py): no pandas
    import pandas as pd

# what the queue reads, per campaign, one row a query; {total} and {concat} are the dialect's
_PARTS = (
    "SELECT count(*), max(rowid), {total}(auto_approval_time), {concat}(status, '|') FROM assignments "
    "WHERE campaign = ?",
    "SELECT count(*), max(rowid), {concat}(applied, '|') FROM decisions WHERE campaign = ?",
    "SELECT count(*), max(rowid) FROM qc_flags WHERE campaign = ?",
    "SELECT count(*), max(id) FROM review_actions WHERE campaign = ?",
    "SELECT count(*), max(rowid) FROM blocks WHERE campaign = ?",
    "SELECT count(*), max(rowid) FROM worker_history WHERE campaign = ?",
    "SELECT config_json FROM campaigns WHERE name = ?",
)
_DIALECTS = {False: {"total": "total", "concat": "group_concat"}, True: {"total": "sum", "concat": "string_agg"}}
_ANSWERS = "SELECT max(rowid) FROM answers"  # control and agreement blocks read answers (no campaign column)
# the ledger triggers' write counts (m013): a same-size rewrite reuses SQLite's rowids and moves only this
_CHANGES = "SELECT campaign, changes FROM ledger_changes WHERE campaign IN (?, '') ORDER BY campaign"
_KEEP = 32  # campaigns kept at once: one ui serves one ledger; a bound all the same

_lock = threading.Lock()
_kept: dict[tuple[str, ...], tuple[str, float, pd.DataFrame]] = {}


def fingerprint(store: Store, campaign: str) -> str:
    digest = hashlib.blake2b(digest_size=16)
    dialect = _DIALECTS[is_postgres_url(getattr(store, "location", ""))]
    for sql in _PARTS:
        digest.update(repr([tuple(r.values()) for r in store.rows(sql.format(**dialect), [campaign])]).encode())
    digest.update(repr(store.rows(_ANSWERS)).encode())
    digest.update(repr(store.rows(_CHANGES, [campaign])).encode())
    return digest.hexdigest()


def kept_queue(store: Store, campaign: str, settings: tuple[Any, ...], now: float,
               build: Callable[[], pd.DataFrame], seen: str | None = None) -> pd.DataFrame:
    """``build()``'s queue at ``now``, or a copy of the one kept while the ledger's :func:`fingerprint` holds."""
    key = (store.shown(), str(getattr(store, "location", "")), campaign, repr(settings))
    seen = fingerprint(store, campaign) if seen is None else seen
    with _lock:
        kept = _kept.get(key)
    if kept is not None and kept[0] == seen:
        queue = kept[2].copy()
        queue["seconds_left"] = queue["seconds_left"].astype(float) - (now - kept[1])
        return queue
    queue = build()
    with _lock:
        if len(_kept) >= _KEEP:
            _kept.pop(next(iter(_kept)))
        _kept[key] = (seen, now, queue.copy())
    return queue
