"""The fifth security round: spreadsheet files neutralise only what a spreadsheet would run. A plain number
(``-1``, ``-0.5``, ``+3``) is a number in a spreadsheet, so answers.csv and workers.csv keep it and
``hitflow ui`` reads it back as one (it once became ``'-1``, text); a formula behind a zero-width space
or starting with a fullwidth ``＝`` is neutralised (both once passed)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.inputs.csv_writing import neutralise, write_csv
from flows.review.overview_app import answers_view

NUMBERS = ["-1", "-0.5", "+3", "0", "12", "-.5", "5.", "1e-3", "-2E+10", "+0.25"]
FORMULAS = ["=1+1", "-1+2", "+3*2", "-", "+", "@SUM(A1)", "\t=1", "\r=1", "-1-1", "--1", "+-1", "-1e",
            "- 1", "\uff1d1+1", "\uff0bSUM(A1)", "\uff0d1+2", "\uff20A1", "\u200b=1+1", "\u200b\u200b-1",
            "\ufeff=HYPERLINK(0)", "\u2060+1", "\u200d@x"]


def spreadsheet_runs(cell: str) -> bool:
    """What a spreadsheet would evaluate, written out independently of the writer: a cell starting
    (past invisible characters) with = + - @ tab CR or their fullwidth forms, unless it is exactly a
    number Python reads from digits, one sign, one point and an exponent."""
    visible = cell.lstrip("\u200b\u200c\u200d\u2060\ufeff\u180e")
    if not visible or visible[0] not in "=+-@\t\r\uff1d\uff0b\uff0d\uff20":
        return False
    if visible != cell or not set(cell) <= set("0123456789+-.eE"):
        return True
    try:
        float(cell)
    except ValueError:
        return True
    return False


@pytest.mark.parametrize("cell", NUMBERS)
def test_a_plain_number_is_written_as_it_is(cell: str) -> None:
    assert not spreadsheet_runs(cell) and neutralise(cell) == cell


@pytest.mark.parametrize("cell", FORMULAS)
def test_a_formula_is_neutralised_whatever_it_starts_with(cell: str) -> None:
    assert spreadsheet_runs(cell) and neutralise(cell) == "'" + cell


def test_the_writer_agrees_with_the_independent_rule_on_every_cell(tmp_path: Path) -> None:
    cells = NUMBERS + FORMULAS + ["text", "", " -1", "1-", "inf", "-inf", "nan", "1_0", "\u0661"]
    path = write_csv(pd.DataFrame({"cell": cells}), tmp_path / "flags.csv")
    with path.open(newline="", encoding="utf-8") as fh:
        written = [row[0] for row in csv.reader(fh)][1:]
    assert written == [("'" + c) if spreadsheet_runs(c) else c for c in cells]


def test_answers_with_negative_labels_stay_numbers_in_the_ui(tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    rows = [(f"i{i}", f"w{w}", ["-1", "+1", "-0.5"][(i + (w == 2)) % 3]) for i in range(6) for w in range(3)]
    pd.DataFrame(rows, columns=["item_id", "worker_id", "label"]).to_csv(labels, index=False)
    out = tmp_path / "runs" / "sent" / "answers.csv"
    assert main(["aggregate", str(labels), "--out", str(out), "--method", "mv"]) == 0
    answers = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert set(answers["label"]) <= {"-1", "+1", "-0.5"} and "'" not in "".join(answers["label"])
    shown = answers_view(tmp_path / "runs", "sent")
    assert shown is not None
    # a label shows as it was given (never "'-1"), a confidence to three places
    assert {r["label"] for r in shown["least_sure"]} <= {"-1", "+1", "-0.5"}
    assert all(re.fullmatch(r"\d\.\d{3}", r["confidence"]) for r in shown["least_sure"])
