"""The rules a config names and its ``[policy]``, checked, and the DecisionPolicy built."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from flows.core.config.config_file import fail, nearest
from flows.core.config.config_schema import PolicySection
from flows.core.config.study_config import STUDY_POLICY, STUDY_RULES
from flows.core.errors import shown
from qc.answer_faults import ALWAYS_ON
from qc.decisions import REVIEW_ONLY_WHY, SUBMIT_RULES, DecisionPolicy, caption_policy, review_only_misused
from qc.flags import RULES
from qc.runner import DEFAULT_RULES
from qc.timing_rules import REVIEW_ONLY_FLAGS


def check_policy_rules_run(path: Path, sec: PolicySection, qc_rules: tuple[str, ...]) -> None:
    """A rule the policy names must be one QC runs (only keys the file sets), or the policy does nothing."""
    for key in ("reject_rules", "review_rules"):
        named = getattr(sec, key) if key in sec.model_fields_set else None
        idle = [rule for rule in (named or ()) if rule in RULES and rule not in qc_rules and rule not in ALWAYS_ON]
        if idle:
            raise fail(path, "policy", key, f"names {shown(idle[0])}, which [qc].rules does not run; add it "
                       "to [qc] extend (or take it out of [qc] ignore) or take it out of the policy")


def _rule_names(is_study: bool) -> tuple[str, ...]:
    """The task's rules first, then every other registered rule (and the page's submit rules)."""
    base = STUDY_RULES if is_study else DEFAULT_RULES
    return base + tuple(sorted((set(RULES) | set(SUBMIT_RULES) | set(REVIEW_ONLY_FLAGS)) - set(base)))


def check_rules(path: Path, section: str, key: str, rules: Iterable[str], is_study: bool) -> None:
    known = _rule_names(is_study)
    for rule in rules:
        if rule not in known:
            raise fail(path, section, key, f"names unknown rule {shown(rule)}; {nearest(rule, list(known))}")


def _known_rules(path: Path, section: str, key: str, rules: list[str] | None, is_study: bool,
                 default: tuple[str, ...]) -> tuple[str, ...]:
    if rules is None:
        return default
    check_rules(path, section, key, rules, is_study)
    return tuple(rules)


def decision_policy(path: Path, sec: PolicySection, is_study: bool,
                    default: DecisionPolicy | None = None) -> DecisionPolicy:
    """Caption campaigns block on rates over the campaign (``block_min_rate``), else on counts per batch."""
    default = default or (STUDY_POLICY if is_study else caption_policy())
    block = default.block_min_flags if sec.block_min_flags is None else sec.block_min_flags
    check_rules(path, "policy", "block_min_flags", block, is_study)
    counts_only = sec.block_min_flags is not None and "block_min_rate" not in sec.model_fields_set
    rates = {} if counts_only else (sec.block_min_rate if "block_min_rate" in sec.model_fields_set
                                    else default.block_min_rate)
    check_rules(path, "policy", "block_min_rate", rates, is_study)
    reject = _known_rules(path, "policy", "reject_rules", sec.reject_rules, is_study, default.reject_rules)
    review = _known_rules(path, "policy", "review_rules", sec.review_rules, is_study, default.review_rules)
    misused = review_only_misused({"reject_rules": reject, "block_min_flags": block, "block_min_rate": rates})
    if misused:  # a slow worker: for a person to look at, never a reject or block (qc/timing_rules.py)
        raise fail(path, "policy", misused[0], f"names {shown(misused[1])}, {REVIEW_ONLY_WHY}")
    # an answer that could not be read is rejected only when the config says so; otherwise a person looks
    review += tuple(r for r in (*ALWAYS_ON, *REVIEW_ONLY_FLAGS) if r not in reject and r not in review)
    return DecisionPolicy(
        reject_rules=reject,
        block_min_flags=dict(block), block_min_rate={k: float(v) for k, v in rates.items()},
        block_counts_beside_rates=default.block_counts_beside_rates, block_min_evidence=sec.block_min_evidence,
        block_rate_confidence=sec.block_rate_confidence
        if "block_rate_confidence" in sec.model_fields_set else default.block_rate_confidence,
        review_rules=review,
        reject_feedback=default.reject_feedback, hold_share=float(sec.hold_share))
