"""``hitflow aggregate LABELS.csv --numbers NAME --ticks NAME``: sliders' numbers and checkbox ticks aggregated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from flows.answers.answers_files import read_labels, write_answers
from flows.answers.field_answers import by_kind, kinds_summary, numbers_of, with_ticks
from flows.answers.label_files import BLOCKED_FILE, faults_of, only_fields, tidy_labels
from flows.core.errors import InputFormatError
from postprocess.answers.aggregation import Aggregation, aggregate
from postprocess.answers.label_hygiene import HygienePolicy
from postprocess.answers.number_answers import joined
from postprocess.answers.option_answers import split_options


def aggregate_kinds(path: Path, out: Path, numbers: tuple[str, ...], ticks: tuple[str, ...], method: str = "auto",
                    min_per_worker: float = 3.0, columns: tuple[str, str, str] | None = None,
                    hygiene: HygienePolicy | None = None, keep_blocked: bool = False,
                    fields: tuple[str, ...] = ()) -> dict[str, Any]:
    """answers.csv and its workers file from ``path`` (``numbers`` as numbers, ``ticks`` as checkboxes)."""
    labels = only_fields(path, read_labels(path, columns), fields)
    if "field" not in labels.columns:
        labels = labels.assign(field="label")
    absent = sorted((set(numbers) | set(ticks)) - set(labels["field"].astype(str)))
    if absent:
        raise InputFormatError(f"{path}: no labels of field(s) {', '.join(absent)} for --numbers / --ticks")
    kinds = {**{f: "number" for f in numbers}, **{f: "options" for f in ticks}}
    rows = labels.rename(columns={"label": "value"})
    is_choice = ~rows["field"].astype(str).isin(kinds)
    _, others = by_kind(rows[~is_choice][["item_id", "worker_id", "field", "value"]].astype(str), kinds, {})
    others_blocked, counts = _blocked(path, others.numbers, others.ticks, keep=keep_blocked)
    others.numbers = others.numbers[~others.numbers["worker_id"].isin(others_blocked)]
    others.ticks = others.ticks[~others.ticks["worker_id"].isin(others_blocked)]
    frame, tidied = (tidy_labels(path, labels[is_choice.to_numpy()], hygiene or HygienePolicy(), keep_blocked)
                     if is_choice.any() else (labels.iloc[:0], {}))
    judgements, keys = with_ticks(frame[["item_id", "worker_id", "field", "label"]], others)
    with faults_of(path):
        result = aggregate(judgements, method, min_per_worker) if not judgements.empty else None
    choice = None if result is None else Aggregation(split_options(result.answers, keys), result.workers)
    answers, workers = joined(choice.answers if choice else None, choice.workers if choice else None,
                              numbers_of(others))
    if answers.empty:
        raise InputFormatError(f"{path}: no answers to write once blocked workers are left out; "
                               "--keep-blocked keeps them")
    answers_path, workers_path = write_answers(Aggregation(answers, workers), out)
    notes = kinds_summary(others, numbers_of(others))
    return {"answers_file": str(answers_path), "workers_file": str(workers_path), "items": int(answers["item_id"]
            .nunique()), "answers": len(answers), "workers": len(workers), **notes,
            "hygiene": {**counts, **tidied}, "unread_rows": labels.attrs.get("unread_rows", [])}


def _blocked(path: Path, *frames: pd.DataFrame, keep: bool) -> tuple[set[str], dict[str, Any]]:
    """The blocked workers beside ``path`` left out of ``frames`` (unless ``keep``), and how many answers that is."""
    from flows.core.inputs.csv_files import read_csv_frame

    blocked_path = Path(path).parent / BLOCKED_FILE
    if not blocked_path.is_file():
        return set(), {}
    workers = set(read_csv_frame(blocked_path, ("worker_id",), "the campaign's blocked workers",
                                 delimiter="auto")["worker_id"].str.strip()) - {""}
    hit = sum(int(f["worker_id"].isin(workers).sum()) for f in frames)
    who = len(set().union(*(set(f.loc[f["worker_id"].isin(workers), "worker_id"]) for f in frames)))
    if keep:
        return set(), {"blocked_number_or_tick_answers_kept": hit, "blocked_file": str(blocked_path)}
    return workers, {"blocked_number_or_tick_answers_left_out": hit, "blocked_workers_left_out": who,
                     "blocked_file": str(blocked_path)}

