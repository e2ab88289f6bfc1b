"""Which task kind a campaign is (:func:`kind_of`), and the config as a run plans it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from flows.core import task_kinds as unit
from flows.core.config.config import CampaignConfig, load_config
from flows.core.errors import ConfigError, HitflowError
from flows.core.task_kinds import PlanDefaults, TaskKind, declared, derived_reward, derived_times, kind_name
from flows.platforms.registry import platform_facts


def kind_of(cfg: CampaignConfig) -> TaskKind:
    """The campaign's declared kind; a name no kind is declared under is refused in one line."""
    kind = declared(kind_name(cfg))
    if kind is None:
        raise ConfigError(f"{cfg.path}: no task kind {kind_name(cfg)!r} is declared; declare it with "
                          "flows.core.task_kinds.register before its config is loaded")
    return kind


def planned(cfg: CampaignConfig, platform: str = "") -> CampaignConfig:
    """``cfg`` with the ``[prolific]`` figures it leaves out taken from its kind."""
    given = cfg.prolific.given
    if {"reward", "estimated_minutes", "maximum_minutes"} <= given:
        return cfg
    try:
        plan = kind_of(cfg).plan(cfg)
        if platform and platform_facts(platform).WHOLE_MINUTES and "estimated_minutes" not in given:
            cfg, plan = first_place_with_quiz(*whole_minute_unit(cfg, plan, platform), platform)
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


def whole_minute_unit(cfg: CampaignConfig, plan: PlanDefaults, platform: str) -> tuple[CampaignConfig, PlanDefaults]:
    """On a whole-minute route, a place of the fewest items a minute holds where no time is stated."""
    n, label = cfg.images_per_hit, platform_facts(platform).LABEL
    if plan.estimated_minutes is not None or unit.whole_minute_fits(plan.minutes, unit.WHOLE_MINUTE_OFF):
        return cfg, plan
    for k in range(n + 1, 20 * n + 1):  # the kind's own plan of k items: the page read once, each item's fields
        sized = dataclasses.replace(cfg, images_per_hit=k)
        if unit.whole_minute_fits((more := kind_of(sized).plan(sized)).minutes):
            break
    else:
        return cfg, plan
    off = lambda m: f"about {m:.1f} min, {m / unit.whole_minutes(m):.2f} of {unit.whole_minutes(m)} min"  # noqa: E731
    note = (f"note: on {label} a place holds {k} items, not the page's {n}: {label} states a study's time in whole "
            f"minutes (at least one); the page takes {off(plan.minutes)}, {k} items {off(more.minutes)}; state "
            f"estimated_minutes in [prolific] to keep {n} a place")
    return dataclasses.replace(sized, notes=(*cfg.notes, note)), more


def first_place(cfg: CampaignConfig, platform: str) -> CampaignConfig:
    """``cfg`` sized as the unit whose time ``platform`` states (a first place with the quiz, where paid so)."""
    if not platform_facts(platform).WHOLE_MINUTES:
        return cfg
    from flows.answers.control_quiz import largest_quiz  # pandas: only on a route paying by the estimate

    quiz = largest_quiz(cfg)
    return dataclasses.replace(cfg, images_per_hit=cfg.images_per_hit + quiz) if quiz else cfg


def first_place_with_quiz(cfg: CampaignConfig, plan: PlanDefaults, platform: str
                          ) -> tuple[CampaignConfig, PlanDefaults]:
    """A route that pays a place by its estimate serves the control quiz on a worker's first place."""
    longest = first_place(cfg, platform)
    quiz = longest.images_per_hit - cfg.images_per_hit
    if not quiz:
        return cfg, plan
    minutes = kind_of(longest).plan(longest).minutes
    note = (f"note: on {platform_facts(platform).LABEL} a worker's first place also holds the control quiz (up to "
            f"{quiz} items): the estimate covers that place, about {minutes:.1f} min against {plan.minutes:.1f} min "
            "for a later one, so no first place is underpaid")
    return dataclasses.replace(cfg, notes=(*cfg.notes, note)), dataclasses.replace(plan, minutes=minutes)


def load_campaign(path: str | Path, platform: str = "") -> CampaignConfig:
    """The config as a run on ``platform`` plans it: :func:`flows.core.config.config.load_config`, :func:`planned`."""
    return planned(load_config(path), platform)
