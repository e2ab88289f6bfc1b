"""The answers.csv / workers.csv examples in docs/reference/outputs.md are what `hitflow aggregate` writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flows.cli.main import main

DOC = Path(__file__).resolve().parents[1] / "docs" / "reference" / "outputs.md"


def _blocks() -> dict[str, str]:
    return dict(re.findall(r"```csv (\S+)\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S))


def test_documented_example_is_what_aggregate_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = _blocks()
    assert set(blocks) == {"labels.csv", "answers.csv", "workers.csv", "labels-with-controls.csv", "controls.csv",
                           "with-controls/workers.csv"}
    (tmp_path / "labels.csv").write_text(blocks["labels.csv"], encoding="utf-8")
    assert main(["aggregate", str(tmp_path / "labels.csv"), "--out", str(tmp_path / "out" / "answers.csv")]) == 0
    capsys.readouterr()
    for name in ("answers.csv", "workers.csv"):
        written = (tmp_path / "out" / name).read_text(encoding="utf-8").replace("\r\n", "\n")
        assert written == blocks[name], name


def test_documented_example_with_controls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The pooled rule's columns; dee, who met controls only, has the Beta posterior the text gives."""
    from scipy import stats

    blocks = _blocks()
    for name in ("labels-with-controls.csv", "controls.csv"):
        (tmp_path / name).write_text(blocks[name], encoding="utf-8")
    assert main(["aggregate", str(tmp_path / "labels-with-controls.csv"), "--controls", str(tmp_path / "controls.csv"),
                 "--out", str(tmp_path / "out" / "answers.csv")]) == 0
    capsys.readouterr()
    written = (tmp_path / "out" / "workers.csv").read_text(encoding="utf-8").replace("\r\n", "\n")
    assert written == blocks["with-controls/workers.csv"]
    dee = written.splitlines()[-1].split(",")
    assert float(dee[7]) == pytest.approx(stats.beta(2.5, 1.5).sf(0.5), abs=1e-4)
    assert float(dee[6]) == pytest.approx(stats.beta(2.5, 1.5).mean(), abs=1e-4)
