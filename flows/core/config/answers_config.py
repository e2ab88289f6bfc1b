"""The ``[answers]`` table: how several workers' choices become one answer per item."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from flows.core.config.config_types import Section, Share
from postprocess.answers.skill_prior import (
    ACCURACY_MAX,
    ACCURACY_MIN,
    TYPICAL_WEIGHT_MAX,
    TYPICAL_WEIGHT_MIN,
    WEIGHT_MIN,
)

# [answers] control_share where a controls file is named and no share set: the quiz and a control a page judge a
# worker before their work counts, where controls left in place reach a worker late or never
OWN_CONTROLS_SHARE = 0.1
# postprocess.answers.CHOICES (a test keeps them equal)
Method = Literal["auto", "mv", "ds", "glad", "mace", "one-coin", "skill"]


class AnswersSection(Section):
    method: Method = Field("auto", description="mv, ds (Dawid-Skene), glad, mace, one-coin, skill (Dawid-Skene "
                                               "with skill_prior on every worker: the model adaptive overlap stops "
                                               "on), or auto: per field, majority vote or Dawid-Skene, whichever "
                                               "predicts held-out labels better (majority vote without a test "
                                               "below min_per_worker labels a worker on average), or worker-coin "
                                               "(one accuracy a worker) where it predicts them two standard "
                                               "errors better")
    min_per_worker: float = Field(3.0, ge=0, le=100000, allow_inf_nan=False,
                                  description="auto: labels per worker on average below which majority vote is used "
                                              "without testing Dawid-Skene")
    blocked: Literal["drop", "keep"] = Field("drop", description="A blocked worker's approved labels: drop them, or "
                                                                 "keep them (the model weighs each worker by skill)")
    threshold: Share = Field(0.9, description="The report lists items whose answer's confidence is below this")
    min_judgements: int = Field(0, ge=0, le=1000, description="Adaptive overlap (task = \"custom\", every route): "
                                "ask this many judgements per item first, then more only where the answer is "
                                "uncertain; 0: off, every item gets [campaign] assignments_per_image")
    max_judgements: int = Field(0, ge=0, le=1000, description="Adaptive overlap: at most this many judgements per item "
                                "(the budget is checked for this many everywhere)")
    confidence: Share = Field(0.98, description="Adaptive overlap: an item gets another judgement while the "
                              "probability of its answer, each worker weighed by their skill so far (answers.csv's "
                              "confidence), is below this")
    skill_prior: float = Field(0.7, ge=ACCURACY_MIN, le=ACCURACY_MAX, allow_inf_nan=False,
                               description="Adaptive overlap: the accuracy a worker is assumed to have before "
                               "their own judgements say otherwise (it weighs their answers while they have few)")
    skill_prior_weight: float = Field(4.0, ge=WEIGHT_MIN, le=1000, allow_inf_nan=False,
                                      description="Adaptive overlap: how many judgements skill_prior is worth "
                                      "against a worker's own record")
    crowd_prior_weight: float = Field(0.0, ge=0, le=100000, allow_inf_nan=False,
                                      description="Adaptive overlap: above 0, a worker not yet seen is assumed to "
                                      "be as accurate as the crowd so far (a one-coin fit to the judgements "
                                      "received), skill_prior counting as this many judgements against it; 0: "
                                      "skill_prior itself")
    typical_prior_weight: float = Field(0.0, ge=0, le=TYPICAL_WEIGHT_MAX, allow_inf_nan=False,
                                        description="Adaptive overlap: above 0, a worker whose record so far fits "
                                        "the crowd's typical worker (as accurate as its median worker) is shrunk "
                                        "toward that worker, worth this many judgements per true label; one whose "
                                        "record does not fit (spammers, adversaries) keeps skill_prior alone. 12 "
                                        "suits crowds that build records (MTurk-style); 0: off")
    fast_share: Share = Field(0.0, lt=1, description="Adaptive overlap with crowd_prior_weight: a worker whose median "
                              "time on an assignment is below this share of the crowd's median is not assumed as "
                              "accurate as the crowd but as the fast workers so far (their own one-coin fit); 0: "
                              "one crowd")
    stop_when_settled: bool = Field(True, description="Adaptive overlap: an item also stops once the judgements "
                                    "it may still get (up to max_judgements), each as telling as a worker not yet "
                                    "known, could at best tie its answer: they would buy nothing")
    top_up_rounds: int = Field(0, ge=0, le=10, description="Rounds in which an item short of "
                               "assignments_per_image accepted answers after QC gets more assignments (0: none)")
    controls: str = Field("", max_length=1000, description='task = "custom": CSV of control items (item_id, field, '
                                                           'answer, and the page\'s item columns for those not in '
                                                           "your items): each worker is scored on them; they stay "
                                                           "out of the dataset and the answers")
    control_share: Share = Field(0.0, lt=1, description="The share of every batch's items that are control items, "
                                                         "spread over its pages (with share x images_per_hit >= 1 "
                                                         "at least one a page) at random places on each (left "
                                                         "out with controls: 0.1; 0: controls stay where the "
                                                         "items file has them, no quiz)")
    quiz: int = Field(15, ge=0, le=50, description="With control_share: control items, set apart from the controls "
                      "file before the batches take theirs (at least 10 where the file is short for both), on a "
                      "worker's first page (links, Prolific) or in the MTurk qualification test they take before any "
                      "HIT (docs/how-to/control-items.md); 0: no quiz")
    control_min_seen: int = Field(3, ge=1, le=100000, description="Control answers a worker gives before their "
                                                                  "control accuracy can block them")
    control_block_below: Share = Field(0.5, description="Block a worker whose control accuracy is below this "
                                                        "(with posterior probability over 1 - control_alpha); 0: "
                                                        "never block on it")
    control_alpha: Share = Field(0.05, description="Block on control answers when the posterior probability "
                                 "(Jeffreys prior) that the worker's accuracy reaches control_block_below is below "
                                 "this (postprocess/answers/control_items.py); 0: the older rule, a Wilson bound at "
                                 "control_confidence")
    control_pooling: bool = Field(True, description='task = "custom" with controls: pool each worker\'s control '
                                  "answers with their agreement with the other workers' answer on the page's "
                                  "choice fields, one posterior of their accuracy "
                                  "(postprocess/answers/worker_skill.py) blocking below control_block_below at "
                                  "control_alpha; false: control answers alone (control_min_seen)")
    control_page_labels: float = Field(5.0, ge=0, le=1000, allow_inf_nan=False,
                                       description="control_pooling: what one page's ordinary labels weigh "
                                                   "together at most, in labels (its workers judge them all)")
    control_min_evidence: float = Field(2.0, ge=0, le=1000, allow_inf_nan=False,
                                        description="control_pooling: independent sources a worker needs "
                                                    "before a block (a control 1, a page's other items 1)")
    control_confidence: float = Field(1.645, ge=0, le=5, allow_inf_nan=False,
                                      description="z of the Wilson bound of the wrong share (0: the plain share) "
                                                  "of agreement blocks, and of control blocks with control_alpha 0")
    agreement_block_below: Share = Field(0.0, description='task = "custom": block a worker whose agreement with the '
                                         "other workers' answer (a strict majority of the others on an item) is "
                                         "below this (its bound at control_confidence); 0: never block on it")
    agreement_min_items: int = Field(6, ge=1, le=100000, description="Labels of a worker judged against the "
                                     "others' answer before their agreement can block them")
    agreement_min_others: int = Field(3, ge=2, le=1000, description="Other workers' labels an item needs before "
                                      "it judges a worker's label")

    @field_validator("typical_prior_weight")
    @classmethod
    def _none_or_some_weight(cls, weight: float) -> float:
        if 0 < weight < TYPICAL_WEIGHT_MIN:  # postprocess.answers.skill_prior: every confidence would be NaN
            raise ValueError(f"give 0 (none) or at least {TYPICAL_WEIGHT_MIN:g} judgements")
        return weight


class AnswersSettings(AnswersSection):
    """The table as the run reads it: keys and defaults, ``controls`` resolved, and ``fixed_overlap``."""

    controls: Path | None = None  # type: ignore[assignment]
    fixed_overlap: int = 0

    @property
    def adaptive(self) -> bool:
        return self.min_judgements > 0


def adaptive_check(section: AnswersSection, task: str, per_item: int) -> str:
    """Why ``[answers]``' adaptive keys cannot run ("" when they can, or are off)."""
    if section.top_up_rounds and section.min_judgements:
        return "top_up_rounds with min_judgements: adaptive overlap already asks for more where an item needs it"
    if not section.min_judgements:
        return "max_judgements needs min_judgements (the judgements asked first)" if section.max_judgements else ""
    if task != "custom":
        return "min_judgements (adaptive overlap) runs on custom pages (task = \"custom\") only so far"
    if section.max_judgements < section.min_judgements:
        return (f"max_judgements {section.max_judgements} is below min_judgements {section.min_judgements}: set it "
                f"to the most judgements an item may get (e.g. {per_item})")
    if section.min_judgements < 10 <= section.max_judgements:
        return ("min_judgements under 10 with max_judgements 10 or more: MTurk cannot extend a HIT created with "
                "fewer than 10 assignments to 10 or more; keep max_judgements at 9 or start at 10")
    return ""


def answers_settings(section: AnswersSection, fixed_overlap: int, controls: Path | None,
                     items: Path | None = None) -> AnswersSettings:
    """The table as the run reads it; ``fixed_overlap``: [campaign] assignments_per_image."""
    share = section.control_share
    if controls and items and "control_share" not in section.model_fields_set:
        share = OWN_CONTROLS_SHARE
    return AnswersSettings(**section.model_dump(exclude={"controls", "control_share"}), control_share=share,
                           fixed_overlap=fixed_overlap, controls=controls)

