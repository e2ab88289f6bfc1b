"""The README's first screen shows how `make demo` ends; those lines are what the demo prints.

`make demo` runs ``hitflow run config/vizwiz_captions.toml --target sim`` (500 images, seed from the config);
its summary does not depend on Prefect, so the campaign runs here in-process with ``--no-prefect`` (about
17 s of CPU) and every line of the README's ```text block but the ``...`` elision must appear in its output,
in the README's order.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from flows.cli.main import main

ROOT = Path(__file__).resolve().parent.parent


def readme_demo_lines() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"It ends like this:\n\n```text\n(.*?)\n```", text, re.S)
    assert block, "README.md: the demo's ```text block after 'It ends like this:' is gone"
    return [line for line in block.group(1).splitlines() if line.strip() != "..."]


def test_the_readme_quotes_lines_of_the_demo_in_order() -> None:
    lines = readme_demo_lines()
    assert lines[0].startswith("captions: ") and lines[-1].startswith("report:")


@pytest.mark.slow
def test_make_demo_ends_as_the_readme_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(ROOT / "config", tmp_path / "config")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/vizwiz_captions.toml", "--target", "sim", "--no-prefect"]) == 0
    printed = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    at = 0
    for line in readme_demo_lines():
        assert line.rstrip() in printed[at:], f"README.md's demo line is not what `make demo` prints: {line!r}"
        at = printed.index(line.rstrip(), at) + 1
