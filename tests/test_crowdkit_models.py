"""Majority vote and Dawid-Skene load without ``crowdkit.aggregation``'s ``__init__``
(postprocess/answers/crowdkit_models.py): the caption outputs' last step no longer imports nltk, scikit-learn and
scipy.stats (+83 MB, the 39,181-image run's peak), and the answers are those the whole package gives."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import random, sys
import pandas as pd
if sys.argv[1] == "whole":
    import crowdkit.aggregation  # noqa: F401
from postprocess.answers.aggregation import aggregate
rng = random.Random(7)
rows = [(f"i{i}", f"w{(i * 3 + k) % 17}", "yes" if rng.random() < (0.8 if i % 3 else 0.25) else "no")
        for i in range(90) for k in range(5)]
frame = pd.DataFrame(rows, columns=["item_id", "worker_id", "label"])
for method in sys.argv[2:]:
    result = aggregate(frame, method=method)
    print("=== " + method)
    print(result.answers.to_csv(index=False), result.workers.to_csv(index=False))
print("HEAVY", sorted(m for m in ("sklearn", "nltk", "scipy.stats", "crowdkit.aggregation") if m in sys.modules))
"""


def probe(*args: str) -> tuple[list[str], str]:
    """Each method's answers and workers as CSV, and the heavy modules loaded by the end."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=True)
    answers, heavy = done.stdout.rsplit("HEAVY ", 1)
    return answers.split("=== ")[1:], heavy.strip()


@pytest.fixture(scope="module")
def light() -> tuple[list[str], str]:
    """The light methods in one fresh process for both tests (a process of its own each cost ~0.7 s more): the
    four the whole package is compared on, then GLAD and MACE, then Dawid-Skene again."""
    return probe("light", "auto", "ds", "mv", "one-coin", "glad", "mace", "ds")


def test_dawid_skene_and_majority_vote_load_alone_and_answer_as_the_whole_package(light) -> None:
    answers, loaded = light
    whole, loaded_whole = probe("whole", "auto", "ds", "mv", "one-coin")
    assert loaded == "[]" and "crowdkit.aggregation" in loaded_whole
    # auto chooses between mv and ds on held-out labels (postprocess/answers/method_choice.py), either way alike in both
    assert len(answers) == 7 and ",ds," in answers[1] and (",ds," in answers[0] or ",mv," in answers[0])
    assert answers[:4] == whole


def test_glad_and_mace_are_fast_em_and_leave_the_whole_package_out(light) -> None:
    answers, loaded = light
    assert loaded == "[]" and len(answers) == 7 and ",glad," in answers[4] and ",mace," in answers[5]
    assert answers[1] == answers[6]  # Dawid-Skene before and after the others ran
