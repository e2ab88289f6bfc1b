"""One marketplace, many campaigns (issue 67 point 1): the campaigns of a folder share its simulated
marketplace (workers, their history, qualifications) as a real one is shared, and a campaign cancelled
there leaves a crowd that takes the next ledger's work.

Found by hand: ``hitflow run config/vizwiz_captions.toml --db A.db``, Ctrl-C after "batch 1:", ``hitflow
cancel vizwiz_captions --db A.db``, then the same run with ``--db B.db`` got "0 of 100 assignments on 20
HITs (nobody took them: is anyone eligible?)", exit 8: B's HITs carried A's UniqueRequestTokens, so the
marketplace answered with A's cancelled (expired, deleted) HITs and B adopted them
(flows/platforms/mturk/hit_owner.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from flows.campaigns.summary import shortfall_lines
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from tests.small_configs import small_vizwiz
from tests.test_cancel_resume import NAME, hitflow


def stop_as_batch_1_collects(name: str, fn, run, batch: int):  # type: ignore[no-untyped-def]
    """A Ctrl-C once batch 1 is posted ("batch 1: ... HITs") and before its work is collected."""
    if name.startswith("collect") and batch == 1:
        raise KeyboardInterrupt
    return fn(run, batch)


def hit_ids(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT hit_id FROM hits")}


def test_a_cancelled_campaigns_marketplace_serves_a_fresh_ledgers_run_to_the_end(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    config, out = small_vizwiz(tmp_path, items=10), tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, db_path=tmp_path / "A.db", out_root=out, limit=10, progress=lambda _: None,
                     call=stop_as_batch_1_collects)
    assert hitflow("cancel", NAME, "--db", str(tmp_path / "A.db"), "--out", str(out)) == 0
    run_campaign(config, db_path=tmp_path / "B.db", out_root=tmp_path / "outB", limit=10, progress=lambda _: None)
    assert shortfall_lines(Store(tmp_path / "B.db"), NAME) == []  # what `hitflow run` ends with exit 8 on
    # B posted HITs of its own (none of A's cancelled ones adopted) and every planned assignment came in
    assert hit_ids(tmp_path / "B.db") and not hit_ids(tmp_path / "B.db") & hit_ids(tmp_path / "A.db")
    with sqlite3.connect(tmp_path / "B.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM assignments").fetchone()[0] == 5 * 5  # 5 batches: a HIT of 5 each
    # one marketplace: both ledgers ran on the folder's one file
    assert len(list((tmp_path / "sim").glob("*.db"))) == 1
