"""``hitflow deploy``: the campaign's deployment registered, and what it is called and how to serve it said in
hitflow's words (flows/driver/deployments.py, flows/driver/deployed_runs.py)."""

from __future__ import annotations

import argparse
from urllib.parse import urlsplit

from flows.cli.output_option import chosen_out, configured_out
from flows.core.errors import ConfigError


def refuse_url_credentials(a: argparse.Namespace) -> None:
    """``--task-url`` and ``--endpoint-url`` with a user, a password, a query or a fragment refused, as a
    password in ``--db`` or ``--out`` is: a deployment's and a flow run's parameters are stored and shown by
    Prefect, and the commands print both URLs. Not echoed: the refused text may be the secret."""
    for option, url in (("--task-url", getattr(a, "task_url", "")), ("--endpoint-url", getattr(a, "endpoint_url", ""))):
        try:
            parts = urlsplit(url or "")
            carries = bool(parts.username or parts.password or "@" in parts.netloc or parts.query or parts.fragment)
        except ValueError:
            carries = True  # a URL urllib cannot split (a bracket in its host): nothing of it is shown either
        if carries:
            raise ConfigError(f"{option} must not carry credentials (a user or password before the "
                              "host, a query or a fragment; not shown): Prefect stores and shows the "
                              "parameters of runs and deployments. Give the bare URL, and the credential to "
                              "each worker's environment instead")


def cmd_deploy(a: argparse.Namespace) -> int:
    from flows.driver.deployed_runs import deployed_line, serve_options
    from flows.driver.deployments import deploy_campaign, deploy_schedule
    from flows.platforms.registry import platform_for

    refuse_url_credentials(a)
    if a.target != "sim":  # refused now, not at the schedule's first run hours later
        platform_for(a.platform).check_target(a.target, a.endpoint_url, a.live)
    print(f"target: {a.endpoint_url}" if a.target == "sim" else
          f"target: {a.target} (live: real people and money; each run checks the budget first)")
    out = chosen_out(a, configured_out(a.config))
    if a.whole:
        deployment = deploy_campaign(a.config, a.endpoint_url, a.db, out, a.pool, a.target, a.live)
    else:
        deployment = deploy_schedule(a.config, a.endpoint_url, a.db, out, a.pool, a.platform, a.task_url,
                                     a.target, a.live)
    print(deployed_line(deployment, a.pool, a.whole, a.config, serve_options(
        a.endpoint_url, a.db, a.out, a.platform, a.task_url, getattr(a, "allow_outside_paths", False),
        a.target, a.live)))
    return 0
