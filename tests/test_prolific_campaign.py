"""The main-job caption campaign through Prolific on the simulator: five studies, the task
server, QC, blocking by participant group, and every submission accounted for."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from flows.core.errors import BudgetError
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.platforms.prolific.adapter import check_hourly_pay
from flows.sim.service.server import SimServer
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
NAME = "vizwiz_captions"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SimServer, Store, Path]]:
    """The demo (its top-ups kept) on 60 images in 3 batches of 4 HITs' worth: blocks after a batch, and
    studies after them that the blocked must stay out of (5 batches of 100 images showed the same)."""
    root = tmp_path_factory.mktemp("prolific")
    config = small_vizwiz(root, items=60, top_ups=True, edits={"batches = 5 ": "batches = 3 "})
    with SimServer(seed=2) as sim:
        run_campaign(config, endpoint_url=sim.url, db_path=root / "h.db", out_root=root,
                     progress=lambda _: None, platform="prolific")
        yield sim, Store(root / "h.db"), root / NAME


def test_a_study_a_batch_completed_with_every_submission_accounted_for(campaign) -> None:
    sim, store, _out = campaign
    studies = store.rows("SELECT study_id, batch FROM studies WHERE campaign = ? ORDER BY batch", [NAME])
    assert [s["batch"] for s in studies] == [1, 2, 3]
    assert {sim.prolific.studies[s["study_id"]]["status"] for s in studies} == {"COMPLETED"}
    on_platform = {k: v["status"] for k, v in sim.prolific.submissions.items()}
    recorded = {r["submission_id"]: r["status"] for r in store.rows("SELECT * FROM platform_submissions")}
    assert recorded == on_platform
    assert set(on_platform.values()) <= {"APPROVED", "REJECTED", "RETURNED", "TIMED-OUT"}
    assert "APPROVED" in on_platform.values()
    for study in studies:  # every place filled by a finished submission
        finished = [s for s in sim.prolific.submissions.values()
                    if s["study_id"] == study["study_id"] and s["status"] in ("APPROVED", "REJECTED")]
        assert len(finished) == sim.prolific.studies[study["study_id"]]["total_available_places"]


def test_unfinished_submissions_are_never_paid_nor_in_the_dataset(campaign) -> None:
    _sim, store, out = campaign
    unpaid = store.rows("SELECT d.assignment_id, d.applied, p.status FROM decisions d JOIN platform_submissions p "
                        "ON p.submission_id = d.assignment_id WHERE p.status IN ('RETURNED', 'TIMED-OUT')")
    assert all(r["applied"].startswith("not paid") for r in unpaid)
    flat = pd.read_csv(out / "dataset.csv")
    late = {r["assignment_id"] for r in unpaid}
    assert (flat[flat["assignment_id"].isin(late)]["is_rejected"] == 1).all()


def test_blocked_participants_stay_out_of_later_studies(campaign) -> None:
    sim, store, _out = campaign
    blocks = store.rows("SELECT worker_id, batch FROM blocks WHERE campaign = ?", [NAME])
    assert blocks
    batch_of = {r["study_id"]: r["batch"] for r in store.rows("SELECT study_id, batch FROM studies")}
    for block in blocks:
        later = [s for s in sim.prolific.submissions.values()
                 if s["participant_id"] == block["worker_id"] and batch_of[s["study_id"]] > block["batch"]]
        assert not later, f"{block['worker_id']} blocked after batch {block['batch']} came back"
    group = next(iter(sim.prolific.groups.values()))
    assert {b["worker_id"] for b in blocks} <= set(group["participants"])
    for study in sim.prolific.studies.values():
        assert {"filter_id": "participant_group_blocklist", "selected_values": [group["id"]]} in study["filters"]


def test_outputs_match_the_mturk_route(campaign) -> None:
    _, _, out = campaign
    assert {p.name for p in out.iterdir()} >= {"dataset.json", "dataset.csv", "flags.csv", "blocked_workers.csv",
                                              "report.html", "sim_workers.json"}
    truth = pd.read_json(out / "sim_workers.json")
    blocked = pd.read_csv(out / "blocked_workers.csv")
    assert set(blocked["worker_id"]) <= set(truth["worker_id"])  # ground truth under Prolific ids


def test_hourly_floor_is_enforced() -> None:
    assert check_hourly_pay(90, 6, "GBP") == 9
    with pytest.raises(BudgetError, match=r"below the minimum of 8\.00 USD/hour"):
        check_hourly_pay(60, 6, "USD")
