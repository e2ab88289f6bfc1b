"""The ``[answers]`` table: how a campaign turns several workers' choices into one answer per item
(postprocess/answers.py; docs/reference/outputs.md#answers-and-worker-skill)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from flows.core.config.config_types import Section, Share

# postprocess.answers.CHOICES (a test keeps them equal)
Method = Literal["auto", "mv", "ds", "glad", "mace", "one-coin"]


class AnswersSection(Section):
    method: Method = Field("auto", description="mv, ds (Dawid-Skene), glad, mace, one-coin, or auto: majority vote "
                                               "when workers gave fewer than min_per_worker labels on average, "
                                               "else Dawid-Skene")
    min_per_worker: float = Field(3.0, ge=0, le=100000, allow_inf_nan=False,
                                  description="auto: labels per worker on average from which Dawid-Skene is used")
    blocked: Literal["drop", "keep"] = Field("drop", description="A blocked worker's approved labels: drop them, or "
                                                                 "keep them (the model weighs each worker by skill)")
    threshold: Share = Field(0.9, description="The report lists items whose answer's confidence is below this")
    controls: str = Field("", max_length=1000, description='task = "custom": CSV of control items (item_id, field, '
                                                           'answer, and the page\'s item columns for those not in '
                                                           "your items): each worker is scored on them; they stay "
                                                           "out of the dataset and the answers")
    control_share: Share = Field(0.0, lt=1, description="The share of every batch's items that are control items, "
                                                         "placed at random among them (0: controls stay where the "
                                                         "items file has them)")
    control_min_seen: int = Field(4, ge=1, le=100000, description="Control answers a worker gives before their "
                                                                  "control accuracy can block them")
    control_block_below: Share = Field(0.5, description="Block a worker whose control accuracy is below this "
                                                        "(its bound at control_confidence); 0: never block on it")
    control_confidence: float = Field(1.645, ge=0, le=5, allow_inf_nan=False,
                                      description="z of the Wilson bound of the wrong share (0: the plain share)")


@dataclass(frozen=True)
class AnswersSettings:
    method: str = "auto"
    min_per_worker: float = 3.0
    blocked: str = "drop"
    threshold: float = 0.9
    controls: Path | None = None  # [answers] controls, resolved against the config's folder
    control_share: float = 0.0
    control_min_seen: int = 4
    control_block_below: float = 0.5
    control_confidence: float = 1.645
