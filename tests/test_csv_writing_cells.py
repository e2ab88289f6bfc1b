"""write_csv writes a table of text cells by Arrow: the bytes must be pandas' to_csv's, for the cells a flag table
holds (text, numbers, booleans, blanks), the ones csv quotes and the ones a spreadsheet would run."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from flows.core.inputs import csv_writing
from flows.core.inputs.csv_writing import _as_written, _cell_lists, write_csv

TEXTS = ["", " ", "plain", "a,b", 'say "hi"', "two\nlines", "cr\ronly", "crlf\r\nend", "=1+1", "-1", "+3*2",
         "@SUM(A1)", "\t=1", "\u200b=1", "\uff1d1", "-0.5", "caf\u00e9", "\U0001f600 emoji", "trailing nul\x00",
         "'quoted", "x" * 300]
CELLS = [*TEXTS, 0, 1, -7, 2**70, 0.5, -0.0, 1e-7, 1e20, 1 / 3, float("nan"), float("inf"), True, False, None]


def pandas_bytes(frame: pd.DataFrame, path: Path, for_spreadsheet: bool) -> bytes:
    _as_written(frame, for_spreadsheet).to_csv(path, index=False, lineterminator="\r\n")
    return path.read_bytes()


def random_frame(rng: random.Random) -> pd.DataFrame:
    n = rng.randint(1, 40)
    columns: dict[str, object] = {}
    for k in range(rng.randint(2, 6)):
        pool = [*TEXTS, None, float("nan")] if k % 2 else CELLS
        values = [rng.choice(pool) for _ in range(n)]
        text = all(v is None or isinstance(v, str) or v != v for v in values) and rng.random() < 0.5
        name = rng.choice(["worker_id", "=cmd", "detail", "value", "a b"]) + str(k)
        columns[name] = pd.array(values, dtype="str") if text else pd.Series(values, dtype=object)
    return pd.DataFrame(columns)


@pytest.mark.parametrize("for_spreadsheet", [True, False])
def test_arrow_rows_are_written_as_pandas_writes_them(tmp_path: Path, for_spreadsheet: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(csv_writing, "ROWS_AT_ONCE", 7)  # rows joined a few at a time, as a long table's are
    rng = random.Random(7)
    for k in range(150):
        frame = random_frame(rng)
        assert _cell_lists(frame) is not None  # the Arrow path is the one under test
        ours = write_csv(frame, tmp_path / f"ours{k}.csv", for_spreadsheet=for_spreadsheet).read_bytes()
        assert ours == pandas_bytes(frame, tmp_path / f"theirs{k}.csv", for_spreadsheet), frame.to_dict("list")


def test_other_tables_are_left_to_pandas_and_written_the_same(tmp_path: Path) -> None:
    frames = [pd.DataFrame({"n": [1.5, float("nan"), 3.0], "t": ["a", "=b", "c"]}),  # a float column: pandas
              pd.DataFrame({"n": np.array([1, 2, 3], dtype=np.int64), "t": ["-x", "y", "z"]}),
              pd.DataFrame({"v": pd.Series([np.float64(0.1), pd.NA, pd.Timestamp("2020-01-01")], dtype=object)}),
              pd.DataFrame({"a": pd.Series([], dtype=object), "b": pd.Series([], dtype=object)}),
              pd.DataFrame({0: ["x"], "b": ["=y"]}), pd.DataFrame({"one": ["", "=x", "a,b"]}),
              pd.DataFrame({"a": ["x", "=y"], "b": [[1], "z"]})]
    for k, frame in enumerate(frames):
        assert _cell_lists(frame) is None
        ours = write_csv(frame, tmp_path / f"ours{k}.csv").read_bytes()
        assert ours == pandas_bytes(frame, tmp_path / f"theirs{k}.csv", True)


def test_a_lone_surrogate_past_the_first_rows_fails_as_pandas_fails(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(csv_writing, "ROWS_AT_ONCE", 2)
    frame = pd.DataFrame({"a": ["x", "y", "z", "bad \ud800"], "b": ["1", "2", "3", "4"]})
    with pytest.raises(UnicodeEncodeError):
        frame.to_csv(tmp_path / "theirs.csv", index=False)
    with pytest.raises(UnicodeEncodeError):
        write_csv(frame, tmp_path / "ours.csv")
    assert list(tmp_path.iterdir()) == [tmp_path / "theirs.csv"]  # nothing staged is left
