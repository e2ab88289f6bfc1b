"""The answers.csv / workers.csv example in docs/reference/outputs.md is what `hitflow aggregate` writes."""

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
    assert set(blocks) == {"labels.csv", "answers.csv", "workers.csv"}
    (tmp_path / "labels.csv").write_text(blocks["labels.csv"], encoding="utf-8")
    assert main(["aggregate", str(tmp_path / "labels.csv"), "--out", str(tmp_path / "out" / "answers.csv")]) == 0
    capsys.readouterr()
    for name in ("answers.csv", "workers.csv"):
        written = (tmp_path / "out" / name).read_text(encoding="utf-8").replace("\r\n", "\n")
        assert written == blocks[name], name
