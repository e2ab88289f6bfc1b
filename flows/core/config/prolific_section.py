"""The campaign config's [prolific] table, checked against Prolific's own rules."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Literal

from pydantic import Field, model_validator

from flows.core.config.config_types import Count, Money, Percent, PositiveInt, Section
from flows.core.config.gating_settings import ProlificSettings
from flows.core.prolific_times import prolific_min_maximum


class ProlificSection(Section):
    # Left out, reward and the two times come from the task kind (flows/core/task_kinds.py)
    reward: Money = Field(Decimal("0.90"), description='Per participant in `currency`, "0.90"; left out: 9.00 GBP '
                          "(12.00 USD) an hour of `estimated_minutes` on a page of your own")
    currency: Literal["GBP", "USD"] = Field("GBP", description="The study's currency")
    estimated_minutes: PositiveInt = Field(6, le=1440, description="Median minutes (Prolific's hourly-pay check); "
                                           "left out: from a page of your own's fields, a place holding whole "
                                           "minutes of its items (the dry run says)")
    maximum_minutes: PositiveInt = Field(30, le=1440, description="Prolific times a participant out after this; left "
                                         "out: 3 times the estimate, at least Prolific's least, on a page of your own")
    device_compatibility: list[Literal["desktop", "tablet", "mobile"]] = Field(
        ["desktop"], min_length=1, description="Devices participants may use")
    completion_base: str = Field("https://app.prolific.com/submissions/complete?cc=", pattern=r"^https://\S+$",
                                 max_length=2000, description="Completion URL before the code")
    min_approval_rate: Percent = Field(95, description="Prolific filter: approval rate at least this (0-100)")
    min_approvals: Count = Field(0, le=10**9, description="Prolific filter: approved submissions at least this")

    @model_validator(mode="after")
    def _maximum_covers_estimate(self) -> ProlificSection:
        if not {"estimated_minutes", "maximum_minutes"} <= self.model_fields_set:
            return self  # one from the task kind's page: the dry run checks the pair (flows/campaigns/task_kinds.py)
        shortest = prolific_min_maximum(self.estimated_minutes)
        if self.maximum_minutes < shortest:
            raise ValueError(f"maximum_minutes must be at least {shortest} for estimated_minutes = "
                             f"{self.estimated_minutes} (Prolific's minimum: 2 + X + 2*sqrt(X)); raise it")
        return self

    @model_validator(mode="after")
    def _pays_the_hourly_floor(self) -> ProlificSection:
        if not {"reward", "estimated_minutes"} <= self.model_fields_set:
            return self  # one from the task kind's page: the dry run and the study's publication check the pair
        floor = PROLIFIC_MIN_HOURLY[self.currency]
        hourly = self.reward * 60 / self.estimated_minutes
        if hourly < floor:
            least = math.ceil(floor * self.estimated_minutes / 60 * 100) / 100
            raise ValueError(f"reward {self.reward} {self.currency} for {self.estimated_minutes} minutes pays "
                             f"{hourly:.2f} {self.currency}/hour, below Prolific's minimum of {floor}; raise "
                             f"reward to at least {least:.2f}")
        return self


# Prolific's minimum reward per hour on the estimated time: "£6 / $8 per hour" (its documentation).
PROLIFIC_MIN_HOURLY = {"GBP": Decimal("6.00"), "USD": Decimal("8.00")}


def prolific_settings(sec: ProlificSection) -> ProlificSettings:
    """The campaign's Prolific figures, and which of them the config gave (``given``: the rest came from the page)."""
    return ProlificSettings(**sec.model_dump(exclude={"device_compatibility"}),
                            device_compatibility=tuple(sec.device_compatibility), given=frozenset(sec.model_fields_set))
