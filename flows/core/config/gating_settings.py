"""Who may work and how a Prolific study is set up, as the run reads them ([gating], [prolific])."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path


@dataclass(frozen=True)
class Gating:
    min_hits_approved: int = 500
    min_percent_approved: int = 95
    locale: str = ""
    soft_block_qualification: str = ""
    block_mode: str = "soft"
    qualification_key: Path | None = None  # a scored test (MTurk-native Test + AnswerKey) gates the HITs
    qualification_min_score: int = 80
    qualification_retry_delay_s: int = 86400
    # mturk_test: MTurk scores a QuestionForm Test; html_hit: a paid HIT hitflow scores itself
    qualification_mode: str = "mturk_test"
    qualification_reward: Decimal = Decimal("0.00")
    qualification_takers: int = 0  # MaxAssignments of the paid test HIT
    qualification_images: Path | None = None  # CSV item_id, url for the judging items


@dataclass(frozen=True)
class ProlificSettings:
    """How the campaign runs as Prolific studies (one per batch); money in the study's currency."""

    reward: Decimal = Decimal("0.90")  # per participant (one unit of items)
    currency: str = "GBP"
    estimated_minutes: int = 6
    maximum_minutes: int = 30
    device_compatibility: tuple[str, ...] = ("desktop",)
    completion_base: str = "https://app.prolific.com/submissions/complete?cc="
    min_approval_rate: int = 95
    min_approvals: int = 0
    # the keys the config's [prolific] sets; the others come from the task kind's plan defaults
    given: frozenset[str] = frozenset({"reward", "estimated_minutes", "maximum_minutes"})
    # the control quiz's own screening study (reward, estimated and maximum minutes), planned where there is a quiz
    screening: tuple[Decimal, int, int] | None = None
