"""Two marketplaces on one ledger hand out the same ids (two simulators of the same seed: the folder's
embedded one and a served one): every platform record is keyed by its campaign, which the ledger binds to
one marketplace, so neither campaign takes over the other's study, submissions, status or money."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.driver.campaign_status import campaign_status
from flows.sim.service.server import SimServer
from tests.small_configs import small_vizwiz

ONE_STUDY = {"batches = 5": "batches = 1"}


def money_and_studies(store: Store, name: str) -> tuple[int, str, int, int]:
    (c,) = campaign_status(store, name)
    studies = store.table("studies").count_where("campaign = ?", [name])
    submissions = store.table("platform_submissions").count_where("campaign = ?", [name])
    answers = store.rows("SELECT count(*) AS n FROM answers x JOIN assignments a ON a.assignment_id = x.assignment_id "
                         "AND a.campaign = x.campaign WHERE a.campaign = ?", [name])[0]["n"]
    return studies, str(c["spent"]), submissions, answers


def test_two_simulators_with_the_same_ids_keep_each_campaigns_own_study_and_money(
        ledger_location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HITFLOW_TASK_SECRET", "0" * 64)  # a PostgreSQL ledger has no folder
    db = ledger_location
    first = small_vizwiz(tmp_path, name="first", items=10, edits=ONE_STUDY)
    second = small_vizwiz(tmp_path, name="second", items=10, edits=ONE_STUDY)
    run_campaign(first, db_path=db, out_root=tmp_path / "out", limit=10, progress=lambda _: None, platform="prolific")
    store = Store(db)
    before = money_and_studies(store, "first")
    assert before[0] == 1 and before[1] not in ("0", "0.00") and before[3] > 0
    ids = {r["study_id"] for r in store.rows("SELECT study_id FROM studies")}
    with SimServer(seed=1) as served:  # the same seed: the same study, submission and participant ids
        run_campaign(second, endpoint_url=served.url, db_path=db, out_root=tmp_path / "out", limit=10,
                     progress=lambda _: None, platform="prolific")
    assert {r["study_id"] for r in store.rows("SELECT study_id FROM studies WHERE campaign = 'second'")} == ids
    assert money_and_studies(store, "first") == before
    assert money_and_studies(store, "second")[:2] == before[:2]


def test_a_ledger_from_before_keys_its_records_by_campaign_once_migrated(ledger_location: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A ledger made by the migrations up to m013 (SQLite or PostgreSQL) keeps its rows, and its answers get
    their campaign; another marketplace's records of the same ids then go beside them."""
    from flows.core.ledger.store_migrations import migrations

    every = list(migrations._migrations)
    monkeypatch.setattr(migrations, "_migrations", [m for m in every if m.name != "m014_records_by_marketplace"])
    old = Store(ledger_location)
    old.table("assignments").insert({"assignment_id": "A1", "hit_id": "H1", "campaign": "first", "batch": 1,
                                     "worker_id": "W1", "status": "Submitted"})
    old.table("answers").insert({"assignment_id": "A1", "item_id": "i1", "field": "caption", "value": "a cat"})
    old.table("studies").insert({"study_id": "S1", "campaign": "first", "batch": 1, "status": "ACTIVE", "places": 5})
    old.close()
    monkeypatch.setattr(migrations, "_migrations", every)
    store = Store(ledger_location)
    assert store.applied_migrations()[-1] == "m014_records_by_marketplace"
    assert store.rows("SELECT campaign, value FROM answers") == [{"campaign": "first", "value": "a cat"}]
    with store.transaction():  # another marketplace's record of the same ids goes beside, not over, the old one
        store.insert_raw("assignments", [{"assignment_id": "A1", "hit_id": "H1", "campaign": "second", "batch": 1}])
        store.insert_raw("answers", [{"assignment_id": "A1", "item_id": "i1", "field": "caption", "value": "a dog",
                                      "campaign": "second"}], "REPLACE")
    store.table("studies").upsert({"study_id": "S1", "campaign": "second", "batch": 1, "status": "UNPUBLISHED",
                                   "places": 9}, pk=("campaign", "study_id"))
    assert store.rows("SELECT campaign, status, places FROM studies ORDER BY campaign") == [
        {"campaign": "first", "status": "ACTIVE", "places": 5}, {"campaign": "second", "status": "UNPUBLISHED",
                                                                 "places": 9}]
    assert [r["value"] for r in store.rows("SELECT value FROM answers ORDER BY campaign")] == ["a cat", "a dog"]
    if not ledger_location.startswith("postgresql"):  # SQLite's counting triggers are back on the rebuilt tables
        assert store.table("ledger_changes").count_where("campaign = 'second'") == 1
