"""Where a run starts, on every route: ``hitflow run`` (with or without Prefect), a deployment's run
on a work pool, a scheduled batch (``serve-schedules``, ``hitflow deploy``). The one place that
checks the run's output folder before its ledger is opened, so each of them does it once:

1. an output URL is written to and removed from (a probe): a bucket that does not exist, an endpoint
   that does not answer or credentials that may not write are one line (exit 2), before a ledger exists;
2. what the URL holds for the campaign and this host lacks is fetched (another host's manifest,
   logs, ``invites.csv``), so the check below reads the manifest whichever host wrote it;
3. the campaign's identity (flows/campaigns/identity.py): not another platform's or a cancelled
   campaign, not a folder another ledger made; then the folder is claimed (its manifest written).

The run then copies its folder to the URL before anything is posted (flows/driver/campaign.py).
"""

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
    """"done" or "cancelled" when campaign ``name`` has nothing left to run, else "" (a scheduled
    batch's run then stops at once); no ledger is made to find out."""
    status = str((stored_campaign(db, name) or {}).get("status", ""))
    return status if status in ("done", CANCELLED) else ""
