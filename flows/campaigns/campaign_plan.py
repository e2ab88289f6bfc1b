"""A campaign run's context, its item plan (batches and HITs), gating and cost estimate."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from flows.core.config import CampaignConfig
from flows.core.csv_files import read_csv_table
from flows.core.errors import BudgetError, InputFormatError
from flows.core.item_generator import scaled_copy
from flows.core.ledger_calls import LedgeredCall, ledgered
from flows.core.run_context import Run
from flows.core.templates import safe_url
from flows.platforms import platform_for
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.fees import mturk_fee
from flows.studies.study_plan import read_study_items, study_tasks

ITEM_COLUMNS = ("image_id", "file_name", "url")


def read_items(cfg: CampaignConfig) -> list[dict[str, str]]:
    """The item CSV, checked: required columns, unique ids, http(s) URLs."""
    table = read_csv_table(cfg.items, ITEM_COLUMNS, "the item file").with_rows("the item file")
    rows = [{k: r[k].strip() for k in ITEM_COLUMNS} for r in table.rows]
    seen: set[str] = set()
    for line, row in zip(table.lines, rows, strict=True):
        if not row["image_id"] or row["image_id"] in seen:
            raise InputFormatError(f"{cfg.items}:{line}: image_id {row['image_id']!r} is empty or repeated")
        if safe_url(row["url"]) != row["url"] or not row["url"].startswith(("http://", "https://")):
            raise InputFormatError(f"{cfg.items}:{line}: url {row['url']!r} must be an http(s) URL")
        seen.add(row["image_id"])
    return rows


def plan_items(run: Run, limit: int | None = None, scale: int = 1) -> None:
    """Split items into batches and HITs once; a re-run keeps the stored plan.

    ``scale`` > 1 adds K-1 copies of the item list as new images (new ids, file names and URLs).
    """
    cfg = run.cfg
    if run.store.table("items").count_where("campaign = ?", [cfg.name]):
        return
    rows = item_plan(cfg, limit, scale)
    with run.store.transaction():
        run.store.table("campaigns").upsert({
            "name": cfg.name, "config_path": str(cfg.path), "target": run.target.label, "created_at": time.time(),
            "status": "running", "config_json": json.dumps({
                "batches": cfg.batches, "items": len(rows), "assignments_per_image": cfg.assignments_per_image,
                "unit_cost": str(cost_per_assignment(cfg)), "budget": str(cfg.budget),
                "qualification_cost": str(qualification_test_cost(cfg)),
                "qualification_takers": cfg.gating.qualification_takers,
                "batch_open_s": cfg.batch_open_s or cfg.hit_lifetime_s,
                "place_cost": platform_for(run.platform).place_cost(cfg),
                "out_root": str(Path(run.notes.get("out_dir", "runs")).resolve()),  # where cancel exports to
                "target_kind": run.target.kind, "endpoint_url": run.target.endpoint_url, "platform": run.platform,
                "sim_state": str(Path(run.target.state).resolve()) if run.target.state else ""})}, pk="name")
        run.store.table("items").insert_all(rows, pk=("campaign", "item_id"))


def item_plan(cfg: CampaignConfig, limit: int | None = None, scale: int = 1) -> list[dict[str, Any]]:
    """Items in file order, each with its batch and HIT index (what plan_items stores)."""
    if cfg.study is not None:
        return study_item_plan(cfg, limit)
    if cfg.task == "custom":
        from flows.custom.custom_task import custom_item_plan

        return custom_item_plan(cfg, limit)
    base = read_items(cfg)[:limit] if limit else read_items(cfg)
    items = [scaled_copy(it, k) for k in range(scale) for it in base]
    per_batch = -(-len(items) // cfg.batches)
    return [{"campaign": cfg.name, "item_id": it["image_id"], "file_name": it["file_name"], "url": it["url"],
             "batch": i // per_batch + 1, "hit_index": (i % per_batch) // cfg.images_per_hit}
            for i, it in enumerate(items)]


def study_item_plan(cfg: CampaignConfig, limit: int | None = None) -> list[dict[str, Any]]:
    """An evaluation study's tasks in presentation order, ``images_per_hit`` to a unit; what
    each page shows goes in ``payload``."""
    assert cfg.study is not None
    rows = read_study_items(cfg.items, cfg.study.kind)
    tasks = study_tasks(cfg.study.kind, rows, cfg.study.pairs_per_image, cfg.seed)
    tasks = tasks[:limit] if limit else tasks
    per_batch = -(-len(tasks) // cfg.batches)
    return [{"campaign": cfg.name, "item_id": t["item_id"], "file_name": t["url"].rsplit("/", 1)[-1], "url": t["url"],
             "batch": i // per_batch + 1, "hit_index": (i % per_batch) // cfg.images_per_hit,
             "payload": json.dumps(t["payload"])} for i, t in enumerate(tasks)]


def hit_groups(run: Run, batch: int) -> list[tuple[int, list[dict[str, Any]]]]:
    rows = run.store.rows("SELECT * FROM items WHERE campaign = ? AND batch = ? ORDER BY rowid",
                          [run.cfg.name, batch])
    groups: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["hit_index"], []).append(row)
    return sorted(groups.items())


def hit_token(cfg: CampaignConfig, batch: int, hit_index: int, item_ids: list[str]) -> str:
    """Deterministic UniqueRequestToken (<= 64 chars) for one planned HIT."""
    digest = hashlib.sha256(f"{cfg.name}|{batch}|{hit_index}|{','.join(item_ids)}".encode()).hexdigest()[:16]
    return f"hf-{cfg.name[:24]}-b{batch}-h{hit_index}-{digest}"


def cost_per_assignment(cfg: CampaignConfig) -> Decimal:
    return cfg.reward + mturk_fee(cfg.reward, cfg.assignments_per_image)


def qualification_test_cost(cfg: CampaignConfig) -> Decimal:
    """Reward plus fees for every planned taker of a paid test HIT (zero without one)."""
    g = cfg.gating
    if g.qualification_key is None or g.qualification_mode != "html_hit":
        return Decimal("0.00")
    return (g.qualification_reward + mturk_fee(g.qualification_reward, g.qualification_takers)) * \
        g.qualification_takers


def check_budget(run: Run, batch: int, n_hits: int) -> Decimal:
    """Committed (the test HIT and all caption HITs posted so far) + this batch, with fees, must fit."""
    posted = run.store.db["hits"].count_where("campaign = ? AND batch != ? AND batch > 0", [run.cfg.name, batch])
    unit = cost_per_assignment(run.cfg) * run.cfg.assignments_per_image
    estimate = unit * n_hits
    committed = unit * posted + qualification_test_cost(run.cfg)
    from flows.campaigns.budget import to_budget_currency  # budget imports this module

    if to_budget_currency(run.cfg, committed + estimate, "USD") > run.cfg.budget:
        raise BudgetError(f"batch {batch} would commit {committed + estimate:.2f} USD (reward + fees) against a "
                          f"budget of {run.cfg.budget:.2f} {run.cfg.budget_currency}; raise [campaign].budget or "
                          "post fewer items")
    return estimate


def gating_requirements(cfg: CampaignConfig, block_qual_id: str, test_qual_id: str = "") -> list[dict[str, Any]]:
    g = cfg.gating
    reqs: list[dict[str, Any]] = [
        {"QualificationTypeId": "00000000000000000040", "Comparator": "GreaterThan",
         "IntegerValues": [g.min_hits_approved], "ActionsGuarded": "DiscoverPreviewAndAccept"},
        {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo",
         "IntegerValues": [g.min_percent_approved], "ActionsGuarded": "DiscoverPreviewAndAccept"},
    ]
    if g.locale:
        reqs.append({"QualificationTypeId": "00000000000000000071", "Comparator": "EqualTo",
                     "LocaleValues": [{"Country": g.locale}], "ActionsGuarded": "DiscoverPreviewAndAccept"})
    if block_qual_id:
        reqs.append({"QualificationTypeId": block_qual_id, "Comparator": "DoesNotExist",
                     "ActionsGuarded": "DiscoverPreviewAndAccept"})
    if test_qual_id:
        reqs.append({"QualificationTypeId": test_qual_id, "Comparator": "GreaterThanOrEqualTo",
                     "IntegerValues": [g.qualification_min_score], "ActionsGuarded": "Accept"})
    return reqs


def ledgered_qualification(run: Run, name: str, purpose: str, create: Callable[[], str],
                           params: dict[str, Any]) -> str:
    """A qualification type created once per campaign: the ledger remembers its id."""
    def send() -> dict[str, Any]:
        qual_id = create()
        run.store.table("qualifications").upsert({"qualification_type_id": qual_id, "campaign": run.cfg.name,
                                                  "name": name, "purpose": purpose}, pk="qualification_type_id")
        return {"QualificationTypeId": qual_id}

    key = f"{run.cfg.name}:qualtype:{name}"
    call = LedgeredCall("CreateQualificationType", key, {"Name": name, **params}, send)
    return str(ledgered(run.store, run.cfg.name, 0, call)["QualificationTypeId"])


def block_qualification_name(cfg: CampaignConfig) -> str:
    """The soft-block qualification's name (what a run creates and a dry run shows)."""
    return cfg.gating.soft_block_qualification or f"hitflow-{cfg.name}-blocked"


def mturk_test_qualification_name(cfg: CampaignConfig) -> str:
    """MTurk-scored test (``mturk_test``): the qualification type carrying Test and AnswerKey."""
    return f"hitflow-{cfg.name}-test"


def score_qualification_name(cfg: CampaignConfig) -> str:
    """Paid test HIT (``html_hit``): hitflow's own qualification whose value is the test score."""
    return f"hitflow-{cfg.name}-score"


def scored_test_qualification(run: Run) -> str:
    """The scored qualification test (Test + AnswerKey from the key CSV), or "" when none is configured."""
    from flows.campaigns.offline import load_key
    from flows.platforms.mturk.qualification_forms import build_answer_key, build_test_form

    g = run.cfg.gating
    if g.qualification_key is None or g.qualification_mode != "mturk_test":
        return ""
    key_path = g.qualification_key
    name = mturk_test_qualification_name(run.cfg)

    def create() -> str:
        answers = load_key(key_path)
        return mturk.create_test_qualification(run.client, name, build_test_form(answers),
                                               build_answer_key(answers), g.qualification_retry_delay_s)

    return ledgered_qualification(run, name, "scored test", create, {"Test": "<form>"})


def requester_qualification(run: Run, name: str, purpose: str, description: str) -> str:
    """A plain qualification type hitflow grants itself (no test), created once per campaign."""
    return ledgered_qualification(run, name, purpose,
                                  lambda: mturk.ensure_qualification_type(run.client, name, description), {})


def block_qualification(run: Run) -> str:
    """The soft-block qualification (created once, remembered in the ledger)."""
    return requester_qualification(run, block_qualification_name(run.cfg), "soft block",
                                   f"Workers whose earlier work on {run.cfg.name} was blocked by QC.")
