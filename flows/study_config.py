"""The ``[study]`` and ``[screen]`` sections of a human-evaluation study's config.

A study is a campaign whose ``[campaign].task`` names one of the five evaluation pages; it
reuses the campaign's fields (``images_per_hit`` = tasks per unit, ``assignments_per_image`` =
responses per unit) and adds what only studies have.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flows.study_plan import DEMOGRAPHICS, KINDS, read_study_items
from postprocess.screening import ScreenRules
from qc.decisions import DecisionPolicy

STUDY_RULES = ("invalid_answer", "too_fast", "straight_lining")
STUDY_POLICY = DecisionPolicy(
    reject_rules=("invalid_answer",),
    block_min_flags={"invalid_answer": 1, "too_fast": 1, "straight_lining": 1},
    review_rules=(),
    reject_feedback="Your answers broke the task's rules ({rules}), which the page checks before it lets anyone "
                    "submit, so they were sent around the page.",
)


@dataclass(frozen=True)
class StudySettings:
    kind: str
    pairs_per_image: int = 2  # pairwise grading: each image and reference shown this many times in a row
    min_seconds_per_task: float = 3.0  # QC: faster than this on average is not reading
    straight_lining_min_tasks: int = 8  # QC: the same answer to every task of a unit this long
    screen: ScreenRules = field(default_factory=ScreenRules)
    analysis_level: str = "ordinal"  # Krippendorff's alpha level for the study's labels


def study_settings(study: Any, screen: Any, task: str, items_path: Any) -> StudySettings | None:
    """``study``/``screen`` are the config's ``_Section`` readers; None for caption campaigns."""
    if task not in KINDS:
        if study.data:
            raise study.fail("kind", f"is only for the evaluation pages {', '.join(KINDS)} (task is {task!r})")
        return None
    kind = study.get("kind", str, task)
    if kind != task:
        raise study.fail("kind", f"must match [campaign].task ({task!r})")
    read_study_items(items_path, kind)  # a malformed item file fails at load, naming the line
    level = study.get("analysis_level", str, "ordinal" if kind in ("expert_rating", "severity_rating") else "nominal")
    if level not in ("nominal", "ordinal", "interval"):
        raise study.fail("analysis_level", f"must be nominal, ordinal or interval (got {level!r})")
    proficiency = screen.get("exclude_proficiency", list, ["beginner"])
    return StudySettings(
        kind=kind, pairs_per_image=study.positive("pairs_per_image", 2),
        min_seconds_per_task=float(study.get("min_seconds_per_task", float, 3.0)),
        straight_lining_min_tasks=study.positive("straight_lining_min_tasks", 8),
        screen=ScreenRules(exclude_colour_blind=screen.get("exclude_colour_blind", bool, True),
                           exclude_proficiency=tuple(proficiency), min_age=screen.get("min_age", int, 18),
                           fields=("age", *DEMOGRAPHICS)),  # what the page asks
        analysis_level=level)
