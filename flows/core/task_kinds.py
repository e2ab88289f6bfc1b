"""A task kind declared in one place (:class:`TaskKind`) and the registry."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flows.core.kind_registry import declare, known
from flows.core.prolific_times import prolific_min_maximum

if TYPE_CHECKING:
    from flows.core.config.config import CampaignConfig
    from flows.core.run.run_context import Run

# What a worker's answer to one field is, as a person reads it and as the plan times it
FIELD_KINDS = ("text", "formatted", "choice", "number", "date", "marks")

# Planning figures: seconds a field of each kind, and reading the instructions once (tests/test_time_models.py)
FIELD_SECONDS = {"text": 40, "formatted": 20, "choice": 6, "number": 8, "date": 10, "marks": 30}
READING_SECONDS = 30
# Pay where the config names none: 9.00 GBP (12.00 USD) an hour, 1.5 times Prolific's floor.
HOURLY = {"GBP": Decimal("9.00"), "USD": Decimal("12.00")}
# After a rehearsal, a tenth of the accepted work over this share of the time allowed: the limit is tight
NEAR_LIMIT = 0.5
# A unit whole minutes state over this share off is sized within it: the estimate's own error (people's median
# within a tenth of the plan) then keeps people within a quarter of the estimate
WHOLE_MINUTE_FIT = 0.15
SLOW_FACTOR = 3  # the maximum time a plan gives: three times the median, and never under Prolific's own minimum


@dataclass(frozen=True)
class AnswerField:
    """One thing a worker answers about an item (``name`` as the page names it, without its item index)."""

    name: str
    kind: str  # one of FIELD_KINDS
    options: tuple[str, ...] = ()
    clicked: bool = False  # a hidden value the page's own script writes (stars, a scale): timed as a choice


@dataclass(frozen=True)
class CardRow:
    """One item of one assignment as a review card shows it."""

    assignment_id: str
    item_id: str
    images: tuple[tuple[str, str], ...] = ()  # the item's pictures: (column or "", URL)
    shown: tuple[tuple[str, str], ...] = ()  # the item's other columns on the page: (column, value)
    answers: tuple[tuple[str, str, str, str], ...] = ()  # (field, kind, value, telemetry in words or "")
    known: tuple[tuple[str, str], ...] = ()  # a control item's (field, known answer)
    struck: bool = False
    wrong: tuple[str, ...] = ()  # the control's fields answered otherwise than known (as the control scores read it)


@dataclass(frozen=True)
class PlanDefaults:
    """What a plan takes from the kind where the config's ``[prolific]`` says nothing."""

    minutes: float  # a unit's median minutes, from its fields
    reward: Decimal | None = None  # per unit in the study's currency; None: HOURLY for ``minutes``
    estimated_minutes: int | None = None  # None: ``minutes`` to the nearest whole minute
    maximum_minutes: int | None = None  # None: SLOW_FACTOR times the estimate, at least Prolific's minimum
    kept_apart: str = ""  # why no more items may share a page than the config puts there ("": they may)


def unit_minutes(fields: list[AnswerField], items: int) -> float:
    """A unit's median minutes: the page read once, then every field of every item."""
    kinds = ["choice" if f.clicked else f.kind for f in fields]
    return (READING_SECONDS + items * sum(FIELD_SECONDS.get(k, FIELD_SECONDS["formatted"]) for k in kinds)) / 60


def least_maximum(minutes: float) -> int:
    """The least minutes to give a worker for a unit of median ``minutes`` (SLOW_FACTOR, Prolific's minimum)."""
    return max(prolific_min_maximum(minutes), math.ceil(SLOW_FACTOR * minutes))


def whole_minutes(minutes: float) -> int:
    """Prolific's whole minutes: the nearest, or the next up where the nearest understates by over a quarter."""
    nearest = max(1, math.floor(minutes + 0.5))
    return nearest + (minutes > 1.25 * nearest)


def whole_minute_fits(minutes: float, within: float = WHOLE_MINUTE_FIT) -> bool:
    """Whether a whole minute (:func:`whole_minutes`) states ``minutes`` within this share of it."""
    return abs(minutes / whole_minutes(minutes) - 1) <= within


def derived_times(plan: PlanDefaults) -> tuple[int, int]:
    """(estimated, maximum) minutes of the kind's unit; the maximum never under Prolific's least."""
    estimated = plan.estimated_minutes or whole_minutes(plan.minutes)
    slow = max(SLOW_FACTOR * estimated, least_maximum(plan.minutes))
    return estimated, max(plan.maximum_minutes or slow, prolific_min_maximum(estimated))


def derived_reward(plan: PlanDefaults, estimated: int, currency: str) -> Decimal:
    """The kind's own reward, or the hourly default for the estimated minutes, rounded up to a cent."""
    if plan.reward is not None:
        return plan.reward
    return (HOURLY[currency] * estimated / 60).quantize(Decimal("0.01"), rounding=ROUND_CEILING)


@dataclass(frozen=True)
class TaskKind:
    """One task kind's declaration. ``names``: the config's ``task`` values (or ``[study] kind``) it answers to."""

    names: tuple[str, ...]
    label: str  # how a person calls it: "caption task", "your own page", "expert rating study"
    unit_word: str  # what one answer of a worker is about: "caption", "answer", "judgement"
    done_key: str  # the outputs' summary key counting what came in: "captions", "judgements", "responses"
    fields: Callable[[CampaignConfig], list[AnswerField]]  # what a worker answers about one item
    # per review card (batch, worker, its own assignment or ""), at most n rows: (its rows, the worker's assignments)
    cards: Callable[[Run, list[tuple[int, str, str]], int], list[tuple[list[CardRow], int]]]
    plan: Callable[[CampaignConfig], PlanDefaults]
    qc: Callable[[Run, int], dict[str, Any]]  # the batch's QC step (flags into the ledger)
    outputs: Callable[..., dict[str, Any]]  # (run, out_dir, truth, platform_asked, items) -> summary
    page: Callable[..., str]  # (cfg, items, **extra) -> the page's HTML
    rules: Callable[[CampaignConfig, list[dict[str, Any]]], dict[str, Any]]  # the page's spec
    # the kind's items planned in batches and pages (None: the caption task's image items)
    item_plan: Callable[..., list[dict[str, Any]]] | None = None
    item_ids: Callable[[CampaignConfig], list[str]] | None = None  # the ordinary items' ids in file order
    dry_run_lines: Callable[[CampaignConfig], list[str]] = lambda cfg: []
    # (cfg, the simulator's crowd file, limit, scale): what a rehearsal's simulated answers say nothing about
    rehearsal_lines: Callable[[CampaignConfig, Path, int | None, int], list[str]] = lambda cfg, crowd, limit, scale: []
    qc_rules: tuple[str, ...] = ()  # a kind of one's own: the QC rules its config may name (default: these)
    policy: Any = None  # a kind of one's own: its default decision policy (qc.decisions.DecisionPolicy)
    template: Path | None = None  # a kind of one's own: its page, when not hit_templates/<name>.html.j2
    # what only some kinds do: "strikes", "tops_up", "asks_platform_for_outputs", "scales"
    extra: dict[str, Any] = field(default_factory=dict)


def register(kind: TaskKind) -> TaskKind:
    """Declare ``kind`` under each of its names (a second declaration of a name replaces the first)."""
    for name in kind.names:
        declare(name, kind)
    return kind


def declared(name: str) -> TaskKind | None:
    """The kind declared under ``name`` (the built-in kinds declared first), or None."""
    found: TaskKind | None = known(name)
    return found


def kind_name(cfg: CampaignConfig) -> str:
    """The name a config's kind is declared under: its study's kind, else its task."""
    return cfg.study.kind if cfg.study is not None else cfg.task
