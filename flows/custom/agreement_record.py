"""What the plan keeps in the ledger for a custom campaign's agreement block and pooled control block."""

from __future__ import annotations

from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.ledger.store import Store
from flows.core.pages.templates import page_items
from flows.custom.custom_task import choice_field_names, custom_spec, field_base
from postprocess.answers.answer_agreement import AgreementPolicy
from postprocess.answers.worker_skill import SkillPolicy
from qc.form_constraints import Spec


def first_page_spec(cfg: CampaignConfig, planned: list[dict[str, Any]]) -> Spec:
    first = [r for r in planned if r["batch"] == planned[0]["batch"] and r["hit_index"] == planned[0]["hit_index"]]
    return custom_spec(cfg, page_items(first))


def choice_fields(cfg: CampaignConfig, planned: list[dict[str, Any]]) -> list[str]:
    """The page's choice fields, read from its first HIT."""
    return sorted(choice_field_names(first_page_spec(cfg, planned)))


def choice_facts(cfg: CampaignConfig, planned: list[dict[str, Any]]) -> tuple[dict[str, list[str]], list[str]]:
    """Each single-choice field's options as the page offers them (a quiz offers the same, so a random click is
    right as often as on a page), and the fields the page requires (a control left blank there counts as wrong)."""
    if cfg.task != "custom" or cfg.answers.controls is None or not planned:
        return {}, []
    fields = [f for f in first_page_spec(cfg, planned)["fields"] if f["type"] == "one"]
    return ({field_base(f["name"]): [o for o in f["options"] if str(o).strip()] for f in fields},
            sorted({field_base(f["name"]) for f in fields if f.get("required")}))


def _kept(cfg: CampaignConfig, planned: list[dict[str, Any]], on: bool, rule: dict[str, Any]) -> dict[str, Any] | None:
    """``rule`` and the page's choice fields, or None when the rule is off or the page has no choice."""
    fields = choice_fields(cfg, planned) if on and cfg.task == "custom" and planned else []
    return {**rule, "fields": fields} if fields else None


def agreement_record(cfg: CampaignConfig, planned: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The policy and the page's choice fields, or None when the rule is off or there is no choice."""
    a = cfg.answers
    return _kept(cfg, planned, a.agreement_block_below > 0, {
        "block_below": a.agreement_block_below, "min_items": a.agreement_min_items,
        "min_others": a.agreement_min_others, "confidence": a.control_confidence})


def stored_agreement(store: Store, campaign: str) -> tuple[list[str], AgreementPolicy] | None:
    """The campaign's choice fields and agreement policy as the plan recorded them, or None."""
    record = store.recorded_config(campaign).get("agreement")
    if not record:
        return None
    return list(record["fields"]), AgreementPolicy(float(record["block_below"]), int(record["min_items"]),
                                                   int(record["min_others"]), float(record["confidence"]))


def skill_record(cfg: CampaignConfig, planned: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The pooled control rule's policy and the page's choice fields, or None when the campaign has no
    controls, does not pool them, or its page has no choice (its controls then block alone)."""
    a = cfg.answers
    return _kept(cfg, planned, a.controls is not None and a.control_pooling, {
        "block_below": a.control_block_below, "alpha": a.control_alpha, "min_evidence": a.control_min_evidence,
        "page_labels": a.control_page_labels})


def stored_skill(store: Store, campaign: str) -> tuple[list[str], SkillPolicy] | None:
    """The choice fields and pooled control policy as the plan recorded them, or None (planned before the rule)."""
    record = store.recorded_config(campaign).get("skill")
    if not record:
        return None
    return list(record["fields"]), SkillPolicy(float(record["block_below"]), float(record["alpha"]),
                                               float(record["min_evidence"]), float(record["page_labels"]))
