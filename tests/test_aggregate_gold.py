"""Issue 55 point 5: ``hitflow aggregate --gold COLUMN`` naming any column of the labels file gives
accuracy or one line; ``--gold item_id`` was a KeyError traceback (the items indexed by themselves)."""

from __future__ import annotations

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
