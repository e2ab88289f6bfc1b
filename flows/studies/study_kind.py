"""The five evaluation studies declared as task kinds."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from flows.campaigns.answer_cards import answer_cards
from flows.campaigns.campaign_plan import study_item_plan
from flows.campaigns.task_pages import template_page
from flows.core.config.config import CampaignConfig
from flows.core.run.run_context import Run
from flows.core.study_kinds import DEMOGRAPHICS, KINDS
from flows.core.task_kinds import AnswerField, PlanDefaults, TaskKind, register
from flows.studies.study_plan import page_spec, questions
from flows.studies.study_review import study_qc_batch

# a task's payload that every kind's questions can be asked of (crowd selection's sentences: none)
SAMPLE_PAYLOAD: dict[str, Any] = {"sentences": [], "text": "", "reference": "", "text_1": "", "text_2": ""}
KIND_OF_TYPE = {"one": "choice", "many": "choice", "slider": "number", "number": "number", "text": "text"}
LABELS = {kind: kind.replace("_", " ") + " study" for kind in KINDS}
STUDY_PLAN = PlanDefaults(minutes=6, reward=Decimal("0.90"), estimated_minutes=6, maximum_minutes=30)


def study_fields(cfg: CampaignConfig) -> list[AnswerField]:
    """One task's questions (without their index), and the severity study's screen once per unit."""
    assert cfg.study is not None
    asked = [AnswerField(q["name"].rsplit("_", 1)[0], KIND_OF_TYPE.get(q["type"], "text"),
                         tuple(map(str, q.get("options", ())))) for q in questions(cfg.study.kind, 0, SAMPLE_PAYLOAD)]
    if cfg.study.kind == "severity_rating":
        asked += [AnswerField("age", "number")] + [AnswerField(k, "choice", tuple(v)) for k, v in DEMOGRAPHICS.items()]
    return asked


def study_rules(cfg: CampaignConfig, items: list[dict[str, Any]]) -> dict[str, Any]:
    assert cfg.study is not None
    return page_spec(cfg.study.kind, [{"payload": i} for i in items])


def study_outputs(run: Run, out_dir: Path, truth: Any, platform_asked: bool = False, items: Any = None
                  ) -> dict[str, Any]:
    from flows.studies.study_outputs import write_study_outputs  # its statistics and plots: loaded for outputs

    return write_study_outputs(run, out_dir)


DECLARED = tuple(register(TaskKind(
    names=(kind,), label=LABELS[kind], unit_word="judgement", done_key="judgements", fields=study_fields,
    cards=lambda run, cards, most: answer_cards(run, study_fields(run.cfg), cards, most),
    plan=lambda cfg: STUDY_PLAN, qc=study_qc_batch, outputs=study_outputs, page=template_page,
    rules=study_rules, item_plan=study_item_plan)) for kind in KINDS)  # read by flows/core/kind_registry.py
