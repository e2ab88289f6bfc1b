"""One marketplace, many campaigns: the campaigns of a folder share its simulated
marketplace (workers, their history, qualifications) as a real one is shared, and a campaign cancelled
there leaves a crowd that takes the next ledger's work.

Found by hand: ``hitflow run config/vizwiz_captions.toml --db A.db``, Ctrl-C after "batch 1:", ``hitflow
cancel vizwiz_captions --db A.db``, then the same run with ``--db B.db`` got "0 of 100 assignments on 20
HITs (nobody took them: is anyone eligible?)", exit 8: B's HITs carried A's UniqueRequestTokens, so the
marketplace answered with A's cancelled (expired, deleted) HITs and B adopted them
(flows/platforms/mturk/hit_owner.py)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from flows.campaigns.summary import shortfall_lines
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from tests.small_configs import small_vizwiz
from tests.test_cancel_resume import NAME, hitflow
from tests.test_sim_item_content import CLASSIFIER  # the review-tone page


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


REVIEWS = {"r00": ("Great kettle, I love how quickly it boils.", "Positive"),
           "r01": ("The strap broke on the first day, terrible.", "Negative"),
           "r02": ("The parcel was delivered on a Tuesday morning by courier.", "Neutral"),
           "r03": ("Wonderful service and a perfect fit, thank you.", "Positive")}


def tone_campaign(tmp_path: Path, name: str, items: dict[str, str], gold: str = "") -> Path:
    """A classifier campaign of ``items`` (id -> review); ``gold``: every item's known answer, from a column."""
    import csv

    from flows.cli.main import main

    (tmp_path / f"{name}.html").write_text(CLASSIFIER, encoding="utf-8")
    assert main(["new", name, "--from", str(tmp_path / f"{name}.html"), "--dir", str(tmp_path)]) == 0
    with (tmp_path / "config" / f"{name}_items.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["item_id", "review", "gold"], *([i, r, gold] for i, r in items.items())])
    config = tmp_path / "config" / f"{name}.toml"
    if gold:
        text = config.read_text(encoding="utf-8")
        config.write_text(text.replace("\nitems = ", '\ntruth = {tone = "gold"}\nitems = ', 1), encoding="utf-8")
    return config


def test_two_campaigns_in_one_folder_show_only_their_own_items_and_truths(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch, capsys):
    """A rating campaign with known answers (every review "Neutral", against what they say), then another
    campaign on the same folder's marketplace, with two of its items and its field name and no known answers:
    the second's sim_items.json, summary and report hold its own two items, read from what they say; the
    first's keep its four, known."""
    from flows.cli.main import main

    monkeypatch.chdir(tmp_path)
    first = tone_campaign(tmp_path, "rating", {i: r for i, (r, _) in REVIEWS.items()}, gold="Neutral")
    second = tone_campaign(tmp_path, "mood", {i: REVIEWS[i][0] for i in ("r00", "r01")})
    assert main(["run", str(first.relative_to(tmp_path)), "--no-prefect"]) in (0, 10)
    capsys.readouterr()
    assert main(["run", str(second.relative_to(tmp_path)), "--no-prefect"]) in (0, 10)
    said = capsys.readouterr().out
    assert len(list((tmp_path / "runs" / "sim").glob("*.db"))) == 1  # one marketplace for both
    rating = json.loads((tmp_path / "runs" / "rating" / "sim_items.json").read_text())
    mood = json.loads((tmp_path / "runs" / "mood" / "sim_items.json").read_text())
    assert {(r["item_id"], r["answer"], r["source"]) for r in rating} == {(i, "Neutral", "known") for i in REVIEWS}
    assert {(r["item_id"], r["answer"], r["source"]) for r in mood} == {(i, REVIEWS[i][1], "read")
                                                                        for i in ("r00", "r01")}
    assert "tone: known answers on 0 of 2 items" in said and "of 4 items" not in said
    report = (tmp_path / "runs" / "mood" / "report.html").read_text(encoding="utf-8")
    assert "known answers on 0 of 2 items" in report and "of 4 items" not in report


def test_the_marketplace_file_names_the_marketplace_and_an_older_folder_keeps_its_own(tmp_path: Path) -> None:
    from flows.platforms.targets import sim_state_path
    from flows.sim.people.crowd_keys import DEFAULT_CROWD

    ledger = tmp_path / "hitflow.db"
    assert sim_state_path(ledger, 1, None) == tmp_path / "sim" / "marketplace-seed1.db"
    assert sim_state_path(ledger, 1, DEFAULT_CROWD) == tmp_path / "sim" / "marketplace-seed1.db"  # named or not
    assert sim_state_path(ledger, 2, tmp_path / "judges.toml") == tmp_path / "sim" / "marketplace-judges-seed2.db"
    (tmp_path / "sim").mkdir()
    (tmp_path / "sim" / "vizwiz_demo-seed1.db").write_bytes(b"")  # a folder from before: its ledgers resume there
    assert sim_state_path(ledger, 1, None) == tmp_path / "sim" / "vizwiz_demo-seed1.db"
    assert sim_state_path(ledger, 2, None) == tmp_path / "sim" / "marketplace-seed2.db"  # another seed: a new one


def test_latent_answers_are_filed_under_the_campaign_whose_page_recorded_them() -> None:
    from flows.sim.people.campaign_scope import annotation_scope, campaign_scope, file_unscoped, scoped_truth
    from flows.sim.people.crowd_model import Worker

    worker = Worker("A1", "diligent", {}, 900, 99, memory={"latent:old|tone": "Neutral", "caption": "kept"})
    file_unscoped([worker])  # a state file from before scopes: nobody's campaign
    with campaign_scope(annotation_scope("rating:b1:h0:items-abc"), worker):
        worker.memory["latent:r1|tone"] = "Positive"
    with campaign_scope("mood", worker):
        worker.memory["latent:r1|tone"] = "Negative"  # the same item and field in another campaign
    assert [(r["item_id"], r["answer"]) for r in scoped_truth([worker], "rating")] == [("r1", "Positive")]
    assert [(r["item_id"], r["answer"]) for r in scoped_truth([worker], "mood")] == [("r1", "Negative")]
    assert {r["item_id"] for r in scoped_truth([worker], None)} == {"old", "r1"}
    assert worker.memory["caption"] == "kept"  # what a worker remembers for itself is not a campaign's
