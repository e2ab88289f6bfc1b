"""``--dry-run``: every page rendered and checked, the cost estimated, the calls listed; nothing sent."""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from flows.campaigns.campaign_plan import item_plan
from flows.campaigns.identity import Intent, check_identity, run_name, stored_campaign
from flows.campaigns.plan_growth import growth_verdict, stored_plan
from flows.campaigns.task_kinds import kind_of
from flows.campaigns.task_pages import task_page
from flows.core.config.config import CampaignConfig
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.core.run.run_context import Run
from flows.platforms.interface import Groups
from flows.platforms.registry import platform_for


def plan_calls(cfg: CampaignConfig, limit: int | None = None, scale: int = 1,
               platform: str = "mturk", invitees: tuple[str, ...] = ()) -> dict[str, Any]:
    """The calls, page sizes and cost of a campaign on ``platform``, computed offline (the estimate a run checks)."""
    run = Run(cfg, store=None, client=None, target=None, progress=lambda _: None,  # type: ignore[arg-type]
              platform=platform, page=task_page)
    groups: Groups = defaultdict(list)
    for row in item_plan(cfg, limit, scale):
        groups[(row["batch"], row["hit_index"])].append(row)
    return platform_for(platform).dry_run(run, groups, list(invitees))


def content_blind_lines(cfg: CampaignConfig, target: str, endpoint_url: str, crowd: str | None,
                        limit: int | None = None, scale: int = 1) -> list[str]:
    """What a rehearsal's answers say nothing about (the kind's ``rehearsal_lines``)."""
    if target != "sim" or endpoint_url or cfg.endpoint_url:
        return []  # another platform, or a running simulator whose crowd is its own
    # here, not at the top: the simulator is reached only through targets, and only when asked for
    from flows.platforms.targets import crowd_file_used

    return kind_of(cfg).rehearsal_lines(cfg, crowd_file_used(Path(crowd) if crowd else cfg.sim_crowd), limit, scale)


def format_plan(plan: dict[str, Any], page_lines: list[str] | None = None, rehearsal_agrees: bool = True) -> str:
    """The plan, what was read of the page, then the verdict: every PROBLEM, or none where a rehearsal agrees."""
    head = [plan.get("head") or f"dry run: {plan['hits']} HITs, {plan['assignments']} assignments; largest page "
            f"{plan['largest_question_bytes']} of {plan['limit_bytes']} bytes", plan["estimate"]]
    page = [line for line in page_lines or [] if not line.startswith("PROBLEM")]
    problems = [f"PROBLEM: {p}" for p in plan["problems"]] + [line for line in page_lines or []
                                                               if line.startswith("PROBLEM")]
    unchecked = sum(line.startswith("UNCHECKED") for line in page)
    if problems:
        tail = problems
    elif unchecked:  # a person's browser runs them; QC and the form-reading rehearsal do not
        tail = [f"no problem found, but {unchecked} check(s) of the page's own script (UNCHECKED above) only a "
                "person's browser enforces: QC would approve answers they refuse; nothing was sent anywhere"]
    else:
        tail = ["no problems found; nothing was sent anywhere" if rehearsal_agrees else
                "no problem in the page or the plan, but the rehearsal above does not confirm it; nothing was sent "
                "anywhere"]
    return "\n".join(head + _call_lines(plan["calls"], plan.get("verb", "would call")) + page + tail)


SHOWN_OF_A_RUN = 3  # calls of one kind in a row shown before the rest are counted (a campaign posts thousands)


def _call_lines(calls: list[str], verb: str) -> list[str]:
    """A line a call, each run of more than SHOWN_OF_A_RUN + 1 of one operation a HIT as its first few and a count."""
    out: list[str] = []
    for (op, per_unit), run in itertools.groupby(calls, key=lambda call: (call.split(" ", 1)[0], " hit=" in call)):
        same = list(run)
        shown = same[:SHOWN_OF_A_RUN] if per_unit and len(same) > SHOWN_OF_A_RUN + 1 else same
        out += [f"  {verb} {call}" for call in shown]
        out += [f"  ... and {len(same) - len(shown)} more {op} calls like these"] if len(shown) < len(same) else []
    return out


def refusals(db: str, cfg: CampaignConfig, platform: str, out: str, intent: Intent, limit: int | None = None,
             scale: int = 1) -> list[str]:
    """What the real run would refuse before anything is posted, as PROBLEM lines; creates no ledger."""
    name = run_name(db, cfg.name, intent)
    try:
        check_identity(db, name, platform, out, intent)
        stored = stored_plan(Store(db), name) if stored_campaign(db, name) is not None else []
        verdict = growth_verdict(replace(cfg, name=name), stored, limit, scale)[2] if stored else ""
    except ConfigError as exc:
        return [f"PROBLEM: the run would be refused: {exc}"]
    return [f"PROBLEM: the run would be refused: {verdict}"] if verdict not in ("", "resume") else []


Rows = Callable[[str, list[Any]], list[dict[str, Any]]]


def ledger_rows(db: str) -> Rows | None:
    """The ledger's rows, read only (a dry run changes nothing); None for none yet or a PostgreSQL one."""
    if "://" in db or not Path(db).is_file():
        return None

    def rows(sql: str, args: list[Any]) -> list[dict[str, Any]]:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as ledger:
            ledger.row_factory = sqlite3.Row
            try:
                return [dict(r) for r in ledger.execute(sql, args)]
            except sqlite3.Error:  # not a ledger (yet)
                return []
    return rows


def grown_plan_note(db: str, campaign: str) -> list[str]:
    """A line when the ledger holds the campaign's plan already: growing it can cost more than priced."""
    rows = ledger_rows(db)
    found = rows("SELECT count(*) AS n, max(batch) AS last FROM items WHERE campaign = ?", [campaign]) if rows else []
    count, last = (found[0]["n"], found[0]["last"]) if found else (0, 0)
    if not count:
        return []
    return [f"note: {db} already holds {campaign}'s plan ({count} item(s), control items included, in batch(es) "
            f"1-{last}); this estimate is of a plan of every item from scratch. A run asking for more items grows the "
            "stored plan instead (new batches for the new items), which can cost a few pages more: it checks the "
            "whole campaign against the budget before posting anything"]
