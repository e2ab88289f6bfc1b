"""Reconcile, cancel and reopening a stored campaign; never a new HIT or study."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flows.campaigns.identity import recorded_platform
from flows.campaigns.task_pages import task_page
from flows.core.db_url import shown_location
from flows.core.ledger.store import Store, existing_store
from flows.core.outputs.output_location import staging_root
from flows.core.outputs.output_mirror import pull_missing
from flows.core.run.run_context import Run
from flows.driver.batch_steps import ORDER
from flows.platforms.operation_steps import each_call
from flows.platforms.registry import platform_for

if TYPE_CHECKING:
    from flows.core.config.config import CampaignConfig


def cancel(run: Run) -> dict[str, Any]:
    """Mark the campaign cancelled first, close what is open and review what came in; safe to run twice."""
    run.store.table("campaigns").update(run.cfg.name, {"status": "cancelled"})
    return platform_for(run.platform).cancel(run, review_undecided)


def review_undecided(run: Run, errors: list[str]) -> None:
    """QC and decide every stored assignment without a decision; apply unapplied decisions."""
    from flows.campaigns.batch_review import decide_batch
    from flows.driver.campaign import steps_for

    cfg, store = run.cfg, run.store
    qc_batch = next(fn for status, _, fn in steps_for(run) if status == "qc_done")
    undecided = store.rows("SELECT DISTINCT batch FROM assignments a WHERE campaign = ? AND batch > 0 AND NOT "
                           "EXISTS (SELECT 1 FROM decisions d WHERE d.campaign = a.campaign AND d.assignment_id = "
                           "a.assignment_id)", [cfg.name])
    for batch in sorted(r["batch"] for r in undecided):  # review by policy whatever came in
        qc_batch(run, batch)
        each_call(errors, f"decide batch {batch}", decide_batch, run, batch)
        # A batch stopped before its collection stays there: resumed on purpose, it is collected, then decided.
        if ORDER.index("collected") <= ORDER.index(store.batch_status(cfg.name, batch)) < ORDER.index("decided"):
            store.set_batch(cfg.name, batch, status="decided")
    unapplied = store.rows("SELECT DISTINCT batch FROM decisions WHERE campaign = ? AND applied = ''", [cfg.name])
    for row in unapplied:  # decided earlier, never applied (a crash, a failed call): apply now
        each_call(errors, f"apply batch {row['batch']}", decide_batch, run, row["batch"])


def cancel_stopped_campaign(db: str, campaign: str, endpoint_url: str, live: bool, out: str | None) -> str:
    """``hitflow cancel``: refused while a run holds the campaign; else cancel and export; the summary."""
    from flows.campaigns.identity import check_output_folder
    from flows.campaigns.task_kinds import kind_of
    from flows.core.errors import CampaignBusyError
    from flows.core.ledger.campaign_lock import refuse_while_running
    from flows.driver.campaign_run import export_outputs

    store = Store(db)
    out_root = out or store.recorded_config(campaign).get("out_root") or "runs"
    pull_missing(out_root, campaign)  # an output URL's folder: its manifest says which ledger made it
    check_output_folder(staging_root(out_root) / campaign, db, campaign, replace=False)  # not another ledger's
    try:
        with store.campaign_lock(campaign), open_campaign_run(db, campaign, endpoint_url, live) as run:
            result = cancel(run)
            summary = export_outputs(run, out_root, None)
            done = summary.get(kind_of(run.cfg).done_key, 0)
            words = platform_for(run.platform).WORDS
    except CampaignBusyError:
        refuse_while_running(store, campaign, "cancel")
        raise
    return (f"{campaign} cancelled: closed {words.posted(int(result.get('closed', 0)))} still taking work; the "
            f"partial dataset ({done} row(s)) and report are in {summary.get('out_url') or summary['out_dir']}; "
            f"`hitflow status {campaign} --db {shown_location(db)}` shows what is left")


@contextmanager
def open_campaign_run(db: str, campaign: str, endpoint_url: str = "", live: bool = False,
                      progress: Callable[[str], None] = print) -> Iterator[Run]:
    """A Run for a stored campaign, against the endpoint it ran on (or the one given)."""
    from flows.core.errors import ConfigError
    from flows.driver.sim_marketplace import claim_marketplace
    from flows.platforms.registry import open_session

    store, meta, info = _stored(db, campaign)
    state = "" if endpoint_url else info.get("sim_state", "")  # the embedded simulator, reopened on its file
    if state and not Path(state).is_file():
        raise ConfigError(f"campaign {campaign!r} ran on the embedded simulator kept in {state}, which is gone; "
                          "nothing is left to reconcile or cancel there")
    url = "" if state else endpoint_url or info.get("endpoint_url", "")
    kind = info["target_kind"] if info.get("target_kind") in ("sim", "prolific") else "mturk"
    if not url and not state:
        raise ConfigError(f"campaign {campaign!r} has no recorded endpoint; pass --endpoint-url")
    platform = recorded_platform(store, campaign, meta["config_json"])
    with open_session(kind, url, live, seed=None, platform=platform,
                      sim_state=Path(state) if state else None) as session:
        progress(f"target: {session.target.label}")
        run = Run(_stored_config(meta, platform), store, session.client, session.target, progress, session.wait,
                  platform=platform, page=task_page)
        claim_marketplace(run)  # an --endpoint-url given here may be another marketplace: nothing is sent there
        yield run


def ledger_run(db: str, campaign: str) -> Run:
    """A stored campaign's Run from its ledger and config alone (``client`` None), for a page that only reads."""
    from flows.campaigns.review_data import ledger_now
    from flows.core.run.run_context import Target

    store, meta, info = _stored(db, campaign)
    target = Target("sim" if info.get("target_kind") == "sim" else "endpoint", info.get("endpoint_url", ""),
                    info.get("sim_state", ""))
    platform = recorded_platform(store, campaign, meta["config_json"])
    return Run(_stored_config(meta, platform), store, None, target, lambda _: None, platform=platform,
               clock=lambda: ledger_now(Store(db), campaign), page=task_page)


def _stored(db: str, campaign: str) -> tuple[Store, dict[str, Any], dict[str, Any]]:
    """The ledger, the campaign's row and its recorded run settings; a name it lacks is refused."""
    from flows.core.errors import ConfigError

    store = existing_store(db)  # never a new file, nor another program's database migrated into one
    meta = store.rows("SELECT * FROM campaigns WHERE name = ?", [campaign])
    if not meta:
        raise ConfigError(f"no campaign {campaign!r} in {shown_location(db)}; "
                          f"`hitflow status --db {shown_location(db)}` lists them")
    return store, meta[0], json.loads(meta[0]["config_json"] or "{}")


def _stored_config(meta: dict[str, Any], platform: str) -> CampaignConfig:
    from flows.campaigns.task_kinds import load_campaign

    cfg = load_campaign(meta["config_path"], platform)  # as the route planned it (a place of whole minutes)
    if cfg.name == meta["name"]:  # campaign_run (the whole run's imports, ~0.05 s) is not needed to read it
        return cfg
    from flows.driver.campaign_run import named

    return named(cfg, meta["name"])  # a new attempt runs the config under its own name

