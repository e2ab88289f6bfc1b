"""The decision policy as the route allows it (Prolific's rejection grounds)."""

from __future__ import annotations

from dataclasses import replace

from flows.core.config.config import CampaignConfig
from flows.core.errors import ConfigError
from flows.platforms.registry import platform_for
from qc.asked_limits import named_word_counts, stated_min_words
from qc.decisions import DecisionPolicy
from qc.skipped_required import PART_OF
from qc.skipped_required import RULE as SKIPPED_REQUIRED


def route_policy(cfg: CampaignConfig | None, platform: str, policy: DecisionPolicy | None = None) -> DecisionPolicy:
    """``policy`` (default ``cfg.policy``) with the route's rejection grounds."""
    policy = policy if policy is not None else cfg.policy if cfg is not None else DecisionPolicy()
    route = platform_for(platform)
    grounds = route.REJECTION_GROUNDS
    if grounds is None:
        return policy
    stated = {r for r in route.STATED_ON_PAGE
              if r in policy.reject_rules and cfg is not None and minimums_stated(cfg)}
    kept = {rule: category for rule, category in grounds.items() if rule not in route.STATED_ON_PAGE or rule in stated}
    # invalid_answer is no ground, its required-left-blank part is: that part rejects where the whole one did
    parts = (SKIPPED_REQUIRED,) if PART_OF in policy.reject_rules and SKIPPED_REQUIRED in kept else ()
    return replace(policy, reject_grounds=kept, reject_rules=tuple(dict.fromkeys((*policy.reject_rules, *parts))))


def word_minimums(cfg: CampaignConfig) -> set[int]:
    """Every minimum number of words the campaign's QC holds an answer to (the page's, each field's)."""
    fields = cfg.qc_params.get("fields") or {}
    found = {int(conf.get("min_words") or 0) for conf in fields.values() if isinstance(conf, dict)}
    if cfg.task != "custom" and cfg.study is None:
        found.add(cfg.submit_rules.min_words)
    return {n for n in found if n > 0}


def minimums_stated(cfg: CampaignConfig) -> bool:
    """Whether the page states every word minimum QC holds workers to."""
    minimums = word_minimums(cfg)
    return bool(minimums) and states_word_counts(page_text(cfg), minimums)


def states_word_counts(text: str, minimums: set[int]) -> bool:
    """``text`` names each of ``minimums`` (or a larger one) as a number of words."""
    named, page = named_word_counts(text), stated_min_words(text)
    return all(n in named or n <= page for n in minimums)


_PAGE_TEXT: dict[tuple[str, str, str, str], str] = {}


def page_text(cfg: CampaignConfig) -> str:
    """The visible text of the campaign's first page, item values masked, once a config."""
    key = (str(cfg.path), cfg.name, cfg.task, repr(cfg.submit_rules))
    if key not in _PAGE_TEXT:
        from flows.campaigns.campaign_plan import item_plan
        from flows.campaigns.page_text import visible_text
        from flows.campaigns.task_pages import task_page
        from flows.core.pages.templates import masked_rows

        first = [r for r in item_plan(cfg, limit=50) if r["batch"] == 1 and r["hit_index"] == 0]
        try:
            _PAGE_TEXT[key] = visible_text(task_page(cfg, masked_rows(first)))
        except ConfigError:  # a template that cannot render masked values states nothing it can be held to
            _PAGE_TEXT[key] = ""
    return _PAGE_TEXT[key]
