"""What keeps ``hitflow aggregate`` within its CPU bound on small files of hostile shapes: each rule's decision,
at sizes that show it, not the minutes the shapes took."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.cli.main import main
from postprocess.answers import adaptive
from postprocess.answers.adaptive import StoppingRule, replay
from postprocess.answers.aggregation import aggregate
from postprocess.answers.method_choice import settled


def test_auto_runs_no_held_out_test_on_a_field_of_a_few_labels() -> None:
    """Nine labels of three workers (an adaptive replay's field each round) were tested in five folds: a fold of
    two held-out labels cannot tell the models apart."""
    few = settled(9, 3, 2, 3.0)
    assert few is not None and few.method == "mv" and "too few for a held-out test" in few.reason
    assert settled(99, 20, 2, 3.0) is not None
    assert settled(100, 20, 2, 3.0) is None  # enough labels: the test decides, as before


def test_a_column_read_does_not_copy_every_fields_reason() -> None:
    """pandas deep-copies ``attrs`` on each operation: 200,000 fields' reasons and temperatures, copied at every
    column read, were most of 23 s of CPU. The record is shared instead."""
    frame = pd.DataFrame({"item_id": [f"i{k}" for k in range(300)], "worker_id": "w1", "label": "a",
                          "field": [f"f{k}" for k in range(300)]})
    answers = aggregate(frame).answers
    assert len(answers.attrs["method_choice"]) == 300 and len(answers.attrs["temperature"]) == 300
    assert answers["label"].attrs["method_choice"] is answers.attrs["method_choice"]
    assert copy.deepcopy(answers.attrs)["temperature"] is answers.attrs["temperature"]


def test_the_replays_gain_looks_fields_up_once_a_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget the replay weighs each item's expected gain; it once looked each field's items up in a table of
    every item and field (quadratic in fields: 10,000 fields of nine labels, minutes)."""
    draw = random.Random(2)
    frame = pd.DataFrame([(f"i{i}", f"w{w}", draw.choice("ab"), f"f{f}") for f in range(40) for i in range(3)
                          for w in range(3)], columns=["item_id", "worker_id", "label", "field"])
    calls: list[int] = []
    real = adaptive.positions

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(adaptive, "positions", counted)
    replayed = replay(frame, StoppingRule(min_judgements=2, budget=0.8, confidence=0.9))
    assert replayed.answers["field"].nunique() == 40
    assert len(calls) < 20  # one a round and a few more, not one per field and round (over 40 a round before)


def test_a_checkbox_group_of_many_options_under_mace_is_one_line(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Each option of a checkbox group is a yes/no field: 200 options under MACE were 200 fits, 22 s of CPU."""
    draw = random.Random(4)
    path = tmp_path / "labels.csv"
    path.write_text("item_id,worker_id,label,field\n" + "".join(
        f"i{i},w{w},{'|'.join(draw.sample([f'o{k}' for k in range(200)], 3))},boxes\n" for i in range(60)
        for w in range(3)), "utf-8")
    code = main(["aggregate", str(path), "--ticks", "boxes", "--method", "mace", "--out", str(tmp_path / "a.csv")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "method mace fits 184 field(s) of their own shape" in err


def test_mace_on_too_many_cells_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """MACE runs hundreds of EM steps over a field's labels and items x label values: 3,000 items x 100 values took
    31 s of CPU. Refused before fitting, naming the methods that take the file; majority vote answers it."""
    draw = random.Random(3)
    path = tmp_path / "labels.csv"
    path.write_text("item_id,worker_id,label\n" + "".join(
        f"i{i},w{w},l{draw.randrange(101)}\n" for i in range(4_000) for w in draw.sample(range(5), 2)), "utf-8")
    code = main(["aggregate", str(path), "--method", "mace", "--out", str(tmp_path / "answers.csv")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert ("method mace fits 1 field(s) of their own shape (from 'label'; labels plus items x label values: "
            "412,000 cells), about 25 s of CPU") in err
    assert "use --method mv or skill" in err and not (tmp_path / "answers.csv").exists()
    assert main(["aggregate", str(path), "--method", "mv", "--out", str(tmp_path / "answers.csv")]) == 0


def test_a_file_of_more_fields_than_aggregate_takes_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """10^6 fields of one label each took 49 s of CPU and 1.2 GB: past ``MAX_FIELDS`` the file is refused, naming
    --field (here at a bound of 10, the rule's decision, not its cost)."""
    from postprocess.answers import label_hygiene

    monkeypatch.setattr(label_hygiene, "MAX_FIELDS", 10)
    path = tmp_path / "labels.csv"
    path.write_text("item_id,worker_id,label,field\n" + "".join(f"i{k},w1,a,f{k}\n" for k in range(11)), "utf-8")
    code = main(["aggregate", str(path), "--out", str(tmp_path / "answers.csv")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "11 fields, past the 10 one aggregate takes" in err
    assert "--field" in err
    assert main(["aggregate", str(path), "--field", "f1", "--out", str(tmp_path / "answers.csv")]) == 0
