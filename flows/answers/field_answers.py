"""A page's answers sorted by the kind of their field, for the answers step and ``hitflow aggregate``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from postprocess.answers.number_answers import NumberAnswers, number_answers
from postprocess.answers.option_answers import option_labels
from qc.answer_values import number

LABEL_COLUMNS = ["item_id", "worker_id", "field", "label"]
VALUE_COLUMNS = ["item_id", "worker_id", "field", "value"]
AGGREGATED = ("choice", "options", "number")  # the kinds answers.csv covers


@dataclass
class OtherKinds:
    """Answers that are not single choices, and the fields left out (``text``, ``not_numbers``)."""
    ticks: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=VALUE_COLUMNS))
    options: dict[str, list[str]] = field(default_factory=dict)
    numbers: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=VALUE_COLUMNS))
    text: list[str] = field(default_factory=list)
    not_numbers: int = 0
    own: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # a group's options per item, where its own

    def notes(self) -> list[str]:
        """One line per kind left out, for the summary and the report."""
        out = [f"{', '.join(self.text)}: free text, not aggregated (each worker's text is in dataset.csv)"] \
            if self.text else []
        if self.not_numbers:
            out.append(f"{self.not_numbers} answer(s) to a number field that are no number left out")
        return out


def by_kind(rows: pd.DataFrame, kinds: dict[str, str], options: dict[str, list[str]]
            ) -> tuple[pd.DataFrame, OtherKinds]:
    """``rows`` split by ``kinds`` (field -> kind; unnamed: a choice): the choice labels, blanks dropped, the rest."""
    kind = rows["field"].map(lambda f: kinds.get(f, "choice"))
    value = rows["value"].astype(str).str.strip()
    chosen, ticked = (kind == "choice") & (value != ""), kind == "options"
    # the mask on both sides: an empty frame assigned a whole column would take that column's rows
    choices = rows[chosen].assign(label=value[chosen])[LABEL_COLUMNS]
    ticks = rows[ticked].assign(value=value[ticked])[VALUE_COLUMNS]
    asked = rows[(kind == "number") & (value != "")]
    parsed = asked["value"].astype(str).str.strip().map(number)
    numbers = asked.assign(value=parsed)[parsed.notna()][VALUE_COLUMNS].astype({"value": float})
    text = sorted({f for f in rows["field"].unique() if kinds.get(f, "choice") not in AGGREGATED})
    return choices.reset_index(drop=True), OtherKinds(ticks.reset_index(drop=True), options,
                                                      numbers.reset_index(drop=True), text,
                                                      int(parsed.isna().sum()))


def with_ticks(choices: pd.DataFrame, others: OtherKinds) -> tuple[pd.DataFrame, dict[str, tuple[str, str]]]:
    """The choice labels and every checkbox option's yes/no labels, and the options' keys."""
    labels, keys = option_labels(others.ticks, others.options, others.own)
    if labels.empty:
        return choices, keys
    return (labels if choices.empty else pd.concat([choices, labels], ignore_index=True)), keys


def numbers_of(others: OtherKinds, leave_out: pd.Series | None = None) -> NumberAnswers | None:
    """The number fields' answers, less the rows ``leave_out`` marks (a blocked worker's, a control item's)."""
    kept = others.numbers if leave_out is None else others.numbers[~leave_out]
    return number_answers(kept) if not kept.empty else None


def kinds_summary(others: OtherKinds, numbers: NumberAnswers | None) -> dict[str, Any]:
    """What the summary says of the fields that are not single choices."""
    out: dict[str, Any] = {}
    groups = sorted({*others.options, *others.ticks["field"].astype(str)})
    if groups:
        out["checkbox_groups"] = groups
    if numbers is not None:
        out["number_fields"] = sorted(numbers.answers["field"].unique())
    notes = others.notes()
    return {**out, "text_fields": others.text, **({"notes": notes} if notes else {})}


def number_like(labels: pd.DataFrame, chosen: set[str]) -> list[str]:
    """A note per field read as labels whose every label is a number (a scale or a slider, perhaps), counted for all
    fields at once (a group a field cost ~1 ms each on 10,000 fields)."""
    text = labels["label"].astype(str).str.strip()
    given = pd.DataFrame({"field": labels["field"], "text": text})[text != ""]
    numeric = {value: number(value) is not None for value in given["text"].unique()}
    groups = given.assign(numeric=given["text"].map(numeric)).groupby("field")
    distinct, all_numbers = groups["text"].nunique(), groups["numeric"].all()
    return [f"{name}: every label is a number, read as {distinct[name]} unrelated labels; "
            f"--numbers {name} reads them as numbers (a median and its interval per item)"
            for name in distinct.index if str(name) not in chosen and distinct[name] > 2 and all_numbers[name]]
