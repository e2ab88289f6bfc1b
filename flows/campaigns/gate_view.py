"""The dry run's account of what the gate can see on this page and route."""

from __future__ import annotations

import math

from flows.campaigns.attention_scoring import study_minutes
from flows.campaigns.route_policy import route_policy
from flows.campaigns.task_kinds import kind_of
from flows.core.config.config import CampaignConfig
from flows.platforms.registry import platform_for
from qc.attention_checks import FAILED as ATTENTION_FAILED
from qc.attention_checks import failures_to_reject
from qc.exceptional_speed import RULE as FAST_GROUND
from qc.rule_fields import FIELD_GROUP, SUBMISSION, TEXT, rules_reading
from qc.skipped_required import PART_OF
from qc.skipped_required import RULE as SKIPPED_REQUIRED


def gate_lines(cfg: CampaignConfig, platform: str) -> list[str]:
    """``gate:`` lines for ``--dry-run``."""
    return field_lines(cfg) + time_band_lines(cfg) + pace_lines(cfg) + attention_lines(cfg) + route_lines(cfg, platform)


def time_band_lines(cfg: CampaignConfig) -> list[str]:
    """The time band in use, when the campaign runs the time_outlier rule."""
    from qc.timing_rules import describe_method

    return [describe_method(cfg.qc_params)] if "time_outlier" in cfg.qc_rules else []


def field_lines(cfg: CampaignConfig) -> list[str]:
    lines, own = ["gate: what QC reads on this page"], dict[str, tuple[str, ...]]()
    if kind_of(cfg).extra.get("own_page"):  # a free-text field's rules as its page and table leave them
        from flows.custom.custom_task import text_field_rules

        own = text_field_rules(cfg)
    checks, fields = set(cfg.attention.page_checks), kind_of(cfg).fields(cfg)
    lines += [f"PROBLEM: [attention] page_checks names {c!r}, no field of the page: every response would fail it; "
              "name the page's own field" for c in sorted(checks - {f.name for f in fields})]
    for f in fields:
        group = FIELD_GROUP.get(f.kind, f.kind)
        rules = list(own[f.name]) if group == TEXT and f.name in own else rules_reading(group, cfg.qc_rules)
        rules = [f"{ATTENTION_FAILED} (the page's own attention check)"] if f.name in checks else rules
        lines.append(f"  {f.name} ({f.kind}): " + (", ".join(rules) if rules else
                                                   "no rule reads it (only the whole submission is judged)"))
    whole = rules_reading(SUBMISSION, cfg.qc_rules) + ([ATTENTION_FAILED] if cfg.attention.checks else [])
    whole = [r for rule in whole for r in ((rule, SKIPPED_REQUIRED) if rule == PART_OF else (rule,))]
    lines.append("  every submission: " + (", ".join(whole) if whole else "no rule"))
    return lines


def pace_lines(cfg: CampaignConfig) -> list[str]:
    """How many pages of one worker the rules on rates wait for (``block_min_evidence`` answers)."""
    per_page, evidence = max(1, cfg.images_per_hit), cfg.policy.block_min_evidence
    if not cfg.policy.block_min_rate or per_page >= evidence:
        return []
    pages = math.ceil(evidence / per_page)
    more = "" if cfg.answers.control_share > 0 or cfg.answers.controls or cfg.attention.checks else \
        "; add control items ([answers] controls, control_share) or attention checks ([attention]) to judge sooner"
    items = "one item a page" if per_page == 1 else f"{per_page} items a page"
    return [f"gate: {items}: a worker's rates ({', '.join(sorted(cfg.policy.block_min_rate))}) judge them after "
            f"{pages} of their pages ([policy] block_min_evidence = {evidence}){more}"]


def attention_lines(cfg: CampaignConfig) -> list[str]:
    checks = len(cfg.attention.checks)
    if not checks:
        return []
    minutes = study_minutes(cfg)
    need = failures_to_reject(minutes)
    line = (f"gate: {checks} attention check(s) on every page; on a study of {minutes} min, {need} failed check(s) "
            "may reject (on every route, by Prolific's rule: 1 under 5 minutes, more than one from 5 on)")
    if checks < need:
        line += f"; with {checks} no submission can fail enough to be rejected: add a check for them to count"
    return [line]


def route_lines(cfg: CampaignConfig, platform: str) -> list[str]:
    """On a route with rejection grounds: what may reject, under which category, and what goes to a person."""
    route = platform_for(platform)
    if route.REJECTION_GROUNDS is None:
        return []
    policy = route_policy(cfg, platform)
    grounds = policy.reject_grounds or {}
    rejecting = [r for r in policy.reject_rules if r in grounds]
    held = [f"{r} (but for a required question left blank)" if r == PART_OF and SKIPPED_REQUIRED in rejecting else r
            for r in policy.reject_rules if r not in grounds]
    lines = [f"gate on {route.LABEL}: may reject (its valid grounds): " +
             (", ".join(f"{r} ({grounds[r]})" for r in rejecting) or "nothing")]
    if held:
        who = "a person decides them (review queue)" if cfg.review != "none" else \
            'with [policy] review = "none" nobody looks and they are approved; set review = "flagged" to decide them'
        lines.append(f"gate on {route.LABEL}: to a person, never a rejection (no ground {route.LABEL} allows): "
                     f"{', '.join(held)}; {who}")
    if "min_words" in cfg.policy.reject_rules and "min_words" not in grounds:
        lines.append(f"gate on {route.LABEL}: min_words is low effort only against a minimum the page states "
                     "(\"at least N words\"); this page does not state it")
    if FAST_GROUND not in policy.reject_rules:
        lines.append(f"gate on {route.LABEL}: speed rejects only as exceptionally_fast (3 standard deviations below "
                     "the study's mean; add it to [qc] rules and [policy] reject_rules); time_outlier never rejects "
                     "here")
    if cfg.attention.checks and ATTENTION_FAILED not in policy.reject_rules:
        lines.append(f"gate on {route.LABEL}: attention checks are scored but [policy] sends attention_failed to a "
                     "person")
    return lines


def control_pace_lines(cfg: CampaignConfig, limit: int | None = None, scale: int = 1) -> list[str]:
    """With control items: whether every page carries one, after how many pages each control rule can judge a
    worker, and the quiz."""
    if cfg.task != "custom" or cfg.answers.control_share <= 0 or not cfg.answers.controls:
        return []
    from flows.answers.control_items import read_controls
    from flows.answers.control_quiz import quiz_line, quiz_record
    from flows.campaigns.campaign_plan import item_plan
    from flows.custom.agreement_record import choice_facts

    known = set(read_controls(cfg)["item_id"].astype(str))  # type: ignore[index]
    pages: dict[tuple[int, int], int] = {}
    plan = item_plan(cfg, limit, scale)
    for r in plan:
        pages[(r["batch"], r["hit_index"])] = pages.get((r["batch"], r["hit_index"]), 0) + (r["item_id"] in known)
    bare, mean = sum(n == 0 for n in pages.values()), sum(pages.values()) / len(pages)
    a, size = cfg.answers, max(1, cfg.images_per_hit)
    quiz = quiz_line(quiz_record(cfg, plan, choice_facts(cfg, plan)[0]))
    if not mean:  # a short controls file went to the quiz whole
        return [f"gate: control items: no page carries one: the file's {len(known)} items serve the quiz whole (every "
                "worker answers a quiz's item, a page's reaches the few who take that page: docs/how-to/control-items"
                f".md); more control items put some on pages too; {quiz}"]
    alone = math.ceil(a.control_min_seen / max(min(pages.values()), mean))
    first = ("every page carries one, so a worker's first page does" if not bare else
             f"{bare} of {len(pages)} pages carry none, so a worker who starts on one meets a control later (more "
             "control items make one a page)")
    lines = [f"gate: control items: {first}; control_accuracy can stop a worker after {alone} of their pages (0 "
             f"right of the first {a.control_min_seen}) at the run's next look"]
    if a.control_pooling:  # a control counts 1 source, a page's other labels at most 1 together (worker_skill.py)
        per_page = mean + min(1.0, (size - mean) / a.control_page_labels) if a.control_page_labels else mean
        pooled = math.ceil(a.control_min_evidence / per_page - 1e-9)
        lines.append(f"gate: worker_skill (controls pooled with agreement) can judge a worker after {pooled} of "
                     "their pages, at the end of each batch and at the run's looks")
    return [*lines, f"gate: {quiz}"]

