"""Whether a HIT MTurk names under a campaign's token is this ledger's own."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from flows.core.errors import PlatformError
from flows.core.run.run_context import Run
from flows.platforms.mturk import adapter as mturk


def planned(run: Run) -> dict[str, Any]:
    """The campaign's row in this ledger: when it was planned (wall clock and the platform's)."""
    rows = run.store.rows("SELECT created_at, config_json FROM campaigns WHERE name = ?", [run.cfg.name])
    if not rows:
        return {}
    info = json.loads(rows[0]["config_json"] or "{}")
    return {"created_at": rows[0]["created_at"], "platform_created_at": info.get("platform_created_at")}


def _seconds(value: Any) -> float:
    return value.timestamp() if isinstance(value, datetime) else float(value)


def is_ours(since: dict[str, Any], hit: dict[str, Any]) -> bool:
    """Whether ``hit`` (a HIT's view from the platform) may be one this ledger posted (``since``: :func:`planned`)."""
    if hit.get("HITStatus") == "Disposed":
        return False  # deleted: no run of ours waits on a HIT it deleted (cancel records what it closes)
    at = since.get("platform_created_at")
    # a listed CreationTime may come back in whole seconds: the planning second's HITs are ours too
    return at is None or hit.get("CreationTime") is None or _seconds(hit["CreationTime"]) >= float(at) - 1.0


def own_token(since: dict[str, Any], token: str) -> str:
    """``token`` made unique to this ledger's campaign (at most 64 characters, as MTurk allows)."""
    return "hf-" + hashlib.sha256(f"{token}|{since.get('created_at')!r}".encode()).hexdigest()[:40]


def post_hit(client: Any, since: dict[str, Any], type_id: str, params: dict[str, Any], token: str) -> tuple[str, bool]:
    """Post one HIT under ``token``, adopting one only if :func:`is_ours`, else :func:`own_token`; (id, adopted)."""
    hit_id, was_dup = mturk.create_hit(client, type_id, params, token)
    if not was_dup or _ours_by_id(client, since, hit_id):
        return hit_id, was_dup
    return mturk.create_hit(client, type_id, params, own_token(since, token))


def _ours_by_id(client: Any, since: dict[str, Any], hit_id: str) -> bool:
    try:
        return is_ours(since, mturk.get_hit(client, hit_id))
    except PlatformError:  # the platform no longer shows it: deleted
        return False
