"""A review holds only its own campaign: the folder's embedded simulator is one file that one process holds
at a time, and ``hitflow review`` let go of it only when it stopped, so another campaign's run in the folder
exited 2 ("simulator state ... in use"). The page now holds the platform while it sends decisions and lets
go once idle; a run finding it held by such a page waits for it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from tests.forked_hitflow import ForkServer
from tests.small_configs import small_vizwiz


def test_another_campaign_runs_to_the_end_while_a_review_is_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   hitflow_forks: ForkServer) -> None:
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "runs" / "hitflow.db"
    first = small_vizwiz(tmp_path, name="first", items=5)
    second = small_vizwiz(tmp_path, name="second", items=5)
    run_campaign(first, db_path=db, out_root=tmp_path / "out", limit=5, progress=lambda _: None)
    # a process of its own, forked from the session's fork server: not a fresh interpreter's ~2 s of imports
    review = hitflow_forks.popen(["review", "first", "--db", str(db)], cwd=tmp_path, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
    try:
        assert review.stdout is not None
        line = ""
        while "token=" not in line:  # the page is up, having opened (and checked) the campaign's simulator
            line = review.stdout.readline()
            assert line, f"hitflow review ended without printing its link: {review.stderr.read()[-300:]}"
        summary = run_campaign(second, db_path=db, out_root=tmp_path / "out", limit=5, progress=lambda _: None)
    finally:
        review.terminate()
        review.wait(timeout=20)
    assert summary["captions"] == 5 * 5
    assert Store(db).rows("SELECT status FROM campaigns WHERE name = 'second'") == [{"status": "done"}]
