"""A labels file made fit to aggregate: the hygiene policy applied, a campaign's blocked workers left out."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from flows.core.errors import ConfigError, InputFormatError
from flows.core.inputs.csv_files import read_csv_frame
from postprocess.answers.label_hygiene import (
    FreeText,
    HygienePolicy,
    TooManyClasses,
    leave_out_workers,
    nfc,
    respell,
    tidy,
)

BLOCKED_FILE = "blocked_workers.csv"  # a campaign's, beside its dataset.csv (flows/captions/outputs.py)
EXCLUDED = "excluded"  # a study's judgements.csv marks screened-out participants' rows 1 here


@contextmanager
def faults_of(path: Path) -> Iterator[None]:
    """A labels file's fault in one line: labels a method cannot take (the user's choice) a ConfigError, else an
    InputFormatError."""
    try:
        yield
    except (FreeText, TooManyClasses) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    except ValueError as exc:
        raise InputFormatError(f"{path}: {exc}") from exc


def tidy_labels(path: Path, frame: pd.DataFrame, hygiene: HygienePolicy, keep_blocked: bool = False
                ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``frame`` under ``hygiene``, less the campaign's blocked workers' labels unless ``keep_blocked``; counted."""
    blocked_path = Path(path).parent / BLOCKED_FILE
    counts: dict[str, Any] = {}
    if blocked_path.is_file():
        blocked = read_csv_frame(blocked_path, ("worker_id",), "the campaign's blocked workers", delimiter="auto")
        workers = set(blocked["worker_id"].str.strip()) - {""}
        if keep_blocked:
            counts = {"blocked_workers_kept": len(workers), "blocked_file": str(blocked_path)}
        else:
            frame, left_out = leave_out_workers(frame, workers)
            counts = {**left_out, "blocked_file": str(blocked_path)}
    elif "decision" in frame.columns and "assignment_id" in frame.columns:  # a campaign's dataset.csv, moved
        counts = {"no_blocked_file": f"no {BLOCKED_FILE} beside {path}: a blocked worker's labels, if any, are kept "
                                     f"(copy the campaign's {BLOCKED_FILE} beside it to leave them out)"}
    with faults_of(path):
        tidied = tidy(frame, hygiene)
    if tidied.frame.empty:  # every label was a blocked worker's (read_labels refused an all-blank file)
        raise InputFormatError(f"{path}: no labels left once the {counts.get('blocked_workers_left_out', 0)} "
                               f"blocked worker(s) of {blocked_path} are left out; --keep-blocked keeps them")
    return tidied.frame, {**tidied.counts, **counts}


def respelled(frame: pd.DataFrame | None, column: str, labels: pd.Series | None = None, fold_case: bool = True) -> Any:
    """``frame`` with ``column`` spelt as the folded labels spell it (NFC only, without ``fold_case``)."""
    if frame is None or not column:
        return frame
    keys = {c: nfc(frame[c].fillna("").astype(str).str.strip()) for c in ("item_id", "field") if c in frame.columns}
    return frame.assign(**keys, **{column: respell(frame[column], frame["label"] if labels is None else labels,
                                                   fold_case)})


def only_fields(path: Path, labels: pd.DataFrame, fields: tuple[str, ...]) -> pd.DataFrame:
    """The labels of ``fields`` (all when none is given); a field the file lacks is refused in one line."""
    if not fields:
        return labels
    if "field" not in labels.columns:
        raise InputFormatError(f"{path}: --field needs a field column; this file has {', '.join(labels.columns[:12])}")
    unknown = sorted(set(fields) - set(labels["field"].astype(str)))
    if unknown:
        raise InputFormatError(f"{path}: no labels of field(s) {', '.join(unknown)} (it has "
                               f"{', '.join(sorted(set(labels['field'].astype(str)))[:12])})")
    chosen = labels[labels["field"].astype(str).isin(fields)]
    chosen.attrs.update(labels.attrs)  # the unread rows are the file's
    return chosen


def without_excluded(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows not marked excluded (all rows of a table without the column)."""
    if EXCLUDED not in frame.columns:
        return frame
    marked = frame[EXCLUDED].astype(str).str.strip().str.lower().isin(("1", "true", "yes"))
    return frame[~marked].drop(columns=EXCLUDED)
