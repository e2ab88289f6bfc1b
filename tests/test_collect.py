"""Collection: no answer left behind, calls that grow with the work, loud shortfalls, late work reviewed."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.campaigns.task_pages import task_page
from flows.core.config.config import load_config
from flows.core.errors import AnswerConflictError
from flows.core.ledger.store import Store
from flows.driver.campaign import review_late_work, run_batches
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk import batch_collect
from flows.platforms.mturk.batch_collect import collect_batch
from flows.platforms.mturk.batch_publish import publish_batch
from flows.platforms.targets import sim_clock
from tests.conftest import advance

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
READS = ("GetHIT", "ListAssignmentsForHIT", "ListReviewableHITs")


def make_run(sim: Any, db: Path, batches: int | None = None) -> Run:
    target = mturk.Target("sim", sim.url)
    # the demo without its caption top-ups: these tests count each HIT's MaxAssignments (top-ups collect apart)
    cfg = load_config(CONFIG)
    cfg = replace(cfg, answers=cfg.answers.model_copy(update={"top_up_rounds": 0}), batches=batches or cfg.batches)
    return Run(cfg, Store(db), mturk.make_client(target), target, lambda _: None,
               lambda s: advance(sim, s), page=task_page, clock=sim_clock(target))  # the platform's clock, as a run's


def submitted_on_platform(sim: Any) -> set[str]:
    m = sim.market
    return {a.assignment_id for a in m.assignments.values() if a.submit_time is not None and a.submit_time <= m.now}


def stored(run: Run, table: str = "assignments") -> set[str]:
    return {r["assignment_id"] for r in run.store.rows(f"SELECT assignment_id FROM {table}")}


def clock_moves_on_every_read(run: Run, sim: Any, seconds: float) -> None:
    """Workers submit between any two platform reads: between a listing and a status check."""
    for op in READS:
        run.client.meta.events.register(f"before-call.mturk.{op}", lambda **_: advance(sim, seconds))


@pytest.mark.parametrize("per_hit_checks", [False, True], ids=["ListReviewableHITs", "GetHIT-then-list"])
def test_work_arriving_between_calls_is_never_lost(sim, tmp_path: Path, monkeypatch, per_hit_checks) -> None:
    """Also, where the HIT type is known: every batch shares one, so a Reviewing listing is every HIT the campaign
    marked, pages that grow with each batch. A batch no run has marked yet has none to find there (read off these
    three batches rather than a run of their own)."""
    if per_hit_checks:  # an endpoint whose HIT type is unknown: each HIT is asked in turn
        monkeypatch.setattr(batch_collect, "_hit_type_id", lambda run, batch: "")
    run = make_run(sim, tmp_path / "h.db")
    statuses = listed_statuses(run)
    clock_moves_on_every_read(run, sim, 300)
    run_batches(run, limit=60)  # three batches
    on_platform = submitted_on_platform(sim)
    assert len(on_platform) == len(sim.market.hits) * 5 == 75  # every slot of the 15 HITs was taken
    assert stored(run) == on_platform
    assert stored(run, "decisions") == on_platform  # and every one of them decided
    if not per_hit_checks:  # (asked HIT by HIT, nothing is listed by status)
        assert statuses and set(statuses) == {"Reviewable"}  # a fresh batch never lists the Reviewing HITs


def test_a_poll_round_costs_what_came_in_not_what_is_open(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=200)
    publish_batch(run, 1)  # 8 HITs of 5 images
    calls: Counter[str] = Counter()
    run.client.meta.events.register("before-call.mturk", lambda model, **_: calls.update([model.name]))
    rounds: list[tuple[Counter[str], int]] = []
    before = {"stored": 0}

    def wait(seconds: float) -> None:
        now = run.store.table("assignments").count
        rounds.append((Counter(calls), now - before["stored"]))
        before["stored"] = now
        calls.clear()
        advance(sim, seconds)

    run.wait = wait
    result = collect_batch(run, 1)
    rounds.append((Counter(calls), run.store.table("assignments").count - before["stored"]))
    assert result["stored"] == 40 and not result["shortfall"]
    idle = [c for c, came in rounds if came == 0]
    # nothing came in: one listing (+ first-round check); a mark of the round before may still land in it
    assert idle and all(sum(c[op] for op in READS) <= 2 for c in idle)
    for c, came in rounds:
        assert c["GetHIT"] == 0 and c["ListAssignmentsForHIT"] <= came  # a HIT is listed only once it is full
    assert sum(c["ListAssignmentsForHIT"] for c, _ in rounds) == 8  # each HIT listed exactly once
    assert sum(c["UpdateHITReviewStatus"] for c, _ in rounds) == 8  # and marked once, by the time collect returns


def listed_statuses(run: Run) -> list[str]:
    """The Status of every ListReviewableHITs call the run's client sends (botocore's own event)."""
    statuses: list[str] = []
    run.client.meta.events.register("provide-client-params.mturk.ListReviewableHITs",
                                    lambda params, **_: statuses.append(params.get("Status", "Reviewable")))
    return statuses


def test_a_collection_stopped_after_its_marks_finds_them_on_the_next_run(sim, tmp_path: Path, monkeypatch) -> None:
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=40)
    publish_batch(run, 1)
    advance(sim, 3 * 86400)  # every HIT full and closed
    marked: list[str] = []
    monkeypatch.setattr(batch_collect.ClosedHits, "store_listed",
                        lambda self, run, batch, hit_id, subs: marked.append(hit_id) or 0)  # killed before storing
    with pytest.raises(RuntimeError):
        monkeypatch.setattr(batch_collect.ClosedHits, "marked", lambda self: (_ for _ in ()).throw(RuntimeError))
        collect_batch(run, 1)
    monkeypatch.undo()
    assert marked and all(sim.market.hits[h].reviewing for h in marked)  # marked on the platform, none stored
    statuses = listed_statuses(run)
    assert collect_batch(run, 1)["stored"] == len(submitted_on_platform(sim)) == 5 * len(sim.market.hits)
    assert "Reviewing" in statuses  # the ledger's note sent the next run to the marked HITs


def test_a_batch_that_gets_no_work_says_so_and_stops(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db")
    sim.market.blocks.update({w: "test" for w in sim.market.workers})  # nobody is eligible any more
    run_batches(run, limit=50)
    row = run.store.rows("SELECT status, shortfall FROM batches WHERE batch = 1")[0]
    shortfall = json.loads(row["shortfall"])
    assert shortfall == {"hits": 2, "expected": 10, "got": 0, "short_hits": 2, "still_open": 0}
    assert row["status"] == "blocked"  # nothing to check or decide; no KeyError on an empty batch
    posted_batches = {r["batch"] for r in run.store.rows("SELECT DISTINCT batch FROM hits")}
    assert posted_batches == {1}  # batches 2-5 were not posted after batch 1 got nothing


def test_an_id_another_campaign_holds_is_kept_apart_and_one_of_its_own_stops_the_run(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=10)
    publish_batch(run, 1)
    advance(sim, 3 * 86400)
    hit_id = next(iter(sim.market.hits))
    first = mturk.list_submissions(run.client, hit_id)[0]
    with run.store.transaction():  # the same id, stored earlier by another campaign on another marketplace
        run.store.table("assignments").insert({"assignment_id": first["AssignmentId"], "hit_id": "OTHERHIT",
                                               "campaign": "other", "batch": 1, "worker_id": "W"})
    collect_batch(run, 1)
    owners = {r["campaign"]: r["hit_id"] for r in run.store.rows(
        "SELECT campaign, hit_id FROM assignments WHERE assignment_id = ?", [first["AssignmentId"]])}
    assert owners == {"other": "OTHERHIT", run.cfg.name: hit_id}  # each campaign keeps its own record
    assert run.store.table("answers").count_where("campaign = ? AND assignment_id = ?",
                                                  [run.cfg.name, first["AssignmentId"]]) > 0
    with run.store.transaction():  # the campaign's own id under another HIT: an answer would be hidden
        run.store.execute("UPDATE assignments SET hit_id = 'OTHERHIT' WHERE campaign = ? AND assignment_id = ?",
                          [run.cfg.name, first["AssignmentId"]])
    with pytest.raises(AnswerConflictError, match=r"already in .* for campaign"):
        collect_batch(run, 1)


def test_late_work_is_reviewed_before_it_reaches_the_dataset(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db", batches=1)  # batch 1 is what is read: the demo's later ones add nothing
    run_batches(run, limit=20)
    # A submission reconcile fetched after batch 1 was decided: it has no decision yet.
    late = run.store.rows("SELECT assignment_id FROM assignments WHERE batch = 1 LIMIT 1")[0]["assignment_id"]
    with run.store.transaction():
        run.store.db.execute("DELETE FROM decisions WHERE assignment_id = ?", [late])
        run.store.db.execute("DELETE FROM ledger WHERE idem_key LIKE ?", [f"%:{late}"])
    assert review_late_work(run) == [1]
    decision = run.store.rows("SELECT action, applied FROM decisions WHERE assignment_id = ?", [late])
    assert decision and decision[0]["applied"]  # decided and applied on the platform
    assert review_late_work(run) == []


@pytest.mark.parametrize("accept_partial", [False, True])
def test_an_honest_ending_when_nobody_can_work(sim, tmp_path: Path, capsys, accept_partial) -> None:
    from flows.cli.main import main
    from tests.test_budget import config_with

    sim.market.blocks.update({w: "test" for w in sim.market.workers})  # a crowd with nobody eligible
    config = config_with(tmp_path, f'budget = "400.00 USD"\naccept_partial = {str(accept_partial).lower()}')
    db = str(tmp_path / "h.db")
    code = main(["run", str(config), "--no-prefect", "--endpoint-url", sim.url, "--db", db, "--limit", "50",
                 "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert "INCOMPLETE: batch 1 got no work: 0 of 10 assignments on 2 HITs" in out
    assert "INCOMPLETE: batch(es) 2, 3, 4, 5 not posted" in out and "relax [policy]/[gating]" in out
    assert "Traceback" not in err
    if accept_partial:
        assert code == 0 and "partial results accepted" in out
    else:
        assert code == 8 and len(err.strip().splitlines()) == 1 and "is incomplete" in err
    assert main(["status", "vizwiz_captions", "--db", db]) == 0
    assert "INCOMPLETE: batch 1 got no work" in capsys.readouterr().out
    report = (tmp_path / "vizwiz_captions" / "report.html").read_text()
    assert "Incomplete: less work came in than planned" in report and "0 of 10 assignments" in report


def test_an_assignment_is_stored_with_its_answers_or_not_at_all(sim, tmp_path: Path, monkeypatch) -> None:
    """A crash between the assignment row and its answer rows must not leave a row that a resumed
    run takes for "already stored" (its answers would never reach the dataset)."""
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=10)
    publish_batch(run, 1)
    advance(sim, 86400)
    hit = run.store.rows("SELECT * FROM hits LIMIT 1")[0]
    first = mturk.list_submissions(run.client, hit["hit_id"])[0]
    real_insert = type(run.store).insert_raw  # the backend's own (flows/core/ledger/store_sqlite.py)

    def crash_on_answers(self, table, rows, conflict="ABORT"):
        if table == "answers":
            raise KeyboardInterrupt  # stands in for kill -9 between the two writes
        return real_insert(self, table, rows, conflict)

    monkeypatch.setattr(type(run.store), "insert_raw", crash_on_answers)
    with pytest.raises(KeyboardInterrupt):
        batch_collect.store_assignment(run, 1, hit, first)
    monkeypatch.undo()
    assert run.store.table("assignments").count == 0
    assert batch_collect.store_assignment(run, 1, hit, first)  # the resumed run stores it, answers and all
    fields = {"caption", "text_present", "start_ms", "end_ms"}
    # per item; the page's one hitflow_telemetry answer has no item
    assert run.store.table("answers").count_where("assignment_id = ? AND item_id != ''", [first["AssignmentId"]]) == \
        len(fields) * len(json.loads(hit["item_ids"]))
