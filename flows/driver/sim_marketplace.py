"""Which marketplace file the in-process simulator keeps a run's HITs in."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flows.core.config.config import CampaignConfig
from flows.core.db_url import is_postgres_url
from flows.core.errors import ConfigError, OtherMarketplaceError
from flows.core.ledger.store import Store
from flows.core.run.run_context import Run
from flows.driver.schedule_wait import SCHEDULED_RUN
from flows.platforms.marketplace_identity import marketplace_of, public_url
from flows.platforms.targets import give_sim_known_answers


def marketplace_file(store: Store, cfg: CampaignConfig, target: str, endpoint_url: str, sim_state: str | Path,
                     default: Path) -> Path:
    """The in-process simulator's file: ``sim_state``, else the embedded one the ledger recorded, else ``default``."""
    state = Path(sim_state) if sim_state else default
    if not (sim_state or endpoint_url or cfg.endpoint_url) and target == "sim":
        state = embedded_state(store, cfg.name, state)
    return state


def embedded_state(store: Store, campaign: str, default: Path) -> Path:
    """The embedded simulator's file a resumed campaign ran on; one that posted elsewhere is refused."""
    info = store.recorded_config(campaign)
    recorded, endpoint = info.get("sim_state", ""), info.get("endpoint_url", "")
    if recorded and (Path(recorded) == default.resolve() or Path(recorded).is_file()):
        return Path(recorded)
    if not (recorded or endpoint) or not store.table("ledger").count_where("campaign = ?", [campaign]):
        return default  # a campaign that never posted, or a ledger from before these were recorded
    if not recorded:  # a served simulator or an endpoint (the embedded one, on a port of its own, records its file)
        live = " --target mturk --live" if info.get("target_kind") == "mturk" else ""
        raise ConfigError(f"campaign {campaign} ran on {endpoint}, not on the embedded simulator: pass "
                          f"--endpoint-url {endpoint}{live} to resume it there")
    if default.is_file() and not is_postgres_url(store.location):
        return default  # a ledger file moved with its folder, sim/ beside it
    raise ConfigError(f"campaign {campaign} ran on the embedded simulator kept in {recorded}, which is not here: "
                      f"run from the folder that holds it, pass --sim-state {recorded}, or share one "
                      "`hitflow sim serve` through --endpoint-url (docs/postgres.md)")


def claim_marketplace(run: Run) -> None:
    """Check the campaign's marketplace against the one reached, before anything is posted."""
    here = run.notes["marketplace"] = marketplace_of(run.target)
    rows = run.store.rows("SELECT marketplace, config_json FROM campaigns WHERE name = ?", [run.cfg.name])
    kept = (rows[0]["marketplace"] or "") if rows else ""
    if not rows or (not here and " key:" not in kept):  # a simulator from before that names none
        return
    if kept == here:
        follow_endpoint(run, rows[0]["config_json"])
        return
    posted = run.store.table("ledger").count_where("campaign = ? AND operation != ?", [run.cfg.name, SCHEDULED_RUN])
    if kept and posted and not (here.startswith(f"{kept} key:") and " key:" not in kept):
        raise OtherMarketplaceError(elsewhere(run, kept, json.loads(rows[0]["config_json"] or "{}")))
    run.store.table("campaigns").update(run.cfg.name, {"marketplace": here})


@contextmanager
def new_state_file_kept_if_claimed(state: Path) -> Iterator[None]:
    """The simulator file this run creates is removed when the campaign is refused the marketplace."""
    # SQLite's side files, and the lock flows/sim/service/state_lock.py takes beside the file
    files = [state, *(state.with_name(state.name + end) for end in ("-wal", "-shm", "-journal", ".lock"))]
    fresh = [path for path in files if not path.exists()] if not state.exists() else []
    try:
        yield
    except OtherMarketplaceError:
        for path in fresh:
            path.unlink(missing_ok=True)
        raise


def follow_endpoint(run: Run, config_json: str | None) -> None:
    """The campaign's simulator at another URL now: the ledger keeps the URL."""
    info = json.loads(config_json or "{}")
    if run.target.kind != "sim" or run.target.state or info.get("sim_state") or info.get("target_kind") != "sim" \
            or info.get("endpoint_url") in (None, run.target.endpoint_url):
        return
    followed = {**info, "endpoint_url": run.target.endpoint_url}
    run.store.table("campaigns").update(run.cfg.name, {"config_json": json.dumps(followed)})


def elsewhere(run: Run, kept: str, info: dict[str, object]) -> str:
    """The one-line refusal of a campaign resumed on another marketplace."""
    from flows.driver.campaign_status import route_options

    endpoint, platform = public_url(str(info.get("endpoint_url") or "")), str(info.get("platform") or run.platform)
    if info.get("sim_state"):
        options = f"{route_options({}, platform)} --sim-state {shlex.quote(str(info['sim_state']))}".strip()
        where, advice = f"the embedded simulator kept in {info['sim_state']}", f"pass {options} to reach it"
        if run.target.state and Path(run.target.state).resolve() == Path(str(info["sim_state"])).resolve():
            advice = "that file was replaced: put its own back, or start the campaign afresh with --new-attempt"
    else:
        where = f"the simulator served at {endpoint}" if info.get("target_kind") == "sim" else endpoint
        options = route_options({**info, "endpoint_url": endpoint}, platform)
        advice = f"pass {options} to reach it" + (
            " (or the URL that simulator is served at now)" if info.get("target_kind") == "sim" else "")
    here = run.target.state or public_url(run.target.endpoint_url)
    return (f"campaign {run.cfg.name} lives on {where} ({kept}), not on {here} ({run.notes['marketplace']}), "
            f"which knows none of its HITs or studies: {advice}")


def hand_known_answers(run: Run) -> None:
    """A custom campaign on the simulator hands it the requester's known answers before posting."""
    if run.cfg.task != "custom" or run.cfg.study is not None or run.target.kind != "sim":
        return
    from flows.core.pages.templates import page_items
    from flows.custom.custom_task import custom_spec, field_specs, first_page_rows, read_custom_items
    from flows.custom.truth_source import blank_fields, known_answers

    specs = field_specs(custom_spec(run.cfg, page_items(first_page_rows(run.cfg))))
    known = known_answers(run.cfg, read_custom_items(run.cfg), blank_fields(specs), specs)
    rows = [{k: r[k] for k in ("item_id", "field", "answer")} for r in known]
    run.notes["known_answers"] = rows
    if rows:
        give_sim_known_answers(run.target, rows, run.cfg.name)
