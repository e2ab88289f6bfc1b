"""A requester's own page (``task = "custom"``) declared as a task kind (flows/core/task_kinds.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from flows.campaigns.answer_cards import answer_cards
from flows.campaigns.campaign_plan import item_plan
from flows.campaigns.task_pages import task_page
from flows.core.config.config import CampaignConfig
from flows.core.errors import ConfigError
from flows.core.pages.templates import page_items
from flows.core.run.run_context import Run
from flows.core.task_kinds import AnswerField, CardRow, PlanDefaults, TaskKind, least_maximum, register, unit_minutes
from flows.custom import custom_review
from flows.custom.custom_task import (
    custom_item_plan,
    custom_page,
    custom_source,
    custom_spec,
    dry_run_lines,
    field_base,
    field_kind,
    field_kinds,
    first_page_rows,
    ordinary_items,
)
from flows.custom.item_ids import fields_scripts_find
from flows.custom.page_check import source_problems

MARKS = "annotations"  # the custom QC's word for spans, boxes and points
# an item's column the page puts in an image's source: <img src="{{ item.x | safe_url }}">, item['x'] too
PICTURED = re.compile(r"""<img\b[^>]*?\bsrc\s*=\s*["']?\s*\{\{-?\s*item(?:\.(\w+)|\[\s*["'](\w+)["']\s*\])""", re.I)


def spec_fields(spec: dict[str, Any]) -> list[AnswerField]:
    """A page spec's answer fields, one per name without its item index, in the page's order."""
    fields: dict[str, AnswerField] = {}
    for f in spec.get("fields", []):
        name, kind = field_base(f["name"]), field_kind(f)
        fields.setdefault(name, AnswerField(name, "marks" if kind == MARKS else kind,
                                            tuple(str(o) for o in f.get("options") or ()), f.get("input") == "hidden"))
    return list(fields.values())


def first_page_fields(cfg: CampaignConfig) -> list[AnswerField]:
    """The fields of the first page a worker gets (indexed ones once: what one item asks); a plan of one page's
    items is enough (the whole plan took 0.24 s at 40,000 items, read for every page of review cards)."""
    first = first_page_rows(cfg)
    return spec_fields(custom_spec(cfg, page_items(first))) if first else []


def custom_cards(run: Run, cards: list[tuple[int, str, str]], most: int) -> list[tuple[list[CardRow], int]]:
    pictured = {a or b for a, b in PICTURED.findall(custom_source(run.cfg))}
    return answer_cards(run, first_page_fields(run.cfg), cards, most, set(run.cfg.truth.values()), pictured)


def custom_plan(cfg: CampaignConfig) -> PlanDefaults:
    """A unit's times; with controls, the time allowed covers a first page that opens with the quiz (a worker
    timed out on it would lose their pay)."""
    fields, page = first_page_fields(cfg), cfg.images_per_hit
    quiz = cfg.answers.quiz if cfg.answers.control_share > 0 else 0
    found = fields_scripts_find(custom_source(cfg), frozenset(f.name for f in fields)) if cfg.template else ()
    apart = (f"the page's own script finds {', '.join(found)} by an id or name every item would share, so on a page "
             "of several items each item's copy would read the first item's") if found else ""
    return PlanDefaults(minutes=_minutes(fields, page, apart), kept_apart=apart,
                        maximum_minutes=least_maximum(_minutes(fields, page + quiz, apart)) if quiz else None)


def _minutes(fields: list[AnswerField], items: int, apart: str) -> float:
    """A unit's minutes; a page that keeps its items apart shows them one a page (flows/taskserver/quiz_pages.py),
    each page read on its own."""
    return items * unit_minutes(fields, 1) if apart else unit_minutes(fields, items)


def custom_qc(run: Run, batch: int) -> dict[str, Any]:
    """The generic QC step, looked up when it runs (a test stands a failing one in: tests/test_cancel_every_kind.py)."""
    return custom_review.custom_qc_batch(run, batch)


def custom_outputs(run: Run, out_dir: Path, truth: Any, platform_asked: bool = False, items: Any = None
                   ) -> dict[str, Any]:
    from flows.custom.custom_outputs import write_custom_outputs  # the answers' models: loaded for outputs

    return write_custom_outputs(run, out_dir, truth, items)


def custom_top_up(run: Run, batch: int) -> dict[str, Any]:
    from flows.custom.adaptive_rounds import top_up_round  # the answers' models: loaded when a round runs

    return top_up_round(run, batch)


TEXT_BLIND = ("simulated answers for {fields} are content-blind on {blind} of the first page's {total} items: they "
              "show no text of their own and an image the simulator's caption bank ({crowd}) does not hold, or "
              "none, so its workers write about a scene of its own making there; text figures from this "
              "rehearsal say nothing about it")


def text_blind_lines(cfg: CampaignConfig, crowd_file: Path, limit: int | None, scale: int) -> list[str]:
    """The page's free-text fields on the first page's images the crowd's bank does not hold, read as its
    workers read the page (the report counts every item after the run: flows/custom/truth_source.py)."""
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


CUSTOM_KIND = register(TaskKind(
    names=("custom",), label="your own page", unit_word="answer", done_key="responses",
    fields=first_page_fields, cards=custom_cards,
    plan=custom_plan, qc=custom_qc, outputs=custom_outputs, page=custom_page, rules=custom_spec,
    item_plan=custom_item_plan, item_ids=lambda cfg: [r["item_id"] for r in ordinary_items(cfg)],
    dry_run_lines=dry_run_lines, rehearsal_lines=text_blind_lines,
    extra={"own_page": True, "tops_up": custom_top_up, "scales": True}))
DECLARED = (CUSTOM_KIND,)  # read by flows/core/kind_registry.py
