"""Which task kind a campaign is (:func:`kind_of`), and the config as a run plans it."""

from __future__ import annotations

import dataclasses
from decimal import ROUND_CEILING, Decimal
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
    """``cfg`` with the ``[prolific]`` figures it leaves out taken from its kind (and its quiz's screening study)."""
    given = cfg.prolific.given
    if {"reward", "estimated_minutes", "maximum_minutes"} <= given:
        return screened(cfg, platform)
    try:
        plan = kind_of(cfg).plan(cfg)
        if platform and platform_facts(platform).WHOLE_MINUTES and "estimated_minutes" not in given:
            cfg, plan = whole_minute_unit(cfg, plan, platform)
    except HitflowError:  # a page that cannot be read yet: its own check says why (the dry run, the run's refusal)
        return cfg
    p = cfg.prolific
    if "estimated_minutes" in given:  # the config's median: the maximum and the pay follow it
        plan = dataclasses.replace(plan, estimated_minutes=p.estimated_minutes)
    estimated, maximum = derived_times(plan)
    maximum = p.maximum_minutes if "maximum_minutes" in given else maximum
    reward = p.reward if "reward" in given else derived_reward(plan, estimated, p.currency)
    kept = dataclasses.replace(p, reward=reward, estimated_minutes=estimated, maximum_minutes=maximum)
    return screened(dataclasses.replace(cfg, prolific=kept), platform)


def screened(cfg: CampaignConfig, platform: str) -> CampaignConfig:
    """A route paying a place by its estimate gives the control quiz a short study of its own, timed for the quiz
    alone and paid at the batches' hourly rate: its passers take the batches' places (a page no longer carries it).
    A page that keeps its items apart shows the quiz one control a page (flows/taskserver/quiz_pages.py), as its
    batches' places."""
    if not platform or not platform_facts(platform).WHOLE_MINUTES:
        return cfg
    try:
        size = quiz_items(cfg)
        quiz = dataclasses.replace(cfg, images_per_hit=size)
        plan = dataclasses.replace(kind_of(quiz).plan(quiz), maximum_minutes=None) if size else None
        if plan is not None and plan.kept_apart:  # the kind's plan times each of its pages as read on its own
            cfg = dataclasses.replace(cfg, notes=(*cfg.notes, f"note: on {platform_facts(platform).LABEL} the "
                                                  f"control quiz's screening study shows its {size} controls one a "
                                                  f"page, as its places: {plan.kept_apart}"))
    except HitflowError:
        return cfg
    if plan is None:
        return cfg
    p, (estimated, maximum) = cfg.prolific, derived_times(plan)
    reward = (p.reward * estimated / p.estimated_minutes).quantize(Decimal("0.01"), rounding=ROUND_CEILING)
    return dataclasses.replace(cfg, prolific=dataclasses.replace(p, screening=(reward, estimated, maximum)))


QUIZ_SIZES: dict[tuple[object, ...], int] = {}  # the planned quiz's size by the files as they stand on disk


def quiz_items(cfg: CampaignConfig) -> int:
    """The controls the plan's quiz asks (:func:`flows.answers.control_quiz.planned_quiz_size`: what the pages
    leave), read once while the items and controls files are unchanged."""
    from flows.answers.control_quiz import planned_quiz_size  # pandas: only on a route paying by the estimate

    kind = kind_of(cfg)
    planned = lambda: kind.item_plan(cfg, None) if kind.item_plan else []  # noqa: E731
    try:
        stats = [(str(p), (s := Path(p).stat()).st_mtime_ns, s.st_size) for p in (cfg.answers.controls, cfg.items)
                 if p]
    except OSError:
        return planned_quiz_size(cfg, planned)  # its own refusal says why
    key = (cfg.task, cfg.answers.control_share, cfg.answers.quiz, cfg.images_per_hit, cfg.batches, cfg.seed, *stats)
    if key not in QUIZ_SIZES:
        QUIZ_SIZES[key] = planned_quiz_size(cfg, planned)
    return QUIZ_SIZES[key]


def whole_minute_unit(cfg: CampaignConfig, plan: PlanDefaults, platform: str) -> tuple[CampaignConfig, PlanDefaults]:
    """On a whole-minute route, a place of the fewest items a minute holds where no time is stated."""
    n, label = cfg.images_per_hit, platform_facts(platform).LABEL
    if plan.estimated_minutes is not None or unit.whole_minute_fits(plan.minutes):
        return cfg, plan
    # the kind's own plan of k items: the page read once and each item's fields, or one page an item where the
    # page keeps its items apart (its place then shows them one a page: flows/taskserver/quiz_pages.py)
    for k in range(n + 1, 20 * n + 1):
        sized = dataclasses.replace(cfg, images_per_hit=k)
        if unit.whole_minute_fits((more := kind_of(sized).plan(sized)).minutes):
            break
    else:
        return cfg, plan
    off = lambda m: f"about {m:.1f} min, {m / unit.whole_minutes(m):.2f} of {unit.whole_minutes(m)} min"  # noqa: E731
    apart = f", shown one a page: {plan.kept_apart}" if plan.kept_apart else ""
    note = (f"note: on {label} a place holds {k} items, not the page's {n}: {label} states a study's time in whole "
            f"minutes (at least one); the page takes {off(plan.minutes)}, {k} items {off(more.minutes)}{apart}; "
            f"state estimated_minutes in [prolific] to keep {n} a place")
    return dataclasses.replace(sized, notes=(*cfg.notes, note)), more


def load_campaign(path: str | Path, platform: str = "") -> CampaignConfig:
    """The config as a run on ``platform`` plans it: :func:`flows.core.config.config.load_config`, :func:`planned`."""
    return planned(load_config(path), platform)
