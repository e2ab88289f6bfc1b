"""Every shell example the docs mark as runnable is run, so the documentation cannot drift from the CLI.

A fenced ```sh block directly after ``<!-- test: runs on the simulator -->`` or ``<!-- test: runs
offline -->`` (optionally ``..., exit N -->`` when the block's last command ends with N) is run by
``bash -e`` (each command must succeed), with this venv's ``hitflow`` on the PATH. A page's blocks run
in order in one fresh folder holding a copy of config/, as a reader following the page would run them
(a later block may use what an earlier one made). One test per page; blocks are kept small (--limit).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MARKED = re.compile(r"<!-- test: runs (?:on the simulator|offline)(?:, exit (\d+))? -->\n```(?:sh|bash)\n(.*?)\n```",
                    re.S)
LEFT_OUT = ("HITFLOW_DB", "PREFECT_API_URL", "HITFLOW_PREFECT_API_URL", "PREFECT_HOME", "HITFLOW_TASK_SECRET",
            "PROLIFIC_TOKEN")


def doc_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def marked_blocks() -> dict[str, list[tuple[int, str, int]]]:
    """page -> (line, script, expected exit code) of every marked block of README.md and docs/."""
    found: dict[str, list[tuple[int, str, int]]] = {}
    for page in doc_pages():
        text = page.read_text(encoding="utf-8")
        for m in MARKED.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.setdefault(str(page.relative_to(ROOT)), []).append((line, m[2], int(m[1] or 0)))
    return found


BLOCKS = marked_blocks()


def test_the_tutorials_and_guides_have_runnable_examples() -> None:
    pages = set(BLOCKS)
    for page in ("README.md", "docs/tutorials/first-campaign.md", "docs/tutorials/own-page.md",
                 "docs/tutorials/evaluation-study.md", "docs/how-to/resume-reconcile-cancel.md",
                 "docs/how-to/old-mturk-batch.md"):
        assert page in pages, f"{page} has no example marked <!-- test: runs on the simulator -->"


def test_a_marker_without_its_block_is_caught() -> None:
    """A marker separated from its block (or on a block of another language) would silently skip it."""
    for page in doc_pages():
        text = page.read_text(encoding="utf-8")
        markers = len(re.findall(r"^<!-- test: runs", text, re.M))
        assert markers == len(MARKED.findall(text)), f"{page}: a '<!-- test: runs' marker not right above ```sh"


@pytest.mark.parametrize("page", sorted(BLOCKS))
def test_doc_examples_run(tmp_path: Path, page: str) -> None:
    shutil.copytree(ROOT / "config", tmp_path / "config")
    env = {k: v for k, v in os.environ.items() if k not in LEFT_OUT}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    for line, script, code in BLOCKS[page]:
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == code, (f"{page}:{line} exited {done.returncode}, expected {code}\n--- stdout\n"
                                         f"{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}")
