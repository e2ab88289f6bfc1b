"""``hitflow deploy``: the campaign's deployment registered and said in hitflow's words."""

from __future__ import annotations

import argparse

from flows.cli.output_option import chosen_out, configured_out


def cmd_deploy(a: argparse.Namespace) -> int:
    from flows.driver.deployed_runs import deployed_line, serve_options
    from flows.driver.deployments import deploy_campaign, deploy_schedule
    from flows.platforms.registry import platform_for

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
