"""What every platform's decision senders share: one ledgered call per decision."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flows.core.decisions import Decision
from flows.core.ledger.ledger_calls import LedgeredCall, ledgered
from flows.core.run.run_context import Run

Sender = Callable[[Run, Decision], tuple[str, str]]


def strike(run: Run, d: Decision) -> tuple[str, str]:
    return "", "struck from the dataset"  # the dataset's own verdict: nothing goes to the platform


def sent(run: Run, d: Decision, operation: str, key: str, params: dict[str, Any],
          send: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The decision's platform call, made once under ``key`` (the automatic step's key)."""
    return ledgered(run.store, run.cfg.name, d.batch, LedgeredCall(operation, key, params, send))


def new_block_key(run: Run, d: Decision) -> str:
    key = f"{run.cfg.name}:block:{d.worker_id}"
    return f"{key}:{d.idem_key}" if run.store.ledger_entry(key) else key  # blocked, unblocked since: a new block


def blocked_mode(run: Run, d: Decision) -> str:
    blocked = run.store.rows("SELECT mode FROM blocks WHERE campaign = ? AND worker_id = ?",
                             [run.cfg.name, d.worker_id])
    return str(blocked[0]["mode"]) if blocked else ""
