"""``--dry-run``: render every page, check it against the platform's limits, estimate the cost with
fees, and list exactly which calls a real run would make (HITs on MTurk, studies on Prolific,
invite rounds for links: each platform's ``dry_run``, platforms/<name>/dry_run.py). Touches no
platform and no money."""

from __future__ import annotations

import contextlib
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

from flows.campaigns.campaign_plan import item_plan
from flows.campaigns.content_blind import caption_page
from flows.campaigns.task_pages import task_page
from flows.core.config.config import CampaignConfig
from flows.core.errors import ConfigError
from flows.core.pages.templates import page_items
from flows.core.run.run_context import Run
from flows.custom.custom_task import custom_spec, field_kinds
from flows.custom.page_check import source_problems
from flows.platforms.interface import Groups
from flows.platforms.registry import platform_for


def plan_calls(cfg: CampaignConfig, limit: int | None = None, scale: int = 1,
               platform: str = "mturk", invitees: tuple[str, ...] = ()) -> dict[str, Any]:
    """The calls, page sizes and cost of a campaign on ``platform``, computed offline (the
    estimate is the one a real run checks against the budget before its first post)."""
    run = Run(cfg, store=None, client=None, target=None, progress=lambda _: None,  # type: ignore[arg-type]
              platform=platform, page=task_page)
    groups: Groups = defaultdict(list)
    for row in item_plan(cfg, limit, scale):
        groups[(row["batch"], row["hit_index"])].append(row)
    return platform_for(platform).dry_run(run, groups, list(invitees))


CAPTIONS_BLIND = ("simulated answers for caption are content-blind on {blind} of {total} items: the simulator's "
                  "caption bank ({crowd}) does not hold their images, so its workers describe a scene of its own "
                  "making there, never another image's captions; accuracy and agreement figures from this "
                  "rehearsal say nothing about it (a crowd file whose caption_bank holds them: --crowd or "
                  "[target] sim_crowd)")
TEXT_BLIND = ("simulated answers for {fields} are content-blind on {blind} of the first page's {total} items: they "
              "show no text of their own and an image the simulator's caption bank ({crowd}) does not hold, or "
              "none, so its workers write about a scene of its own making there; text figures from this "
              "rehearsal say nothing about it")


def content_blind_lines(cfg: CampaignConfig, target: str, endpoint_url: str, crowd: str | None,
                        limit: int | None = None, scale: int = 1) -> list[str]:
    """For a rehearsal on the in-process simulator (issue 58): how many of a caption page's images (a
    custom page's, on its first page) the crowd's caption bank does not hold, whose simulated text is a
    declared made-up scene."""
    if target != "sim" or endpoint_url or cfg.endpoint_url or cfg.study is not None:
        return []  # another platform, or a running simulator whose crowd is its own
    # here, not at the top: the simulator is reached only through targets, and only when asked for
    from flows.platforms.targets import crowd_file_used, sim_uncaptioned

    crowd_file = crowd_file_used(Path(crowd) if crowd else cfg.sim_crowd)
    if cfg.task == "custom":
        return _custom_text_lines(cfg, crowd_file, limit, scale)
    if not caption_page(cfg.task):
        return []  # no caption box
    ids = [str(row["item_id"]) for row in item_plan(cfg, limit, scale)]
    try:
        blind = sim_uncaptioned(crowd_file, ids)
    except ConfigError as exc:  # a rehearsal would stop on it: a problem of the dry run too
        return [f"PROBLEM: the simulator's crowd cannot be loaded: {exc}"]
    return [CAPTIONS_BLIND.format(blind=len(blind), total=len(ids), crowd=crowd_file.name)] if blind else []


def _custom_text_lines(cfg: CampaignConfig, crowd_file: Path, limit: int | None, scale: int) -> list[str]:
    """A custom page's free-text fields on the first page's images the crowd's bank does not hold, read as
    its workers read the page (the report counts every item after the run: flows/custom/truth_source.py)."""
    from flows.platforms.targets import sim_unseen_on_page

    if cfg.template is None or source_problems(cfg.template)[0] is None:
        return []  # an unreadable page: the custom dry run says why
    try:
        rows = [r for r in item_plan(cfg, limit, scale) if r["batch"] == 1 and r["hit_index"] == 0]
        texts = [f for f, kind in field_kinds(custom_spec(cfg, page_items(rows))).items() if kind == "text"]
        page = task_page(cfg, rows) if texts and rows else ""
    except ConfigError:
        return []  # the custom dry run's own lines say what is wrong with the page or its items
    try:
        blind = sim_unseen_on_page(crowd_file, page) if page else []
    except ConfigError as exc:  # a rehearsal would stop on it: a problem of the dry run too
        return [f"PROBLEM: the simulator's crowd cannot be loaded: {exc}"]
    return [TEXT_BLIND.format(fields=", ".join(texts), blind=len(blind), total=len(rows), crowd=crowd_file.name)
            ] if blind else []


def format_plan(plan: dict[str, Any], page_lines: list[str] | None = None) -> str:
    """The plan, then what the dry run read of the page (``page_lines``, a custom page's fields and
    rules), then the verdict last: every PROBLEM (the plan's and the page's), or that there is none."""
    head = [plan.get("head") or f"dry run: {plan['hits']} HITs, {plan['assignments']} assignments; largest page "
            f"{plan['largest_question_bytes']} of {plan['limit_bytes']} bytes", plan["estimate"]]
    page = [line for line in page_lines or [] if not line.startswith("PROBLEM")]
    problems = [f"PROBLEM: {p}" for p in plan["problems"]] + [line for line in page_lines or []
                                                               if line.startswith("PROBLEM")]
    tail = problems or ["no problems found; nothing was sent anywhere"]
    return "\n".join(head + [f"  {plan.get('verb', 'would call')} {c}" for c in plan["calls"]] + page + tail)


def grown_plan_note(db: str, campaign: str) -> list[str]:
    """A line when the ledger already holds the campaign's plan (a pilot): the dry run prices a plan of every
    item from scratch, while the run grows the stored one (flows/campaigns/plan_growth.py), its new batches' pages
    cut afresh, which can cost more. Found by bench/newcomer.py: after a pilot of 20, the dry run of 69 items
    said "19.44 USD ... 0.56 to spare" and the run was refused at 21.60 USD. Read only; a PostgreSQL ledger or
    none yet: no line."""
    path = Path(db)
    if "://" in db or not path.is_file():
        return []
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as ledger:
            count, last = ledger.execute("SELECT count(*), max(batch) FROM items WHERE campaign = ?",
                                         [campaign]).fetchone()
    except sqlite3.Error:  # not a ledger (yet): nothing planned there
        return []
    if not count:
        return []
    return [f"note: {db} already holds {campaign}'s plan ({count} item(s), control items included, in batch(es) "
            f"1-{last}); this estimate is of a plan of every item from scratch. A run asking for more items grows the "
            "stored plan instead (new batches for the new items), which can cost a few pages more: it checks the "
            "whole campaign against the budget before posting anything"]
