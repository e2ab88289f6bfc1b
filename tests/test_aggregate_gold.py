"""The fifth security round: ``hitflow aggregate --gold COLUMN`` naming any column of the labels file gives
accuracy or one line; ``--gold item_id`` was a KeyError traceback (the items indexed by themselves)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main

ROWS = [("i1", "w1", "a", "a", "x"), ("i1", "w2", "a", "a", "x"), ("i1", "w3", "b", "a", "x"),
        ("i2", "w1", "b", "a", "y"), ("i2", "w2", "b", "a", "y"), ("i2", "w3", "b", "a", "y")]


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    path = tmp_path / "labels.csv"
    pd.DataFrame(ROWS, columns=["item_id", "worker_id", "label", "truth", "note"]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("adaptive", [[], ["--adaptive"]])
@pytest.mark.parametrize("column", ["item_id", "worker_id", "label"])
def test_gold_naming_the_labels_own_columns_is_one_line(labels: Path, column: str, adaptive: list[str],
                                                        capsys) -> None:
    assert main(["aggregate", str(labels), "--out", str(labels.parent / "a.csv"), "--gold", column, *adaptive]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"--gold {column} names the labels' own" in err and "Traceback" not in err


def test_gold_naming_a_known_answer_column_gives_accuracy(labels: Path, capsys) -> None:
    assert main(["aggregate", str(labels), "--out", str(labels.parent / "a.csv"), "--gold", "truth",
                 "--method", "mv"]) == 0
    assert '"accuracy": 0.5' in capsys.readouterr().out  # i1 -> a (right), i2 -> b (wrong)
    assert main(["aggregate", str(labels), "--out", str(labels.parent / "a.csv"), "--gold", "note"]) == 0


@pytest.mark.parametrize("blank", ["", "NaN"])
def test_partial_gold_scores_only_the_items_that_carry_one(tmp_path: Path, capsys, blank: str) -> None:
    """calibration work: gold on some items only (AdultContent2: 333 of 11,040). A blank or NaN cell is no answer: the
    summary scores the items with gold (here i1, right, and i3, wrong; i2 blank on every row, i4 gold on its
    second row only) and says how many had none; before, every item counted, blanks as wrong answers."""
    rows = [("i1", "w1", "a", "a"), ("i1", "w2", "a", "a"), ("i1", "w3", "b", "a"),
            ("i2", "w1", "b", blank), ("i2", "w2", "b", blank), ("i2", "w3", "b", blank),
            ("i3", "w1", "c", "b"), ("i3", "w2", "c", "b"), ("i3", "w3", "b", "b"),
            ("i4", "w1", "a", blank), ("i4", "w2", "a", "a"), ("i4", "w3", "a", blank)]
    path = tmp_path / "labels.csv"
    pd.DataFrame(rows, columns=["item_id", "worker_id", "label", "truth"]).to_csv(path, index=False)
    for extra in ([], ["--adaptive", "--sweep", "0.9"]):
        assert main(["aggregate", str(path), "--out", str(tmp_path / "a.csv"), "--gold", "truth", "--method", "mv",
                     *extra]) == 0
        shown = json.loads(capsys.readouterr().out)
        answers = pd.read_csv(tmp_path / "a.csv", dtype=str).set_index("item_id")["label"]
        truth = {"i1": "a", "i3": "b", "i4": "a"}
        expected = sum(answers[i] == t for i, t in truth.items()) / 3
        assert shown["gold_items"] == 3 and shown["items_without_gold"] == 1
        assert shown["accuracy"] == pytest.approx(expected, abs=1e-4)
        assert shown["calibration"]["items"] == 3
        if extra:
            assert shown["sweep"][0]["accuracy"] == pytest.approx(expected, abs=1e-4)
