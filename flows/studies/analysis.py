"""``hitflow analyze KIND INPUT``: a CSV in, JSON-ready results out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flows.answers.excluded import without_excluded
from flows.core.errors import InputFormatError
from flows.core.inputs.csv_files import read_csv_frame
from flows.studies.evaluation_readers import read_evaluation
from postprocess.agreement import agreement
from postprocess.error_stats import error_summary
from postprocess.pairwise_stats import pairwise_summary, undo_order
from postprocess.rating_stats import rating_summary
from postprocess.screening import session_exclusions
from postprocess.severity_stats import severity

KINDS = ("agreement", "severity", "errors", "pairwise", "ratings", "screening")


def analyze(kind: str, path: Path, reader: str = "", level: str = "nominal",
            min_minutes: float = 18.0) -> dict[str, Any]:
    """The analysis of ``kind`` over ``path``; column problems become InputFormatError."""
    if kind not in KINDS:
        raise InputFormatError(f"unknown analysis {kind!r}; use one of {', '.join(KINDS)}")
    frame = without_excluded(read_evaluation(reader, path) if reader
                             else read_csv_frame(path, what="the analysis input"))
    try:
        if kind == "agreement":
            return agreement(frame, level)
        if kind == "severity":
            return severity(frame)
        if kind == "errors":
            return error_summary(frame)
        if kind == "pairwise":
            return pairwise_summary(undo_order(frame) if "flipped" in frame.columns else frame)
        if kind == "ratings":
            return rating_summary(frame, level if level != "nominal" else "ordinal")
        return session_exclusions(frame, min_minutes)
    except (KeyError, ValueError, TypeError) as exc:  # TypeError: text where a column holds numbers
        raise InputFormatError(f"{path}: {exc}; see `hitflow analyze --help` for each kind's columns") from exc
