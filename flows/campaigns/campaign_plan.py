"""A campaign run's context, its item plan (batches and HITs), gating and cost estimate."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from flows.answers.control_items import controls_note, controls_record, used_controls
from flows.answers.control_quiz import quiz_record
from flows.core.config.config import CampaignConfig
from flows.core.config.item_generator import scaled_copy
from flows.core.config.study_config import read_study_items
from flows.core.errors import ConfigError, InputFormatError
from flows.core.inputs.csv_files import csv_rows
from flows.core.outputs.output_location import stored_output
from flows.core.pages.templates import safe_url
from flows.core.run.run_context import Run
from flows.custom.agreement_record import agreement_record, choice_facts, skill_record
from flows.platforms.registry import platform_for
from flows.studies.study_plan import study_tasks

ITEM_COLUMNS = ("image_id", "file_name", "url")


def checked_items(cfg: CampaignConfig) -> Iterator[dict[str, str]]:
    """The item CSV's rows, checked as they are read; only the ids seen are kept."""
    seen: set[str] = set()
    for line, raw in csv_rows(cfg.items, ITEM_COLUMNS, "the item file")[1]:
        row = {k: raw[k].strip() for k in ITEM_COLUMNS}
        if not row["image_id"] or row["image_id"] in seen:
            raise InputFormatError(f"{cfg.items}:{line}: image_id {row['image_id']!r} is empty or repeated")
        if safe_url(row["url"]) != row["url"] or not row["url"].startswith(("http://", "https://")):
            raise InputFormatError(f"{cfg.items}:{line}: url {row['url']!r} must be an http(s) URL")
        seen.add(row["image_id"])
        yield row
    if not seen:
        raise InputFormatError(f"{cfg.items}: the item file has a header but no rows; add at least one item")


def plan_items(run: Run, limit: int | None = None, scale: int = 1) -> None:
    """Split items into batches and HITs once (kept by a re-run); ``scale`` > 1 adds copies as new images."""
    cfg = run.cfg
    if run.store.table("items").count_where("campaign = ?", [cfg.name]):
        return  # planned already: flows/campaigns/plan_growth.py resumes it as planned, grows it, or refuses
    count, rows = planned_items(cfg, limit, scale)
    platform, planned = platform_for(run.platform), rows if isinstance(rows, list) else []
    options, required = choice_facts(cfg, planned)
    with run.store.transaction():
        run.store.table("campaigns").upsert({
            "name": cfg.name, "config_path": str(cfg.path), "target": run.target.label, "created_at": time.time(),
            "status": "running", "marketplace": run.notes.get("marketplace", ""),  # flows/driver/sim_marketplace.py
            "config_json": json.dumps({
                "batches": cfg.batches, "items": count, "assignments_per_image": cfg.assignments_per_image,
                "fixed_overlap": cfg.answers.fixed_overlap if cfg.answers.adaptive else 0,
                "top_up_rounds": cfg.answers.top_up_rounds,  # what a short item's next step can still ask for
                "unit_cost": str(platform.assignment_cost(cfg)), "budget": str(cfg.budget),
                "qualification_cost": str(platform.gate_test_cost(cfg)),
                "qualification_takers": cfg.gating.qualification_takers,
                "batch_open_s": cfg.batch_open_s or cfg.hit_lifetime_s,
                "place_cost": platform.place_cost(cfg),
                "screening_place_cost": screening_place_cost(cfg, platform),
                "out_root": stored_output(run.notes.get("out_dir", "runs")),  # where cancel exports to
                "platform_created_at": run.clock(),  # the report's "Created": the platform's (virtual) clock
                "target_kind": run.target.kind, "endpoint_url": run.target.endpoint_url, "platform": run.platform,
                "sim_state": str(Path(run.target.state).resolve()) if run.target.state else "",
                "controls": controls_record(cfg, required), "quiz": quiz_record(cfg, planned, options),
                "agreement": agreement_record(cfg, planned), "skill": skill_record(cfg, planned)})}, pk="name")
        run.store.table("items").insert_all(rows, pk=("campaign", "item_id"))  # in chunks, as they come
    announce_controls(run, count)


def screening_place_cost(cfg: CampaignConfig, platform: Any) -> str:
    """A place of the control quiz's own screening study (Prolific's), for ``hitflow status``; "" where none."""
    if cfg.prolific.screening is None:
        return ""
    return str(platform.place_cost(dataclasses.replace(cfg, prolific=dataclasses.replace(
        cfg.prolific, reward=cfg.prolific.screening[0]))))


def announce_controls(run: Run, count: int) -> None:
    """A plan with control items says how many it added to the items asked for (they are paid like any)."""
    if run.cfg.task != "custom" or run.cfg.answers.control_share <= 0:
        return
    rows = run.store.rows("SELECT item_id FROM items WHERE campaign = ?", [run.cfg.name])
    if controls := len(used_controls(run.cfg, {r["item_id"] for r in rows})):
        run.progress(f"plan: {count - controls} item(s) in {run.cfg.batches} batch(es){controls_note(controls)}")


def item_plan(cfg: CampaignConfig, limit: int | None = None, scale: int = 1) -> list[dict[str, Any]]:
    """Items in file order, each with its batch and HIT index (what plan_items stores)."""
    return list(planned_items(cfg, limit, scale)[1])


def planned_items(cfg: CampaignConfig, limit: int | None = None, scale: int = 1
                  ) -> tuple[int, Iterable[dict[str, Any]]]:
    """How many items, and :func:`item_plan`'s rows made as they are read."""
    from flows.campaigns.task_kinds import kind_of  # the kinds' modules plan with this one

    kind = kind_of(cfg)
    if scale != 1 and kind.item_plan is not None and not kind.extra.get("scales"):
        raise ConfigError(f"--scale copies items as new ones; the {kind.label} draws its own from its design: run "
                          "it without --scale")
    if kind.item_plan is not None and cfg.study is not None:
        rows = kind.item_plan(cfg, limit)
        return len(rows), rows
    if cfg.answers.control_share > 0 and cfg.task != "custom":
        raise ConfigError(f"{cfg.path}: [answers] control_share mixes control items into a page of your own "
                          '(task = "custom"); remove it from this config')
    if cfg.answers.agreement_block_below > 0 and cfg.task != "custom":
        raise ConfigError(f"{cfg.path}: [answers] agreement_block_below judges the choices of a page of your own "
                          '(task = "custom"); remove it from this config')
    if kind.item_plan is not None:  # a kind's own items (a page of one's own: any columns)
        rows = kind.item_plan(cfg, limit, scale=scale) if scale != 1 else kind.item_plan(cfg, limit)
        return len(rows), rows
    # Two passes: every row checked and counted before any is planned, then the rows made as the store takes them.
    total = sum(1 for _ in checked_items(cfg))
    base = min(total, limit) if limit else total
    count = base * scale
    per_batch = -(-count // cfg.batches)
    items = (scaled_copy(it, k) for k in range(scale) for it in islice(checked_items(cfg), base))
    return count, ({"campaign": cfg.name, "item_id": it["image_id"], "file_name": it["file_name"], "url": it["url"],
                    "batch": i // per_batch + 1, "hit_index": (i % per_batch) // cfg.images_per_hit}
                   for i, it in enumerate(items))


def study_item_plan(cfg: CampaignConfig, limit: int | None = None) -> list[dict[str, Any]]:
    """A study's tasks in presentation order, ``images_per_hit`` a unit, what each page shows in ``payload``."""
    assert cfg.study is not None
    rows = read_study_items(cfg.items, cfg.study.kind)
    tasks = study_tasks(cfg.study.kind, rows, cfg.study.pairs_per_image, cfg.seed)
    tasks = tasks[:limit] if limit else tasks
    per_batch = -(-len(tasks) // cfg.batches)
    return [{"campaign": cfg.name, "item_id": t["item_id"], "file_name": t["url"].rsplit("/", 1)[-1], "url": t["url"],
             "batch": i // per_batch + 1, "hit_index": (i % per_batch) // cfg.images_per_hit,
             "payload": json.dumps(t["payload"])} for i, t in enumerate(tasks)]
