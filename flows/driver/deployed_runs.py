"""What a deployment's run says about an ended campaign, where no flag reaches it."""

from __future__ import annotations

import contextlib
import shlex
import sys
from pathlib import Path

from flows.campaigns.identity import CANCELLED, attempt_name, stored_campaign
from flows.core.db_url import shown_location
from flows.core.errors import ConfigError

# The flows' names, as campaign_flow.py registers them; each deployment is named for its campaign
WHOLE_FLOW = "hitflow-campaign"
NEXT_BATCH_FLOW = "hitflow-next-batch"
TURN_ON_AGAIN = ("serve or deploy it again to turn its schedule on (`hitflow serve-schedules` or `hitflow deploy`; "
                 "or in Prefect's UI)")


def pool_job_variables(pool: str) -> dict[str, str]:
    """The work pool ``pool`` (made if missing) with hitflow's job variables for its flow runs."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists

    with get_client(sync_client=True) as client:
        with contextlib.suppress(ObjectAlreadyExists):
            client.create_work_pool(WorkPoolCreate(name=pool, type="process"))
        if client.read_work_pool(pool).type != "process":
            return {}
    return {"command": shlex.join([sys.executable, "-m", "flows.cli.flow_run_process"])}


def next_batch_deployment(campaign: str) -> str:
    """The next-batch deployment of ``campaign`` as ``prefect deployment run`` names it."""
    return f"{NEXT_BATCH_FLOW}/{campaign}"


def whole_campaign_deployment(campaign: str) -> str:
    """The whole-campaign deployment of ``campaign`` (``hitflow deploy --whole``) as Prefect names it."""
    return f"{WHOLE_FLOW}/{campaign}"


def resume_command(deployment: str) -> str:
    return f"prefect deployment run {shlex.quote(deployment)} --param resume_cancelled=true"


def refuse_cancelled_deployed_run(db: str | Path, campaign: str, deployment: str, config_path: str) -> None:
    """A deployment's run of a cancelled campaign is refused before posting, naming what resumes it."""
    if (stored_campaign(db, campaign) or {}).get("status") != CANCELLED:
        return
    raise ConfigError(f"campaign {campaign} was cancelled (`hitflow cancel`); this run of the deployment {deployment} "
                      f"posted nothing. To post its remaining batches on purpose: `{resume_command(deployment)}`, or "
                      f"from a shell `hitflow run {shlex.quote(config_path)} --db {shlex.quote(shown_location(db))} "
                      "--endpoint-url URL --resume-cancelled`; to start afresh as a new attempt: `--param "
                      f"campaign_name={attempt_name(db, campaign)}`")


def refuse_cancelled_deployment_run(db: str | Path, campaign: str, config_path: str) -> None:
    """:func:`refuse_cancelled_deployed_run` when this is a deployment's run of the whole-campaign flow."""
    from prefect.runtime import deployment

    if deployment.id:  # None in `hitflow run`'s own flow run and outside a flow
        refuse_cancelled_deployed_run(db, campaign, f"{WHOLE_FLOW}/{deployment.name}", config_path)


def ended_line(campaign: str, ended: str) -> str:
    """Why a scheduled run of an ended campaign posts nothing, and what turns it on again."""
    if ended != CANCELLED:
        return f"{campaign} is {ended}: its schedule is paused; {TURN_ON_AGAIN}"
    return (f"{campaign} is cancelled: its schedule is paused and nothing was posted. To post its remaining batches on "
            f"purpose, one run with `{resume_command(next_batch_deployment(campaign))}` advances the next batch and "
            f"the campaign runs again; then {TURN_ON_AGAIN}")


def pause_own_deployment() -> None:
    """A scheduled run whose campaign ended pauses its own deployment (nothing to pause as a plain flow)."""
    from prefect.client.orchestration import get_client
    from prefect.runtime import deployment

    if deployment.id:
        with get_client(sync_client=True) as client:
            client.pause_deployment(deployment.id)


def deployed_line(deployment: str, pool: str, whole: bool, config: str, serve_options: list[str]) -> str:
    """What ``hitflow deploy`` registered: the name, how to run it, the ``serve-schedules`` command."""
    kind = "the whole campaign, run on demand" if whole else "one batch per run, on the config's [schedule]"
    line = (f"deployment {deployment} registered ({kind}) on the process work pool {pool}; start a worker with: "
            f"prefect worker start --pool {pool} (it runs each flow run as a process on its machine)")
    if whole:
        return f"{line}; start a run with: prefect deployment run {shlex.quote(deployment)}"
    return (f"{line}; to run the schedule from this machine without a pool or worker: `hitflow serve-schedules "
            f"{shlex.join([config, *serve_options])}`")


def serve_options(endpoint_url: str, ledger: str | Path, out: str | None, platform: str, task_url: str,
                  outside_paths: bool, target: str = "sim", live: bool = False) -> list[str]:
    """``hitflow deploy``'s options that ``hitflow serve-schedules`` takes too, as typed."""
    from flows.platforms import DEFAULT_PLATFORM

    words = ["--endpoint-url", endpoint_url] if endpoint_url else []
    words += ["--target", target] if target != "sim" else []
    words += ["--live"] if live else []
    words += ["--db", shown_location(ledger)]
    words += ["--out", str(out)] if out else []
    words += ["--platform", platform] if platform != DEFAULT_PLATFORM else []
    words += ["--task-url", task_url] if task_url else []
    return words + (["--allow-outside-paths"] if outside_paths else [])
