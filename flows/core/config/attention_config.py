"""The ``[attention]`` table: fair instructed-response checks on every page."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pydantic import Field, model_validator

from flows.core.config.config_types import Count, NonEmptyText, PositiveInt, Section
from qc.attention_checks import BUILT_IN, FAILED, MISSED, AttentionCheck, unfair_reason
from qc.decisions import DecisionPolicy


class AttentionItem(Section):
    instruction: NonEmptyText = Field(description="The question, naming the answer to give: \"For this question, "
                                                  "choose 'Strongly disagree'.\"")
    options: list[NonEmptyText] = Field(min_length=2, max_length=7, description="The choices shown")
    answer: NonEmptyText = Field(description="The option the instruction asks for")

    @model_validator(mode="after")
    def _fair(self) -> AttentionItem:
        why = unfair_reason(AttentionCheck(self.instruction, tuple(self.options), self.answer))
        if why:
            raise ValueError(f"the check {self.instruction[:60]!r} is not a fair instructed-response item: {why}")
        return self


class PageCheck(Section):
    field: NonEmptyText = Field(description="The page's own field (its name without the item's _{{ i }})")
    answer: NonEmptyText = Field(description="The value its question tells workers to submit")


class AttentionSection(Section):
    checks: list[AttentionItem] = Field(default_factory=list, max_length=10, description="Checks of your own, "
                                        "placed at the end of every page (each a fair instructed-response item)")
    count: Count = Field(0, le=len(BUILT_IN), description="Without `checks`: this many of hitflow's own checks on "
                                                          "every page (0: none)")
    page_checks: list[PageCheck] = Field(default_factory=list, max_length=10, description="The page's own "
                                         "instructed-response questions (`hitflow new --from` writes those it finds): "
                                         "scored as checks, kept out of the answers")
    study_minutes: PositiveInt | None = Field(None, le=1440, description="The study's length that sets how many "
                                              "failed checks may reject (1 under 5 minutes, else 2); left out: "
                                              "[prolific] estimated_minutes")

    @model_validator(mode="after")
    def _one_source(self) -> AttentionSection:
        if self.checks and self.count:
            raise ValueError("count and checks are exclusive: give your own checks, or a count of hitflow's")
        return self


@dataclass(frozen=True)
class AttentionSettings:
    checks: tuple[AttentionCheck, ...] = ()  # hitflow's to render first, then the page's own (``field``)
    study_minutes: int | None = None  # None: the campaign's [prolific] estimated_minutes

    @property
    def page_checks(self) -> dict[str, str]:
        """The page's own checks: field -> the answer its question asks (scored apart, no answer of the task)."""
        return {c.field: c.answer for c in self.checks if c.field}


def attention_settings(sec: AttentionSection) -> AttentionSettings:
    own = tuple(AttentionCheck(c.instruction, tuple(c.options), c.answer) for c in sec.checks)
    on_page = tuple(AttentionCheck("", (), c.answer, c.field) for c in sec.page_checks)
    return AttentionSettings(checks=(own or BUILT_IN[:sec.count]) + on_page, study_minutes=sec.study_minutes)


def attention_policy(policy: DecisionPolicy, checks: bool) -> DecisionPolicy:
    """With attention checks: enough failures reject, a second such submission blocks, fewer ask a person."""
    if not checks or FAILED in policy.review_rules:
        return policy
    return replace(policy, reject_rules=tuple(dict.fromkeys((*policy.reject_rules, FAILED))),
                   block_min_flags={FAILED: 2, **policy.block_min_flags},
                   review_rules=tuple(dict.fromkeys((*policy.review_rules, MISSED))))
