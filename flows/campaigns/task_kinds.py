"""Which task kind a campaign is (flows/core/task_kinds.py declares the shape; the built-in kinds' modules
are loaded by flows/core/kind_registry.py when first asked), and the config as a run plans it: the
Prolific figures its ``[prolific]`` leaves out taken from its kind. Review cards, reports, dry runs,
plans and the driver ask :func:`kind_of`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from flows.core.config.config import CampaignConfig, load_config
from flows.core.errors import ConfigError, HitflowError
from flows.core.task_kinds import TaskKind, declared, derived_reward, derived_times, kind_name


def kind_of(cfg: CampaignConfig) -> TaskKind:
    """The campaign's declared kind; a name no kind is declared under is refused in one line."""
    kind = declared(kind_name(cfg))
    if kind is None:
        raise ConfigError(f"{cfg.path}: no task kind {kind_name(cfg)!r} is declared; declare it with "
                          "flows.core.task_kinds.register before its config is loaded")
    return kind


def planned(cfg: CampaignConfig) -> CampaignConfig:
    """``cfg`` with the Prolific figures its ``[prolific]`` leaves out taken from its kind: the reward, the
    estimated and the maximum minutes of one unit, from the page's fields (flows/core/task_kinds.py)."""
    given = cfg.prolific.given
    if {"reward", "estimated_minutes", "maximum_minutes"} <= given:
        return cfg
    try:
        plan = kind_of(cfg).plan(cfg)
    except HitflowError:  # a page that cannot be read yet: its own check says why (the dry run, the run's refusal)
        return cfg
    p = cfg.prolific
    if "estimated_minutes" in given:  # the config's median: the maximum and the pay follow it
        plan = dataclasses.replace(plan, estimated_minutes=p.estimated_minutes)
    estimated, maximum = derived_times(plan)
    maximum = p.maximum_minutes if "maximum_minutes" in given else maximum
    reward = p.reward if "reward" in given else derived_reward(plan, estimated, p.currency)
    kept = dataclasses.replace(p, reward=reward, estimated_minutes=estimated, maximum_minutes=maximum)
    return dataclasses.replace(cfg, prolific=kept)


def load_campaign(path: str | Path) -> CampaignConfig:
    """The config as a run plans it: :func:`flows.core.config.config.load_config` and then :func:`planned`."""
    return planned(load_config(path))
