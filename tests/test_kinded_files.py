"""``hitflow aggregate``'s files named after --out, so runs in one folder keep each their own, and a labels file's
sliders and checkbox groups read with --numbers and --ticks."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from flows.answers.answers_files import workers_path_for
from flows.cli.main import main

ROWS = "item_id,worker_id,field,label\n" + "".join(
    f"{i},{w},quality,{v}\n{i},{w},tags,{t}\n" for i, w, v, t in [
        ("a", "w1", 2, "red"), ("a", "w2", 3, "red|big"), ("a", "w3", 7, ""), ("b", "w1", 5, "big"),
        ("b", "w2", 6, "big"), ("b", "w3", 1, "red")])


@pytest.mark.parametrize(("out", "workers"), [("answers.csv", "workers.csv"), ("answers-quality.csv",
                                              "workers-quality.csv"), ("mine.csv", "mine-workers.csv"),
                                              ("run2_answers.tsv", "run2_workers.tsv")])
def test_the_workers_file_is_named_after_the_answers_file(out: str, workers: str) -> None:
    assert workers_path_for(Path("x") / out) == Path("x") / workers


def test_two_runs_in_one_folder_keep_each_their_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(ROWS, encoding="utf-8")
    for field, kind in (("quality", "--numbers"), ("tags", "--ticks")):
        assert main(["aggregate", str(labels), kind, field, "--field", field, "--out",
                     str(tmp_path / f"answers-{field}.csv")]) == 0
    capsys.readouterr()
    assert "bias_quality" in pd.read_csv(tmp_path / "workers-quality.csv").columns
    assert "skill" in pd.read_csv(tmp_path / "workers-tags.csv").columns
    quality = pd.read_csv(tmp_path / "answers-quality.csv", dtype=str, keep_default_na=False)
    assert quality.set_index("item_id")["label"].to_dict() == {"a": "3", "b": "5"}
    assert quality["coverage"].tolist() == ["0.75", "0.75"]  # 3 answers: the range covers the median 3/4 of the time
    tags = pd.read_csv(tmp_path / "answers-tags.csv", dtype=str, keep_default_na=False)
    assert sorted(set(tags["option"])) == ["big", "red"] and set(tags["label"]) <= {"yes", "no"}


def test_a_field_of_numbers_read_as_labels_is_noted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(ROWS, encoding="utf-8")
    assert main(["aggregate", str(labels), "--field", "quality", "--out", str(tmp_path / "a.csv")]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert notes == ["quality: every label is a number, read as 6 unrelated labels; --numbers quality reads them "
                     "as numbers (a median and its interval per item)"]


def test_numbers_of_a_field_the_file_lacks_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(ROWS, encoding="utf-8")
    assert main(["aggregate", str(labels), "--numbers", "size", "--out", str(tmp_path / "a.csv")]) == 3
    err = capsys.readouterr().err
    assert "no labels of field(s) size" in err and err.count("\n") == 1
    assert main(["aggregate", str(labels), "--numbers", "quality", "--gold", "g", "--out",
                 str(tmp_path / "a.csv")]) == 2
    assert "--gold is not read with --numbers" in capsys.readouterr().err
