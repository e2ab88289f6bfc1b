"""``hitflow aggregate --adaptive``: the replay from the command line, on the real WSD file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

WSD = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "snow2008-wsd" / "wsd.standardized.tsv"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flows.cli.main", "aggregate", *args],
                          capture_output=True, text=True, check=False)


@pytest.mark.skipif(not WSD.exists(), reason=f"needs ../shared/data beside the project ({WSD} is absent)")
def test_adaptive_replay_writes_judgements_used_and_the_saving(tmp_path: Path) -> None:
    out = tmp_path / "answers.csv"
    done = _run(str(WSD), "--adaptive", "--columns", "orig_id,!amt_worker_ids,response", "--gold", "gold",
                "--lead", "2", "--method", "mv", "--out", str(out))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    answers = pd.read_csv(out)
    assert summary["judgements_total"] == 1770
    assert summary["judgements_used"] == answers["judgements_used"].sum() < 1770 / 2
    assert answers["judgements_used"].between(3, 10).all() and (answers["available"] == 10).all()
    assert summary["accuracy"] >= 0.99


def test_a_bad_rule_is_one_line(tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("item_id,worker_id,label\na,w1,x\na,w2,y\n")
    done = _run(str(labels), "--adaptive", "--min-judgements", "4", "--max-judgements", "2",
                "--out", str(tmp_path / "answers.csv"))
    assert done.returncode != 0
    assert "max_judgements 2 is below min_judgements 4" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "answers.csv").exists()
