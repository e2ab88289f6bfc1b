"""The ``[study]`` and ``[screen]`` sections of an evaluation study's config."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import Field

from flows.core.config.config_types import PositiveInt, Section
from flows.core.errors import InputFormatError
from flows.core.inputs.csv_files import read_csv_table
from flows.core.pages.templates import safe_url
from flows.core.study_kinds import COLUMNS, DEMOGRAPHICS, KINDS
from postprocess.screening import ScreenRules
from qc.decisions import DecisionPolicy

# choice_straight_lining, item_blind and page_straight_lining judge a worker's answers over the whole study
STUDY_RULES = ("invalid_answer", "too_fast", "straight_lining", "choice_straight_lining", "item_blind",
               "page_straight_lining")
STUDY_POLICY = DecisionPolicy(
    reject_rules=("invalid_answer",),
    block_min_flags={"invalid_answer": 1, "too_fast": 1, "straight_lining": 1, "choice_straight_lining": 1,
                     "item_blind": 1, "page_straight_lining": 1},
    review_rules=("malformed_answer",),  # an answer that could not be read: a person looks (qc/answer_faults.py)
    reject_feedback="Your answers broke the task's rules ({rules}), which the page checks before it lets anyone "
                    "submit, so they were sent around the page.",
)


class StudySection(Section):
    kind: str | None = Field(None, max_length=40, description="The evaluation page; must match [campaign].task")
    pairs_per_image: PositiveInt = Field(2, le=100, description="Pairwise grading: each image and reference shown "
                                                                "this many times in a row")
    min_seconds_per_task: float = Field(3.0, gt=0, le=3600, allow_inf_nan=False,
                                        description="QC: faster than this on average is not reading")
    straight_lining_min_tasks: PositiveInt = Field(8, le=10000, description="QC: the same answer to every task of "
                                                                            "a unit this long")
    analysis_level: Literal["nominal", "ordinal", "interval"] | None = Field(
        None, description="Krippendorff's alpha level (default: ordinal for ratings, else nominal)")


class ScreenSection(Section):
    exclude_colour_blind: bool = Field(True, description="Severity studies: screen out colour-blind participants")
    exclude_proficiency: list[Literal["native", "fluent", "intermediate", "beginner"]] = Field(
        ["beginner"], description="Language proficiency levels screened out")
    min_age: int = Field(18, ge=0, le=150, description="Youngest age kept")


@dataclass(frozen=True)
class StudySettings:
    kind: str
    pairs_per_image: int = 2  # pairwise grading: each image and reference shown this many times in a row
    min_seconds_per_task: float = 3.0  # QC: faster than this on average is not reading
    straight_lining_min_tasks: int = 8  # QC: the same answer to every task of a unit this long
    screen: ScreenRules = field(default_factory=ScreenRules)
    analysis_level: str = "ordinal"  # Krippendorff's alpha level for the study's labels


def study_settings(study: StudySection | None, screen: ScreenSection, task: str,
                   items_path: Path) -> StudySettings | None:
    """None for caption campaigns; ValueError("<key> <why>") names a [study] key that does not fit the task."""
    if task not in KINDS:
        if study is not None:
            raise ValueError(f"kind is only for the evaluation pages {', '.join(KINDS)} (task is {task!r})")
        return None
    study = study or StudySection()
    kind = study.kind or task
    if kind != task:
        raise ValueError(f"kind must match [campaign].task ({task!r})")
    read_study_items(items_path, kind)  # a malformed item file fails at load, naming the line
    level = study.analysis_level or ("ordinal" if kind in ("expert_rating", "severity_rating") else "nominal")
    return StudySettings(
        kind=kind, pairs_per_image=study.pairs_per_image, min_seconds_per_task=study.min_seconds_per_task,
        straight_lining_min_tasks=study.straight_lining_min_tasks,
        screen=ScreenRules(exclude_colour_blind=screen.exclude_colour_blind,
                           exclude_proficiency=tuple(screen.exclude_proficiency), min_age=screen.min_age,
                           fields=("age", *DEMOGRAPHICS)),  # what the page asks
        analysis_level=level)


def read_study_items(path: Path, kind: str) -> list[dict[str, str]]:
    """The item file, checked: the kind's columns, http(s) image URLs, no empty text."""
    need = COLUMNS[kind]
    table = read_csv_table(path, need, f"a {kind} item file").with_rows(f"the {kind} item file")
    rows = [{k: v.strip() for k, v in r.items()} for r in table.rows]
    for line, row in zip(table.lines, rows, strict=True):
        empty = [c for c in need if not row.get(c)]
        if empty:
            raise InputFormatError(f"{path}:{line}: empty {', '.join(empty)}; every row needs all of {', '.join(need)}")
        if safe_url(row["image_url"]) != row["image_url"] or not row["image_url"].startswith(("http://", "https://")):
            raise InputFormatError(f"{path}:{line}: image_url {row['image_url']!r} must be an http(s) URL")
    return rows
