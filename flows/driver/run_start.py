"""Where a run starts, on every route, its output folder checked before the ledger opens."""

from __future__ import annotations

from pathlib import Path

from flows.campaigns.identity import CANCELLED, Intent, claim_campaign, stored_campaign
from flows.core.outputs.output_mirror import check_writable, pull_missing

NOTHING_ALLOWED = Intent()  # a deployment's or a scheduled batch's run: no flag allows anything on purpose


def open_run_folder(db: str | Path, name: str, platform: str, out_root: str | Path,
                    intent: Intent = NOTHING_ALLOWED) -> None:
    """Steps 1-3 above for campaign ``name``; ``intent``: what the operator allowed on purpose."""
    check_writable(str(out_root), name)
    pull_missing(str(out_root), name)
    claim_campaign(db, name, platform, out_root, intent)


def ended_status(db: str | Path, name: str) -> str:
    """"done" or "cancelled" when campaign ``name`` has nothing left to run, else ""; makes no ledger."""
    status = str((stored_campaign(db, name) or {}).get("status", ""))
    return status if status in ("done", CANCELLED) else ""
