"""Hostile label files for ``hitflow aggregate`` (a new input path of the answers issue): any cell a
spreadsheet or another platform can produce gives answers or one line saying what to fix, never a
traceback, and answers.csv/workers.csv stay safe to open in a spreadsheet."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from flows.answers.answers_files import aggregate_file
from flows.cli.main import main
from flows.core.errors import HitflowError
from tests.fuzz_support import FUZZ, assert_one_line, hostile_text
from tests.test_formula_cells import spreadsheet_runs
from tests.test_fuzz_csv import corrupt, csv_bytes

cell = hostile_text.filter(lambda t: "\x00" not in t and not any(0xD800 <= ord(c) <= 0xDFFF for c in t))
labels = st.lists(st.tuples(st.sampled_from(["i1", "i2", "=i3", "<b>i4</b>"]), cell, cell), min_size=1, max_size=12)


def aggregate_or_error(path: Path, out: Path, method: str = "auto") -> dict | str:  # type: ignore[type-arg]
    try:
        return aggregate_file(path, out, method)
    except HitflowError as exc:
        return assert_one_line(exc, exc.exit_code)


@FUZZ
@given(labels, st.sampled_from(["auto", "mv", "ds", "one-coin", "skill"]), st.booleans())
def test_hostile_cells_give_answers_or_one_line(tmp_path: Path, rows: list[tuple[str, str, str]], method: str,
                                                tab: bool) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # tmp_path is shared by every example hypothesis tries
    path, out = folder / "labels.csv", folder / "answers.csv"
    path.write_bytes(csv_bytes(["item_id", "worker_id", "label"], [list(r) for r in rows], tab=tab))
    result = aggregate_or_error(path, out, method)
    if isinstance(result, str):
        return
    answers = pd.read_csv(out, dtype=str, keep_default_na=False)
    workers = pd.read_csv(folder / "workers.csv", dtype=str, keep_default_na=False)
    assert len(answers) == result["answers"] >= 1
    assert len(workers) == result["workers"] >= 1
    for frame in (answers, workers):  # a formula a worker typed never runs in the requester's spreadsheet
        for column in frame.columns:
            assert not frame[column].map(spreadsheet_runs).any(), (column, frame[column].tolist())


@FUZZ
@given(labels, st.sampled_from(["truncate", "insert", "quote", "nul", "utf16", "latin1", "comma", "empty", "blank"]),
       st.integers(min_value=0), st.binary(min_size=1, max_size=6))
def test_corrupted_label_files_give_answers_or_one_line(tmp_path: Path, rows: list[tuple[str, str, str]], how: str,
                                                        at: int, junk: bytes) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # a file an earlier example wrote must not answer for this one
    path, out = folder / "labels.csv", folder / "answers.csv"
    path.write_bytes(corrupt(csv_bytes(["item_id", "worker_id", "label"], [list(r) for r in rows]), how, at, junk))
    result = aggregate_or_error(path, out)
    if how in ("empty", "blank"):
        assert isinstance(result, str), f"{how} must be refused"
    elif how == "nul":  # a NUL in one row is that row's fault, left out and named; in the header, the file's
        assert isinstance(result, str) or any("NUL" in row["reason"] for row in result["unread_rows"]), result
    if isinstance(result, str):
        assert not out.exists(), "a refused file writes nothing"


def test_cli_refuses_a_binary_file_in_one_line_with_exit_2_or_3(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "labels.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    code = main(["aggregate", str(path), "--out", str(tmp_path / "answers.csv")])
    err = capsys.readouterr().err
    assert code in (2, 3), err
    assert err.startswith("hitflow: ") and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "answers.csv").exists()


def test_a_label_without_its_worker_is_refused_not_dropped(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("item_id,worker_id,label\ni1,w1,yes\ni1,,no\ni2,w2,\ni2,w1,no\n")
    message = aggregate_or_error(path, tmp_path / "answers.csv")
    assert isinstance(message, str) and "1 labelled row(s) have no worker_id (line(s) 3)" in message, message
    assert not (tmp_path / "answers.csv").exists()
