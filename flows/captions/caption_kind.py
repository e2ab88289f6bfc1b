"""The caption task, Flickr8k's ``describe`` and the qualification test declared as task kinds; caption top-ups."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from flows.campaigns.answer_cards import answer_cards
from flows.campaigns.batch_review import qc_batch
from flows.campaigns.campaign_plan import item_plan
from flows.campaigns.extension_rounds import next_round, unit_frame
from flows.campaigns.review_data import card_captions
from flows.campaigns.task_pages import template_page
from flows.captions.caption_telemetry import telemetry_words
from flows.captions.content_blind import caption_page
from flows.captions.outputs import batch_captions, write_outputs
from flows.core.config.config import CampaignConfig, top_up_cap
from flows.core.errors import ConfigError
from flows.core.run.run_context import Run
from flows.core.task_kinds import AnswerField, CardRow, PlanDefaults, TaskKind, register, unit_minutes
from postprocess.answers.extension_rounds import top_up_units
from qc.qualification import ALLOWED

CAPTION = AnswerField("caption", "text")


def caption_cards(run: Run, cards: list[tuple[int, str, str]], most: int) -> list[tuple[list[CardRow], int]]:
    """Per card: the worker's captions beside their images (with any strike), and how many assignments."""
    captions = card_captions(run.store, run.cfg.name, cards, most)
    words = iter(telemetry_words(run, [c for mine, _ in captions for c in mine]))  # one read for the page
    return [([CardRow(assignment_id=c["assignment_id"], item_id=c["image_id"],
                      images=(("", c["url"]),) if c["url"] else (),
                      answers=(("caption", "text", c["caption"] or "", next(words)),), struck=bool(c["struck"]))
              for c in mine], done) for mine, done in captions]


def caption_rules(cfg: CampaignConfig, items: list[dict[str, Any]]) -> dict[str, Any]:
    return cfg.submit_rules.to_page_spec()


def caption_outputs(run: Run, out_dir: Path, truth: Any, platform_asked: bool = False,
                    items: Any = None) -> dict[str, Any]:
    return write_outputs(run, out_dir, truth, platform_asked)


def accepted_captions(run: Run, batch: int) -> pd.Series:
    """Accepted, non-empty captions per image of the batch (``image_id`` -> count)."""
    frame = batch_captions(run, batch, telemetry=False)
    kept = frame[~frame["is_rejected"] & (frame["caption"].fillna("").astype(str).str.strip() != "")]
    return kept.groupby(kept["image_id"].astype(str)).size()


def top_up_round(run: Run, batch: int) -> dict[str, Any]:
    """One top-up round of the batch (flows/campaigns/extension_rounds.py); ``extended`` 0 when they are over."""
    per = run.cfg.assignments_per_image
    return next_round(run, batch, run.cfg.answers.top_up_rounds, lambda rounds: top_up_units(
        accepted_captions(run, batch), unit_frame(run, batch, rounds), per, top_up_cap(per)), "caption top-up")


CAPTIONS_BLIND = ("simulated answers for caption are content-blind on {blind} of {total} items: the simulator's "
                  "caption bank ({crowd}) does not hold their images, so its workers describe a scene of its own "
                  "making there, never another image's captions; accuracy and agreement figures from this "
                  "rehearsal say nothing about it (a crowd file whose caption_bank holds them: --crowd or "
                  "[target] sim_crowd)")


def caption_blind_lines(cfg: CampaignConfig, crowd_file: Path, limit: int | None, scale: int) -> list[str]:
    """How many of a caption page's images the crowd's caption bank does not hold."""
    from flows.platforms.targets import sim_uncaptioned

    if not caption_page(cfg.task):
        return []  # no caption box
    ids = [str(row["item_id"]) for row in item_plan(cfg, limit, scale)]
    try:
        blind = sim_uncaptioned(crowd_file, ids)
    except ConfigError as exc:  # a rehearsal would stop on it: a problem of the dry run too
        return [f"PROBLEM: the simulator's crowd cannot be loaded: {exc}"]
    return [CAPTIONS_BLIND.format(blind=len(blind), total=len(ids), crowd=crowd_file.name)] if blind else []


# The caption demo's study: 0.90 GBP for 6 minutes (five images), timed out after 30
CAPTION_PLAN = PlanDefaults(minutes=6, reward=Decimal("0.90"), estimated_minutes=6, maximum_minutes=30)

CAPTION_KIND = register(TaskKind(
    names=("caption", "describe"), label="caption task", unit_word="caption", done_key="captions",
    fields=lambda cfg: [CAPTION],
    cards=caption_cards, plan=lambda cfg: CAPTION_PLAN, qc=qc_batch, outputs=caption_outputs, page=template_page,
    rules=caption_rules, rehearsal_lines=caption_blind_lines,
    extra={"strikes": True, "asks_platform_for_outputs": True, "tops_up": top_up_round}))
ANSWER = AnswerField("answer", "choice", tuple(sorted(set().union(*ALLOWED.values()))))
QUALIFICATION_KIND = register(TaskKind(
    names=("qualification",), label="qualification test", unit_word="answer", done_key="captions",
    fields=lambda cfg: [ANSWER],
    cards=lambda run, cards, most: answer_cards(run, [ANSWER], cards, most),
    plan=lambda cfg: PlanDefaults(minutes=unit_minutes([ANSWER], cfg.images_per_hit)),
    qc=qc_batch, outputs=caption_outputs, page=template_page, rules=caption_rules, extra={"tops_up": top_up_round}))
DECLARED = (CAPTION_KIND, QUALIFICATION_KIND)  # read by flows/core/kind_registry.py
