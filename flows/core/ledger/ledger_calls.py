"""Every platform write as intent, call and result under a deterministic key: never made twice."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from flows.core.ledger.store import SETTLED, Store

SEND_THREADS = 8  # calls wait on the network, so a few threads overlap them (bench/scale.py)


class Adopted(dict):  # type: ignore[type-arg]
    """A call's result the platform already had: settled as ``adopted`` rather than ``ok``."""


@dataclass(frozen=True)
class LedgeredCall:
    """One intended platform write: operation, idempotency key, recorded parameters and the function."""

    operation: str
    key: str
    params: dict[str, Any]
    send: Callable[[], dict[str, Any]]


def _status(result: dict[str, Any]) -> str:
    return "adopted" if isinstance(result, Adopted) else "ok"


def _recorded(entry: dict[str, Any]) -> dict[str, Any]:
    return dict(json.loads(entry["result"] or "{}"))


def ledgered(store: Store, campaign: str, batch: int, call: LedgeredCall) -> dict[str, Any]:
    """Make ``call`` once: its result, from the platform now or from the ledger of an earlier run."""
    entry = store.intend(campaign, batch, call.operation, call.key, call.params)
    if entry["status"] in SETTLED:
        return _recorded(entry)
    result = call.send()
    store.settle(call.key, _status(result), result)
    return dict(result)


def adopt(store: Store, key: str, result: dict[str, Any]) -> None:
    """Settle an intent whose call an earlier run made without recording it (found by reconcile)."""
    store.settle(key, "adopted", result)


def intend_calls(store: Store, campaign: str, batch: int, calls: Iterable[LedgeredCall]
                 ) -> tuple[dict[str, dict[str, Any]], list[tuple[LedgeredCall, str]]]:
    """Record every intent in one transaction: (results settled by key, the calls to make with their status)."""
    calls = list(calls)
    entries = store.intend_all(campaign, batch, [(c.operation, c.key, c.params) for c in calls])
    done = {c.key: _recorded(entries[c.key]) for c in calls if entries[c.key]["status"] in SETTLED}
    return done, [(c, "new" if entries[c.key].get("made_now") else str(entries[c.key]["status"]))
                  for c in calls if c.key not in done]


def send_calls(store: Store, calls: list[LedgeredCall], threads: int = SEND_THREADS,
               record: Callable[[LedgeredCall, dict[str, Any]], None] | None = None) -> dict[str, dict[str, Any]]:
    """Make intended calls on ``threads`` threads, writing the ledger from this thread only (``record``: at once)."""
    results: dict[str, dict[str, Any]] = {}

    def returned(call: LedgeredCall, result: dict[str, Any]) -> None:
        results[call.key] = result
        if record is not None:
            record(call, result)
            store.settle(call.key, _status(result), result)

    if threads <= 1 or len(calls) <= 1:
        for call in calls:
            returned(call, call.send())
    else:
        with ThreadPoolExecutor(threads) as pool:
            futures = {pool.submit(call.send): call for call in calls}
            for future in as_completed(futures):
                returned(futures[future], future.result())
    if record is None and results:
        store.settle_all([(key, _status(result), result) for key, result in results.items()])
    return {key: dict(result) for key, result in results.items()}


def ledgered_all(store: Store, campaign: str, batch: int, calls: Iterable[LedgeredCall],
                 threads: int = SEND_THREADS) -> dict[str, dict[str, Any]]:
    """``ledgered`` for many calls (one intent transaction, a thread pool); every result by key."""
    done, todo = intend_calls(store, campaign, batch, calls)
    return {**done, **send_calls(store, [c for c, _ in todo], threads)}
