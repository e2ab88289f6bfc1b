"""``hitflow run --dry-run`` (exit 1 on a PROBLEM line); imported for a dry run only."""

from __future__ import annotations

import argparse
from typing import Any

from flows.campaigns.dry_run import content_blind_lines, format_plan, grown_plan_note, ledger_rows, plan_calls, refusals
from flows.campaigns.gate_view import control_pace_lines, gate_lines
from flows.campaigns.identity import Intent
from flows.campaigns.page_plan import rehearsal_time_lines, time_lines
from flows.campaigns.task_kinds import kind_of
from flows.custom.page_scripts import sim_workers, task_server_blocks_lines
from flows.platforms.registry import platform_for


def dry_run(a: argparse.Namespace, cfg: Any) -> int:
    lines: list[str] = content_blind_lines(cfg, a.target, a.endpoint_url, a.crowd, a.limit, a.scale)
    own = kind_of(cfg).dry_run_lines(cfg)  # what the kind reads of its page (a page of one's own: fields, rules)
    lines = own + lines + list(cfg.notes)
    if own and own[0].startswith("PROBLEM"):  # not a page at all: nothing to render or plan
        print(f"target: none (dry run of {a.target}, platform {a.platform})\n" + "\n".join(lines))
        return 1
    intent = Intent(new_attempt=a.new_attempt, resume_cancelled=a.resume_cancelled, replace_outputs=a.replace_outputs)
    lines += time_lines(cfg, a.platform) + refusals(a.db, cfg, a.platform, a.out, intent, a.limit, a.scale)
    lines += gate_lines(cfg, a.platform)  # what QC can see on this page and route: rules, time band, grounds
    if cfg.task == "custom":
        lines += task_server_blocks_lines(cfg.template.read_text(encoding="utf-8"),
                                          platform_for(a.platform).SERVES_PAGES, cfg.page_origins)
    lines += control_pace_lines(cfg, a.limit, a.scale)
    took = rehearsal_time_lines(ledger_rows(a.db), cfg, a.platform, cfg.name)  # a run's times, if one ran
    lines += took
    plan, notes = plan_calls(cfg, a.limit, a.scale, a.platform, tuple(a.invite)), grown_plan_note(a.db, cfg.name)
    rehearsed, agrees = _rehearsal(a, cfg, not took) if not plan["problems"] and not any(
        line.startswith("PROBLEM") for line in lines) else ([], True)
    lines += rehearsed
    print(f"target: none (dry run of {a.target}, platform {a.platform})\n{format_plan(plan, lines + notes, agrees)}")
    return 1 if plan["problems"] or any(line.startswith("PROBLEM") for line in lines) else 0


def _rehearsal(a: argparse.Namespace, cfg: Any, times: bool) -> tuple[list[str], bool]:
    """On a page of one's own, a first batch rehearsed on the in-process simulator (its times against the plan
    where no run's are in the ledger); elsewhere nothing."""
    elsewhere = a.target != "sim" or platform_for(a.platform).INVITES_PEOPLE or a.endpoint_url or cfg.endpoint_url \
        or a.task_url
    if cfg.task != "custom" or elsewhere or cfg.task_url:
        return [], True  # another simulator, invited people or a public task server: not rehearsed here
    from flows.driver.dry_rehearsal import rehearse

    # a page its workers do in Chromium is where a script's own checks show, and its pages cost seconds each
    browser = sim_workers(cfg.sim_workers, cfg.template.read_text(encoding="utf-8")) == "browser"
    return rehearse(cfg, a.platform, a.crowd, a.seed, times, pages=2 if browser else None)
