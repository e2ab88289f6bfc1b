"""The early platform work: statistics over nothing. An empty frame, a frame of canned or blank captions, a CSV
with only its header: a clear result (zeros, None where a share or mean has no data) or a
one-line error, never a traceback and never a NaN that JSON cannot carry."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.cli.main import main
from postprocess import (
    agreement,
    dataset,
    error_stats,
    pairwise_stats,
    qualification_report,
    rating_stats,
    report_data,
    screening,
    severity_stats,
    study_frames,
)
from postprocess.spellcheck import spellcheck_frame, spelling_stats
from qc.submit_rules import CANNED_TEXT

CAPTION_COLUMNS = ("assignment_id", "worker_id", "batch", "image_id", "caption", "caption_corrected",
                   "is_precanned", "text_present", "is_rejected", "edits")
ANSWERS = ("assignment_id", "worker_id", "item_id", "field", "value")


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``hitflow argv`` in this process: exit code, stdout, stderr (which holds one line at most)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert "Traceback" not in err.getvalue() and len(err.getvalue().splitlines()) <= 1, err.getvalue()
    return code, out.getvalue(), err.getvalue().strip()


def empty(*columns: str, dtype: Any = "str") -> pd.DataFrame:
    """No rows, the contract's columns; pandas' own string dtype, as the ledger's frames have."""
    return pd.DataFrame({c: pd.Series([], dtype=dtype) for c in columns})


def canned_or_blank() -> pd.DataFrame:
    """One image whose every caption is the canned text or blank."""
    return pd.DataFrame({"assignment_id": ["a1", "a2", "a3"], "worker_id": ["W1", "W2", "W3"], "batch": [1, 1, 1],
                         "image_id": ["i1"] * 3, "caption": [CANNED_TEXT, "", "   "],
                         "caption_corrected": [CANNED_TEXT, "", "   "], "is_precanned": [True, True, True],
                         "text_present": ["", "", ""], "is_rejected": [False] * 3, "edits": ["", "", ""]})


@pytest.mark.parametrize("dtype", ["str", object, float])
def test_spelling_stats_of_an_empty_frame_are_zeros(dtype: Any) -> None:
    """The report's spelling numbers for a campaign where nothing was accepted (pandas' str dtype
    summed to "" and int("") raised before)."""
    assert spelling_stats(empty("caption", "edits", dtype=dtype)) == {
        "captions": 0, "captions_changed": 0, "share_changed": 0.0, "tokens_changed": 0}
    checked = spellcheck_frame(empty("caption", "worker_id", "is_precanned", dtype=dtype))
    assert list(checked.columns[-2:]) == ["caption_corrected", "edits"] and spelling_stats(checked)["captions"] == 0


def test_spelling_of_canned_and_blank_captions_changes_nothing() -> None:
    checked = spellcheck_frame(canned_or_blank().drop(columns=["caption_corrected", "edits"]))
    assert list(checked["caption_corrected"]) == [CANNED_TEXT, "", "   "]
    assert spelling_stats(checked) == {"captions": 3, "captions_changed": 0, "share_changed": 0.0,
                                       "tokens_changed": 0}


def times() -> pd.DataFrame:
    return empty("assignment_id", "batch", "work_time_s").astype({"batch": int, "work_time_s": float})


STATISTICS: dict[str, Callable[[], Any]] = {
    "agreement": lambda: agreement.agreement(empty("item_id", "worker_id", "label")),
    "ordinal agreement": lambda: agreement.agreement(empty("item_id", "worker_id", "label"), "ordinal"),
    "difficulty": lambda: dataset.difficulty(empty(*CAPTION_COLUMNS)),
    "canned distribution": lambda: dataset.canned_table(dataset.canned_per_image(empty(*CAPTION_COLUMNS))),
    "dataset": lambda: dataset.vizwiz_parts(empty(*CAPTION_COLUMNS), empty("image_id", "file_name")),
    "flat table": lambda: dataset.flat_table(empty(*CAPTION_COLUMNS), empty("image_id", "file_name")),
    "all-canned dataset": lambda: dataset.vizwiz_parts(canned_or_blank(), pd.DataFrame(
        {"image_id": ["i1"], "file_name": ["i1.jpg"]})),
    "all-canned distribution": lambda: dataset.canned_table(dataset.canned_per_image(canned_or_blank())),
    "errors": lambda: error_stats.error_summary(empty("item_id", "worker_id", "congruent", "categories")),
    "pairwise": lambda: pairwise_stats.pairwise_summary(empty(*pairwise_stats.REQUIRED)),
    "scores": lambda: qualification_report.score_summary(empty("worker_id", "score", "passed")),
    "ratings": lambda: rating_stats.rating_summary(empty("item_id", "worker_id", "label")),
    "batch counts": lambda: report_data.batch_counts(times(),
                                                     empty("assignment_id", "batch", "action"),
                                                     empty("worker_id", "batch", "rules"),
                                                     empty("assignment_id", "batch", "worker_id", "rule")),
    "time bands": lambda: report_data.time_bands(times()),
    "screening": lambda: screening.session_exclusions(empty("participant_id", "minutes", "slider_zero")),
    "study frames": lambda: [study_frames.expert_labels(empty(*ANSWERS)),
                             study_frames.error_judgements(empty(*ANSWERS)),
                             study_frames.pairwise_judgements(empty(*ANSWERS), {}),
                             study_frames.severity_ratings(empty(*ANSWERS), {})],
}


@pytest.mark.parametrize("name", sorted(STATISTICS))
def test_statistics_over_nothing_are_a_clear_result(name: str) -> None:
    result = STATISTICS[name]()
    if isinstance(result, dict):  # what `hitflow analyze` prints and analysis.json holds: strict JSON
        json.dumps(result, allow_nan=False, default=str)
    frames = [r for r in (result if isinstance(result, list) else [result]) if isinstance(r, pd.DataFrame)]
    assert all(len(f) == 0 or name.startswith("all-canned") or "distribution" in name for f in frames)


@pytest.mark.parametrize("name", ["bradley_terry", "severity"])
def test_statistics_that_need_data_say_so(name: str) -> None:
    """Strengths need two systems, a repeated-measures ANOVA two conditions: a ValueError that
    `hitflow analyze` turns into one line (see below), not an arithmetic error."""
    with pytest.raises(ValueError, match="needs at least two"):
        if name == "bradley_terry":
            pairwise_stats.bradley_terry(empty(*pairwise_stats.REQUIRED))
        else:
            severity_stats.severity(empty(*severity_stats.REQUIRED))


@pytest.mark.parametrize(("kind", "header"), [
    ("agreement", "item_id,worker_id,label"), ("ratings", "item_id,worker_id,label"),
    ("errors", "item_id,worker_id,congruent,categories"),
    ("pairwise", "item_id,worker_id,dimension,system_a,system_b,answer"),
    ("screening", "participant_id,minutes,slider_zero"), ("severity", "participant_id,condition,score")])
def test_analyze_a_csv_with_only_its_header(kind: str, header: str, tmp_path: Path) -> None:
    """`errors` and `ratings` printed a traceback (NaN is not JSON); now JSON with nulls, or one line."""
    path = tmp_path / "only_header.csv"
    path.write_text(header + "\n")
    code, out, err = run_cli(["analyze", kind, str(path)])
    if kind == "severity":
        assert code == 3 and "needs at least two conditions" in err
    else:
        assert code == 0 and err == ""
        assert json.loads(out)  # strict JSON: no NaN


def test_spellcheck_cli_on_a_csv_with_only_its_header(tmp_path: Path) -> None:
    path, out = tmp_path / "only_header.csv", tmp_path / "out.csv"
    path.write_text("caption,worker_id,is_precanned\n")
    code, said, err = run_cli(["spellcheck", str(path), "--out", str(out)])
    assert code == 0 and err == "" and "0 caption(s) corrected" in said
    assert out.read_text().splitlines() == ["caption,worker_id,is_precanned,caption_corrected,edits"]


def test_spellcheck_cli_reads_is_precanned_as_text(tmp_path: Path) -> None:
    """A CSV's "0" and "false" are not canned (astype(bool) made every non-empty text True, so
    no caption of such a file was ever corrected); the column is written back as it was."""
    path, out = tmp_path / "captions.csv", tmp_path / "out.csv"
    path.write_text("caption,is_precanned\nA dog on teh grass,0\nA dog on teh grass,false\nQualty issues,1\n")
    assert run_cli(["spellcheck", str(path), "--out", str(out)])[0] == 0
    rows = pd.read_csv(out, dtype=str, keep_default_na=False).to_dict("records")
    assert [r["caption_corrected"] for r in rows] == ["A dog on the grass", "A dog on the grass", "Qualty issues"]
    assert [r["is_precanned"] for r in rows] == ["0", "false", "1"]
