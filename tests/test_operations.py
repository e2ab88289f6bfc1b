"""Operations: status tells the truth at every step; reconcile repairs; cancel is safe twice."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.driver.campaign import advance_batch, run_batches
from flows.driver.campaign_run import run_campaign
from flows.driver.campaign_status import campaign_status, format_status
from flows.driver.operations import cancel
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.batch_collect import collect_batch
from flows.platforms.mturk.batch_publish import publish_batch
from flows.platforms.mturk.operations import reconcile
from flows.platforms.mturk.qualifications import cost_per_assignment
from flows.platforms.targets import advance_sim_clock
from flows.sim.service.server import SimServer
from tests.test_campaign import CONFIG, make_run, quiet, sim_hits


def test_status_tells_the_truth_at_every_step(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=50)
    unit = cost_per_assignment(run.cfg)
    seen = []

    def checking_call(name, fn, r: Run, batch: int):
        result = fn(r, batch)
        seen.append(name)
        return result

    advance_batch(run, 1, lambda n, f, r, b: checking_call(n, f, r, b) if n.startswith("publish") else {})
    b1 = campaign_status(run.store, "vizwiz_captions")[0]["batches"][0]
    assert b1["hits"] == len(sim_hits(sim)) == 2 and b1["assignments"] == {}
    assert b1["committed"] == f"{unit * 10:.2f}"
    run.store.set_batch("vizwiz_captions", 1, status="published")
    collect_batch(run, 1)
    run.store.set_batch("vizwiz_captions", 1, status="collected")
    b1 = campaign_status(run.store, "vizwiz_captions")[0]["batches"][0]
    submitted = [a for a in sim.market.assignments.values() if a.submit_time is not None]
    assert b1["assignments"] == {"Submitted": len(submitted)} and b1["undecided"] == 10
    assert b1["auto_approval_in_s"] > 0 and b1["next"] == "run QC"
    advance_batch(run, 1)
    status = campaign_status(run.store, "vizwiz_captions")[0]
    b1 = status["batches"][0]
    approved = sum(1 for a in sim.market.assignments.values() if a.status == "Approved")
    assert b1["decisions"].get("approve", 0) == approved and b1["undecided"] == 0
    assert b1["spent"] == f"{unit * approved:.2f}" and status["next"] == "batch 2: publish batch"
    assert b1["blocked"] == run.store.table("blocks").count
    assert "batch 1: done;" in format_status([status])


def test_reconcile_adopts_expires_and_fetches(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=100)
    with pytest.raises(RuntimeError):
        publish_batch(run, 1, crash_after=1)
    # The crash left HITs that other threads posted unconfirmed in the ledger; add a stray
    # HIT carrying the campaign's annotation that the ledger never intended.
    type_id = json.loads(run.store.ledger_entry("vizwiz_captions:b1:hittype")["result"])["HITTypeId"]
    stray, _ = mturk.create_hit(run.client, type_id, {"MaxAssignments": 5, "LifetimeInSeconds": 9000,
                                                      "RequesterAnnotation": "vizwiz_captions:b9:h9",
                                                      "Question": sim_hits(sim)[0]["Question"]}, "s1")
    intended = {json.loads(r["params"])["RequesterAnnotation"] for r in run.store.rows(
        "SELECT params FROM ledger WHERE status = 'intended' AND operation = 'CreateHITWithHITType'")}
    expected = {h["HITId"] for h in sim_hits(sim) if h["RequesterAnnotation"] in intended}
    assert expected
    report = reconcile(run)
    assert set(report["adopted"]) == expected and report["expired_strays"] == [stray]
    assert mturk.get_hit(run.client, stray)["NumberOfAssignmentsAvailable"] == 0
    before = len(sim_hits(sim))
    publish_batch(run, 1)
    collect_batch(run, 1)
    run.store.db.execute("DELETE FROM answers")
    run.store.db.execute("DELETE FROM assignments")
    assert reconcile(run)["fetched"] == run.store.table("assignments").count > 0
    annotations = [h["RequesterAnnotation"] for h in sim_hits(sim)]
    assert len(annotations) == len(set(annotations)) == before  # resuming posted nothing twice


def _dataset(tmp_path: Path, name: str) -> pd.DataFrame:
    frame = pd.read_csv(tmp_path / name / "vizwiz_captions" / "dataset.csv", keep_default_na=False)
    cols = ["image_id", "worker_id", "caption", "is_precanned", "is_rejected", "batch"]
    return frame[cols].sort_values(cols).reset_index(drop=True)


# 50 images: the demo's 5 batches of 2 HITs (10 images, 5 assignments each): a crash after batch 2's first
# HIT still leaves one unposted, and batch 2's approvals can be cut part-way (100 images did the same with
# 4 HITs a batch, at twice the cost)
LIMIT = 50


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """The dataset of an uninterrupted run (seed 11, LIMIT images), which both interrupted runs below must
    equal: made once for the module (each test made its own, on seeds 11 and 12)."""
    root = tmp_path_factory.mktemp("uninterrupted")
    with SimServer(seed=11) as first:
        run_campaign(CONFIG, endpoint_url=first.url, db_path=root / "a.db", out_root=root / "a",
                     limit=LIMIT, progress=quiet)
    return _dataset(root, "a")


def test_interrupted_run_gives_the_same_dataset(tmp_path: Path, uninterrupted: pd.DataFrame) -> None:
    with SimServer(seed=11) as second:
        run = make_run(second, tmp_path / "b.db")
        plan_items(run, limit=LIMIT)
        advance_batch(run, 1)
        with pytest.raises(RuntimeError):
            publish_batch(run, 2, crash_after=1)
        run_campaign(CONFIG, endpoint_url=second.url, db_path=tmp_path / "b.db", out_root=tmp_path / "b",
                     limit=LIMIT, progress=quiet)
    pd.testing.assert_frame_equal(uninterrupted, _dataset(tmp_path, "b"))


def test_cancel_is_safe_twice(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=50)
    publish_batch(run, 1)
    advance_sim_clock(run.target, 1200)  # some work is in, most is not
    first = cancel(run)
    assert first["expired"] >= 1  # a HIT whose slots were all taken is no longer assignable
    assert all(mturk.get_hit(run.client, h["HITId"])["NumberOfAssignmentsAvailable"] == 0 for h in sim_hits(sim))
    advance_sim_clock(run.target, 7200)  # workers who had accepted finish
    second = cancel(run)
    assert second["expired"] == 0
    assert all(h.disposed for h in sim.market.hits.values())
    decided = run.store.table("decisions").count
    assert decided == sum(1 for a in sim.market.assignments.values() if a.submit_time is not None)
    assert campaign_status(run.store, "vizwiz_captions")[0]["status"] == "cancelled"
    assert Decimal(campaign_status(run.store)[0]["spent"]) > 0


def test_credentials_never_reach_store_logs_or_pages(sim, tmp_path: Path, monkeypatch, capsys) -> None:
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIASECRETACCESSKEY1")
    monkeypatch.setenv("PROLIFIC_TOKEN", "prolific-secret-token-123")
    run_batches(make_run(sim, tmp_path / "h.db"), limit=25)
    run_campaign(CONFIG, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path, limit=25,
                 progress=print)
    blobs = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    blobs += [h.question.html.encode() for h in sim.market.hits.values()]
    blobs.append(capsys.readouterr().out.encode())
    for needle in (secret, "AKIASECRETACCESSKEY1", "prolific-secret-token-123"):
        assert not any(needle.encode() in blob for blob in blobs)
    assert Store(tmp_path / "h.db").table("ledger").count > 0
    assert load_config(CONFIG).name == "vizwiz_captions"


def test_next_batch_advances_one_batch_per_run_until_done(sim, tmp_path: Path) -> None:
    from flows.driver.campaign import run_next_batch

    run = make_run(sim, tmp_path / "h.db")
    done = []
    for _ in range(7):
        batch = run_next_batch(run, limit=25)  # 5 batches of one HIT (50 made them two HITs each: the same steps)
        status = campaign_status(run.store, "vizwiz_captions")[0]
        if batch is None:
            break
        done.append(batch)
        finished = [b["batch"] for b in status["batches"] if b["status"] == "blocked"]
        assert finished == done  # exactly the batches run so far, in order
        assert status["next"] == ("nothing: all batches done" if batch == 5 else f"batch {batch + 1}: publish batch")
    assert done == [1, 2, 3, 4, 5] and status["status"] == "collected"
    assert run.store.table("locks").count == 0  # the lock is released after each run


def test_crash_mid_review_resumes_to_the_same_dataset(tmp_path: Path, monkeypatch,
                                                     uninterrupted: pd.DataFrame) -> None:
    import flows.platforms.mturk.adapter as adapter  # what MTurk's decide step calls

    real_approve, calls = adapter.approve, []

    def dying_approve(client, assignment_id):  # the process dies part-way through batch 2's approvals
        calls.append(assignment_id)
        if len(calls) == 19:  # batch 1 approves 14 (its top-ups too), batch 2 the 15th to the 24th
            raise KeyboardInterrupt("killed mid-review")
        return real_approve(client, assignment_id)

    with SimServer(seed=11) as second:
        monkeypatch.setattr(adapter, "approve", dying_approve)
        with pytest.raises(KeyboardInterrupt):
            run_campaign(CONFIG, endpoint_url=second.url, db_path=tmp_path / "b.db", out_root=tmp_path / "b",
                         limit=LIMIT, progress=quiet)
        monkeypatch.setattr(adapter, "approve", real_approve)
        store = Store(tmp_path / "b.db")
        assert store.table("ledger").count_where("operation = 'ApproveAssignment' AND status = 'intended'") > 0
        killed_in = store.rows("SELECT DISTINCT batch FROM ledger WHERE operation = 'ApproveAssignment' AND "
                               "status = 'intended'")
        assert [r["batch"] for r in killed_in] == [2]  # part-way through batch 2's approvals
        run_campaign(CONFIG, endpoint_url=second.url, db_path=tmp_path / "b.db", out_root=tmp_path / "b",
                     limit=LIMIT, progress=quiet)
        paid = [a for a in second.market.assignments.values() if a.status == "Approved"]
        assert len(paid) == store.table("decisions").count_where("action = 'approve'")
        # Nobody was paid twice: the balance fell by exactly one payment per approval.
        assert Decimal("10000.00") - second.market.balance == len(paid) * Decimal("0.66")
    pd.testing.assert_frame_equal(uninterrupted, _dataset(tmp_path, "b"))


def test_dry_runs_change_nothing(sim, tmp_path: Path) -> None:
    from flows.platforms.mturk.operations import cancel_plan

    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=50)
    publish_batch(run, 1)
    advance_sim_clock(run.target, 1800)
    type_id = json.loads(run.store.ledger_entry("vizwiz_captions:b1:hittype")["result"])["HITTypeId"]
    stray, _ = mturk.create_hit(run.client, type_id, {"MaxAssignments": 1, "LifetimeInSeconds": 9000,
                                                      "RequesterAnnotation": "vizwiz_captions:b8:h8",
                                                      "Question": sim_hits(sim)[0]["Question"]}, "s2")
    calls = sim.market.calls
    report = reconcile(run, dry_run=True)
    plan = cancel_plan(run)
    assert report["expired_strays"] == [stray] and report["fetched"] > 0
    assert run.store.table("assignments").count == 0  # nothing stored
    assert mturk.get_hit(run.client, stray)["HITStatus"] == "Assignable"  # nothing expired
    assert stray not in plan["would_expire"] and len(plan["would_expire"]) >= 1
    assert all(not h.disposed for h in sim.market.hits.values()) and sim.market.calls > calls
