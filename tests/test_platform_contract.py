"""One contract, three platforms: MTurk, Prolific and invite links, each through
``flows.platforms.registry.platform_for`` against the simulator (links: the task server, the simulator's
crowd opening their links). The checks speak only the interface's words (publish, collect,
decide, block, reconcile, cancel, estimate); what each platform shows of itself afterwards is
read by a few lines of glue per platform in :class:`Route`.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest

from flows.campaigns.batch_review import block_workers, decide_batch, qc_batch
from flows.campaigns.campaign_plan import plan_items
from flows.campaigns.task_pages import task_page
from flows.core.config.config import load_config
from flows.core.errors import PlatformError
from flows.core.ledger.store import SETTLED, Store
from flows.core.run.run_context import Run
from flows.driver.campaign_run import task_server_for
from flows.driver.operations import cancel
from flows.platforms.batch_window import open_window
from flows.platforms.interface import Platform
from flows.platforms.mturk import adapter as mturk
from flows.platforms.prolific import adapter as prolific
from flows.platforms.registry import open_session, platform_for
from flows.platforms.units import hit_groups
from flows.sim.service.server import SimServer

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
NAME = "vizwiz_captions"
CREATES = {"mturk": "CreateHITWithHITType", "prolific": "CreateStudy", "links": ""}  # the call that makes a unit


class Route:
    """A campaign run on one platform, and how that platform shows its units and its money."""

    def __init__(self, run: Run, out: Path):
        self.run, self.out = run, out
        self.platform: Platform = platform_for(run.platform)
        self.start = self.balance()

    def balance(self) -> Decimal:
        if self.run.platform == "mturk":
            return mturk.balance(self.run.client)
        if self.run.platform == "prolific":  # the total: a published study's reserve lowers only the available
            client = self.run.client
            assert isinstance(client, prolific.ProlificClient)
            view = prolific.call(client, "GET", f"workspaces/{prolific.default_workspace(client)}/balance/")
            return Decimal(view["total_balance"]) / 100
        return Decimal("0.00")  # invitees are paid by nobody

    def spent(self) -> Decimal:
        return self.start - self.balance()

    def units(self) -> list[str]:
        """What the platform holds for the campaign: HITs, studies, or the invite links handed out."""
        if self.run.platform == "mturk":
            return sorted(h["HITId"] for h in mturk.list_hits(self.run.client)
                          if str(h.get("RequesterAnnotation", "")).startswith(f"{NAME}:"))
        if self.run.platform == "prolific":
            client = self.run.client
            assert isinstance(client, prolific.ProlificClient)
            return sorted(s["id"] for s in prolific.every_page(client, "studies/")
                          if str(s.get("internal_name", "")).startswith(f"{NAME} batch"))
        invites = self.out / NAME / "invites.csv"
        return sorted(pd.read_csv(invites, dtype=str)["link"]) if invites.is_file() else []

    def open_units(self) -> int:
        if self.run.platform == "mturk":
            return sum(mturk.get_hit(self.run.client, h)["HITStatus"] == "Assignable" for h in self.units())
        if self.run.platform == "prolific":
            client = self.run.client
            assert isinstance(client, prolific.ProlificClient)
            return sum(prolific.get_study(client, s)["status"] in ("ACTIVE", "PAUSED") for s in self.units())
        # links: an invite that still opens a page is open work (opening one holds a unit for a while)
        return sum(httpx.get(link, timeout=30).status_code == 200 for link in self.units())

    def publish(self, batch: int) -> None:
        self.platform.publish(self.run, batch)
        # as the driver does: the batch is open (the task server serves it) and its time counts from now
        self.run.store.set_batch(NAME, batch, status="published")
        open_window(self.run, batch)

    def work(self, batch: int) -> list[dict[str, Any]]:
        return self.run.store.rows("SELECT assignment_id, worker_id FROM assignments WHERE campaign = ? AND batch = ? "
                                   "AND status != 'NOT ON PROLIFIC'", [NAME, batch])

    def took_part(self, batch: int) -> set[str]:
        """Everyone the platform let start the batch's work (on Prolific also those the task server
        then turned away: they took a place)."""
        if self.run.platform == "prolific":
            return {r["participant_id"] for r in self.run.store.rows(
                "SELECT participant_id FROM platform_submissions WHERE campaign = ? AND batch = ?", [NAME, batch])}
        return {w["worker_id"] for w in self.work(batch)}

    def ledger(self, operation: str) -> list[dict[str, Any]]:
        return self.run.store.rows("SELECT * FROM ledger WHERE campaign = ? AND operation = ?", [NAME, operation])


def small_crowd(tmp_path: Path) -> Path:
    """Twelve diligent people for ten places a batch: most of batch 1's come back for batch 2
    unless something keeps them out (a block that does nothing fails the block check)."""
    crowd = tmp_path / "crowd.toml"
    # the bank beside the crowd file: a crowd's files stay in its folder (flows/core/inputs/contained_paths.py)
    shutil.copy(ROOT / "config" / "items" / "vizwiz_demo_captions.csv", tmp_path / "bank.csv")
    crowd.write_text('seed = 1\ncaption_bank = "bank.csv"\n\n[[profile]]\nname = "diligent"\ncount = 12\n')
    return crowd


@pytest.fixture(params=["mturk", "prolific", "links"])
def route(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Route]:
    name, crowd = request.param, small_crowd(tmp_path)
    cfg = replace(load_config(CONFIG), sim_crowd=crowd)  # the links' simulated invitees come from the same crowd
    # caption top-ups on (they extend units as adaptive overlap does): the task server steers by extensions
    cfg = replace(cfg, answers=cfg.answers.model_copy(update={"top_up_rounds": 1}))
    with SimServer(seed=7, crowd_file=crowd) as sim, open_session("sim", sim.url, platform=name) as session:
        run = Run(cfg, Store(tmp_path / "h.db"), session.client, session.target,
                  lambda _: None, session.wait, platform=name, notes={"out_dir": str(tmp_path), "seed": 7},
                  clock=session.clock, page=task_page)
        with task_server_for(run, ""):
            plan_items(run, limit=50)  # five batches of two units, five people each
            yield Route(run, tmp_path)


def test_a_published_batch_is_collected_once_even_when_both_are_called_twice(route: Route) -> None:
    route.publish(1)
    units = route.units()
    assert units
    route.publish(1)
    assert route.units() == units  # publishing again posted nothing
    route.platform.collect(route.run, 1)
    first = route.work(1)
    answers = route.run.store.table("answers").count
    assert first and answers
    route.platform.collect(route.run, 1)
    assert route.work(1) == first and route.run.store.table("answers").count == answers


def test_decisions_are_applied_once_and_the_platform_shows_them(route: Route) -> None:
    route.publish(1)
    route.platform.collect(route.run, 1)
    qc_batch(route.run, 1)
    decide_batch(route.run, 1)
    spent, ledger = route.spent(), route.run.store.table("ledger").count
    decide_batch(route.run, 1)  # a second pass sends nothing more
    assert route.spent() == spent and route.run.store.table("ledger").count == ledger
    decisions = route.run.store.rows("SELECT d.action, d.applied, a.status FROM decisions d JOIN assignments a "
                                     "ON a.assignment_id = d.assignment_id WHERE d.campaign = ?", [NAME])
    assert decisions and all(d["applied"] for d in decisions)
    route.platform.refresh(route.run)
    statuses = {r["assignment_id"]: r["status"] for r in route.run.store.rows(
        "SELECT assignment_id, status FROM assignments WHERE campaign = ?", [NAME])}
    rows = route.run.store.rows("SELECT assignment_id, action, applied FROM decisions WHERE campaign = ?", [NAME])
    for d in rows:
        if not route.platform.SENDS_DECISIONS:
            assert d["applied"] == "self-hosted"
        elif d["action"] in ("approve", "reject"):  # what the platform says now, after a refresh
            assert statuses[d["assignment_id"]].lower() == {"approve": "approved", "reject": "rejected"}[d["action"]]
    assert (spent > 0) == (route.platform.SENDS_DECISIONS and any(d["action"] == "approve" for d in rows))


def test_a_block_keeps_workers_out_of_the_next_batch(route: Route) -> None:
    route.publish(1)
    route.platform.collect(route.run, 1)
    busiest = list(pd.DataFrame(route.work(1))["worker_id"].value_counts().index[:3])
    block_workers(route.run, 1, dict.fromkeys(busiest, "contract"))
    block_workers(route.run, 1, dict.fromkeys(busiest, "contract"))  # blocked once, not twice
    assert len(route.ledger("ExcludeWorker")) == 3
    route.publish(2)
    route.platform.collect(route.run, 2)
    later = route.took_part(2)
    assert later and not later & set(busiest)


def test_reconcile_after_a_crash_adopts_and_nothing_is_posted_twice(route: Route,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    creates, store = CREATES[route.run.platform], route.run.store
    real_settle = store.settle

    def killed_before_recording(key: str, status: str, result: Any = None, error: str = "") -> None:
        entry = store.ledger_entry(key)
        if entry and entry["operation"] == creates:  # the call went through; its answer was never written down
            raise RuntimeError("killed")
        real_settle(key, status, result, error)

    monkeypatch.setattr(store, "settle", killed_before_recording)
    if creates:
        with pytest.raises(RuntimeError, match="killed"):
            route.publish(1)
    else:
        route.publish(1)  # links: publishing writes nothing to a platform
    monkeypatch.setattr(store, "settle", real_settle)
    made = route.units()
    report = route.platform.reconcile(route.run)
    assert set(report["adopted"]) <= set(made) and (bool(report["adopted"]) == bool(creates))
    route.publish(1)
    planned = len(hit_groups(route.run, 1)) if route.run.platform == "mturk" else len(made) or 1
    assert len(route.units()) == planned and set(made) <= set(route.units())
    assert all(e["status"] in SETTLED for e in route.ledger(creates))
    route.platform.collect(route.run, 1)
    assert route.work(1)


def test_cancel_closes_what_is_open_and_is_safe_twice(route: Route) -> None:
    route.publish(1)
    route.run.wait(1200)  # some work is in, most is not
    first = cancel(route.run)
    assert route.open_units() == 0
    route.run.wait(7200)  # people who had started finish
    second = cancel(route.run)
    assert second["closed"] == 0 and first["closed"] >= 0
    undecided = route.run.store.rows("SELECT count(*) AS n FROM assignments a WHERE campaign = ? AND NOT EXISTS "
                                     "(SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)", [NAME])
    assert undecided[0]["n"] == 0
    assert route.run.store.rows("SELECT status FROM campaigns WHERE name = ?", [NAME])[0]["status"] == "cancelled"


def _decisions(route: Route, actions: dict[str, str]) -> list[dict[str, Any]]:
    """Record ``assignment_id -> action`` as the decide step does; the rows to send."""
    store = route.run.store
    workers = {w["assignment_id"]: w["worker_id"] for w in route.work(1)}
    with store.transaction():
        store.table("decisions").upsert_all([
            {"assignment_id": a, "campaign": NAME, "batch": 1, "worker_id": workers[a], "action": action,
             "reasons": "min_words", "review": 0, "decided_at": 0.0, "applied": ""}
            for a, action in actions.items()], pk=("campaign", "assignment_id"))
    return store.rows(f"SELECT * FROM decisions WHERE assignment_id IN ({','.join('?' * len(actions))})",
                      list(actions))


def test_the_estimate_is_what_the_work_costs_and_a_rejection_pays_nothing(route: Route) -> None:
    units = len(hit_groups(route.run, 1))
    places = units * route.run.cfg.assignments_per_image
    estimate = route.platform.estimate(route.run.cfg, {1: units}, route.run.client)
    # the estimate is the worst case: on MTurk the demo's caption top-ups may take every HIT to 9 assignments
    cfg = route.run.cfg
    worst = cfg.worst_per_hit_with_top_ups if route.platform.TOPS_UP_CAPTIONS else cfg.worst_per_item
    price = estimate.total / (units * worst)
    route.publish(1)
    route.platform.collect(route.run, 1)
    done = [w["assignment_id"] for w in route.work(1)]
    refused, approved = done[0], done[1:]
    route.platform.decide(route.run, 1, _decisions(route, {refused: "reject", **dict.fromkeys(approved, "approve")}))
    assert 0 < len(approved) < places
    assert route.spent() == (price * len(approved)).quantize(Decimal("0.01"))
    with contextlib.suppress(PlatformError):  # MTurk refuses to approve a rejection; Prolific leaves it unpaid
        route.platform.decide(route.run, 1, _decisions(route, {refused: "approve"}))
    assert route.spent() == (price * len(approved)).quantize(Decimal("0.01"))


EXTENDS = {"mturk": "CreateAdditionalAssignmentsForHIT", "prolific": "ExtendUnit", "links": "ExtendUnit"}


def test_extending_a_unit_adds_one_judgement_once(route: Route) -> None:
    """Adaptive overlap's call: one more judgement on a posted unit, ledgered before it is made,
    so asking twice for the same round extends once. MTurk: CreateAdditionalAssignmentsForHIT; Prolific: one
    more place on the batch's study, which the task server hands to the extended unit; links: the task
    server hands the unit to one more invitee."""
    route.publish(1)
    route.platform.collect(route.run, 1)
    assert route.platform.EXTENDS_UNITS
    units = route.platform.posted_units(route.run, 1)
    assert len(units) == len(hit_groups(route.run, 1)) and all(items for _, items in units)
    unit = units[0][0]

    def workers() -> list[str]:
        return [w["worker_id"] for w in route.run.store.rows(
            "SELECT worker_id FROM assignments WHERE hit_id = ? AND status NOT IN ('RETURNED', 'TIMED-OUT')", [unit])]

    before, others = workers(), route.run.store.table("assignments").count - len(workers())
    route.platform.extend_units(route.run, 1, 1, [unit])
    route.platform.extend_units(route.run, 1, 1, [unit])  # the same round again: nothing more is asked
    assert [e["status"] for e in route.ledger(EXTENDS[route.run.platform])] == ["ok"]
    after = workers()
    assert len(after) == len(before) + 1 and len(set(after)) == len(after)  # one more judgement, by someone new
    assert route.run.store.table("assignments").count - len(after) == others  # and none on another unit
    if route.run.platform == "mturk":
        assert mturk.get_hit(route.run.client, unit)["MaxAssignments"] == len(before) + 1
    if route.run.platform == "prolific":
        client = route.run.client
        assert isinstance(client, prolific.ProlificClient)
        [places] = route.ledger("IncreasePlaces")
        study = prolific.get_study(client, unit.split(":")[0])
        assert places["status"] == "ok" and study["total_available_places"] == len(before) + 1 + 5 * (len(units) - 1)
        assert study["status"] != "ACTIVE"  # stopped again once the round's place was filled
