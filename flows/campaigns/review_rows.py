"""The ledger's rows that say what needs a person, read without pandas."""

from __future__ import annotations

import json
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flows.core.errors import HitflowError
from flows.core.inputs.text_files import read_text
from flows.core.ledger.store import Store

if TYPE_CHECKING:
    from flows.core.config.config import CampaignConfig

PAUSE_OPERATION = "pause_flow_run"  # the ledger's note of a Prefect flow run paused for review
WORK_COLUMNS = ["assignment_id", "batch", "auto_approval_time", "applied"]


def ledger_now(store: Store, campaign: str) -> float:
    """The platform's clock: real time live, a served simulator's clock, else the ledger's latest time."""
    info = store.recorded_config(campaign)
    if info.get("target_kind") != "sim":
        return time.time()
    if info.get("endpoint_url") and not info.get("sim_state"):
        from flows.platforms.sim_probe import served_sim_now

        if (served := served_sim_now(info["endpoint_url"])) is not None:
            return served
    seen = store.rows("SELECT max(accept_time) AS a, max(submit_time) AS s FROM assignments WHERE campaign = ?",
                      [campaign])[0]
    opened = store.rows("SELECT max(opened_at) AS t FROM batches WHERE campaign = ?", [campaign])[0]["t"]
    created = info.get("platform_created_at")
    return max([float(t) for t in (seen["a"], seen["s"], opened, created) if t] or [time.time()])


def review_settings(store: Store, campaign: str) -> tuple[CampaignConfig | None, str]:
    """The campaign's config as it is now and its review mode; (None, "none") when it moved or fails."""
    meta = store.rows("SELECT config_path FROM campaigns WHERE name = ?", [campaign])
    if not meta or not meta[0]["config_path"] or _review_left_none(Path(meta[0]["config_path"])):
        return None, "none"
    from flows.core.config.config import load_config

    try:
        cfg = load_config(meta[0]["config_path"])
    except HitflowError:
        return None, "none"
    return cfg, cfg.review


def _review_left_none(path: Path) -> bool:
    """The file's ``[policy] review`` is absent or "none"; any doubt: False (load_config decides)."""
    try:  # read as load_config reads it (bounded: a FIFO or /dev/zero never fills memory)
        doc = tomllib.loads(read_text(path, "the config file"))
    except (HitflowError, tomllib.TOMLDecodeError, RecursionError):
        return False
    policy = doc.get("policy", {})
    return isinstance(policy, dict) and policy.get("review", "none") == "none"


def applied_rows(store: Store, campaign: str) -> list[dict[str, Any]]:
    """Every stored assignment with what the platform was told of its decision ("" while nothing)."""
    return store.rows("SELECT a.assignment_id, a.batch, a.auto_approval_time, coalesce(d.applied, '') AS applied "
                      "FROM assignments a LEFT JOIN decisions d ON d.campaign = a.campaign AND d.assignment_id = "
                      "a.assignment_id "
                      "WHERE a.campaign = ? AND a.batch > 0", [campaign])


def held_rows(store: Store, campaign: str) -> list[dict[str, Any]]:
    """The batches held for a person (flows/campaigns/batch_hold.py): ``batch, why``."""
    return store.rows("SELECT batch, hold AS why FROM batches WHERE campaign = ? AND batch > 0 AND "
                      "coalesce(hold, '') != '' AND coalesce(hold_release, '') = ''", [campaign])


def paused_runs(store: Store, campaign: str) -> list[dict[str, Any]]:
    """The campaign's flow runs paused for review (flows/review/review_pause.py), oldest first."""
    rows = store.rows("SELECT idem_key, batch, result FROM ledger WHERE campaign = ? AND operation = ? "
                      "AND status = 'paused' ORDER BY id", [campaign, PAUSE_OPERATION])
    return [{"key": r["idem_key"], "batch": int(r["batch"]), **json.loads(r["result"] or "{}")} for r in rows]
