"""``hitflow deploy``: the campaign's flows registered as Prefect deployments."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

from flows.core.config.config import load_config
from flows.core.errors import ConfigError
from flows.core.outputs.output_location import deployable_locations
from flows.driver.deployed_runs import next_batch_deployment, pool_job_variables, whole_campaign_deployment


def deploy_schedule(config_path: str, endpoint_url: str, db_path: str, out_root: str = "runs",
                    pool: str = "hitflow-local", platform: str = "mturk", task_url: str = "",
                    target: str = "sim", live: bool = False) -> str:
    """Register the next-batch deployment on the campaign's schedule; its name."""
    cfg = load_config(config_path)
    timing: dict[str, Any] = ({"interval": cfg.schedule_interval_s} if cfg.schedule_interval_s
                              else {"cron": cfg.schedule_cron} if cfg.schedule_cron else {})
    _deploy("next_batch", cfg.name, config_path, endpoint_url, db_path, out_root,
            pool, timing, {"platform": platform, "task_url": task_url, "target": target, "live": live})
    return next_batch_deployment(cfg.name)


def deploy_campaign(config_path: str, endpoint_url: str, db_path: str, out_root: str = "runs",
                    pool: str = "hitflow-local", target: str = "sim", live: bool = False) -> str:
    """Register the whole campaign as one deployment on a work pool; its name."""
    name = load_config(config_path).name
    _deploy("whole_campaign", name, config_path, endpoint_url, db_path, out_root, pool, {},
            {"target": target, "live": live})
    return whole_campaign_deployment(name)


def _deploy(flow_name: str, name: str, config_path: str, endpoint_url: str, db_path: str, out_root: str,
            pool: str, timing: dict[str, Any], extra: dict[str, Any]) -> str:
    """A deployment of one of these flows on a process pool (made if missing), one run at a time, paths absolute."""
    if not endpoint_url and extra.get("target", "sim") == "sim":
        raise ConfigError("a deployment on the simulator needs --endpoint-url of one that outlives its runs "
                          "(start one with `hitflow sim serve`); a live route: --target prolific --live")
    from flows.driver import campaign_flow  # the flows, and Prefect with the settings it sets as it is imported

    variables = pool_job_variables(pool)  # the pool made if missing
    root = Path(__file__).resolve().parents[2]
    # from_source is sync here (no running event loop); its declared type also allows a coroutine.
    source: Any = campaign_flow.flow.from_source(source=str(root),
                                                 entrypoint=f"flows/driver/campaign_flow.py:{flow_name}")
    # Prefect's own console text is kept off the terminal; a failure still raises with Prefect's message.
    with contextlib.redirect_stdout(io.StringIO()):
        deployment_id = source.deploy(
            name=name, work_pool_name=pool, build=False, push=False, concurrency_limit=1,
            parameters={"config_path": str(Path(config_path).resolve()), "endpoint_url": endpoint_url,
                        **deployable_locations(db_path, out_root), **extra},
            print_next_steps=False, ignore_warnings=True, job_variables=variables, **timing)
    return str(deployment_id)
