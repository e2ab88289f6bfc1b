"""One truth in every view (issue 57 point 2): what needs a person, what is decided and when the platform
pays by itself are computed once (qc/campaign_state.py over the ledger, flows/campaigns/review_data.ledger_state)
and the run's lines, ``hitflow status`` (text and JSON), the report, the ``ui`` overview and the review
queue all show that.

Found by hand on one ledger: the run printed "7 for review" per batch; status "7 for manual review" and
"review: 0 item(s) open"; the report "Needs a person: nothing now"; the overview "review queue (nothing
open)"; the queue page "34 open of 34", its first card "1d 6h before auto-approval" on work already
approved; and status on a stopped simulator campaign "auto-approval in -7714.3 h" (the simulator's clock
subtracted from today's date)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.campaigns.report_summary import needs_a_person
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.driver.campaign_status import campaign_status
from flows.driver.operations import open_campaign_run
from flows.review.overview_app import OverviewSite, overview
from flows.review.review_cards import queue_cards
from flows.sim.service.server import SimServer
from qc.campaign_state import campaign_state, item_states
from tests.review_helpers import review_config, run_until_review
from tests.small_configs import small_vizwiz
from tests.test_cancel_resume import hitflow

NAME = "vizwiz_captions"


def five_views(db: Path, capsys: pytest.CaptureFixture[str], endpoint: str = "") -> dict[str, Any]:
    """What each view says needs a person now (the run's own line is the caller's)."""
    capsys.readouterr()
    assert hitflow("status", NAME, "--db", str(db), "--json") == 0
    status = json.loads(capsys.readouterr().out)[0]
    assert hitflow("status", NAME, "--db", str(db)) == 0
    text = capsys.readouterr().out
    report = needs_a_person(Store(db), NAME, None)
    shown = overview(OverviewSite(db_path=db, out_root=db.parent / "runs", read_status=campaign_status))[0]
    with open_campaign_run(str(db), NAME, endpoint, progress=lambda _: None) as run:
        page = queue_cards(run, "flagged", {})
    opened = [n for n in report if "review item(s) open" in n["what"]]
    return {"status_json": status["needs"]["needs_person"], "status_review": status["review"]["open"],
            "status_batches": sum(b["for_review"] for b in status["batches"]),
            "status_text": int(re.search(r"needs a person: (\d+)", text)[1]),  # type: ignore[index]
            "report": int(opened[0]["what"].split()[0]) if opened else 0, "ui": shown["review_open"],
            "queue": page["counts"]["open"], "_status": status, "_cards": page["cards"], "_text": text}


def test_a_batch_waiting_for_a_person_is_counted_alike_in_every_view(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    with SimServer(seed=5) as sim:
        stopped = run_until_review(review_config(tmp_path), sim.url, tmp_path / "h.db", tmp_path)
        views = five_views(tmp_path / "h.db", capsys, sim.url)
    said = int(re.search(r"\((\d+) item\(s\) open\)", stopped)[1])  # type: ignore[index]  # the run's own line
    # independently of the views: nothing is decided yet, so every queue item of the waiting batch is open
    store = Store(tmp_path / "h.db")
    assert store.table("decisions").count_where("campaign = ?", [NAME]) == 0
    figures = {k: v for k, v in views.items() if not k.startswith("_")}
    assert said > 0 and set(figures.values()) == {said}, (said, figures)
    assert all(c["state"] == "open" and "before auto-approval" in c["time_left"] for c in views["_cards"])
    batch = views["_status"]["batches"][0]
    assert batch["auto_approval_in_s"] is not None and batch["auto_approval_in_s"] > 0


def test_a_finished_campaign_needs_nobody_and_its_deadlines_are_on_the_platform_s_clock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The demo's review rules pick assignments for a look (random_sample...), but with review = "none" the
    rules decide them and the platform is told: nothing is left for a person, and no card counts down."""
    monkeypatch.chdir(tmp_path)
    config, db = small_vizwiz(tmp_path, items=5), tmp_path / "h.db"
    lines: list[str] = []
    run_campaign(config, db_path=db, out_root=tmp_path / "runs", progress=lines.append)
    decided = [line for line in lines if ": decisions: " in line]
    assert decided and all(line.endswith('needs a person: 0 (review = "none": the rules decide)') for line in decided)
    views = five_views(db, capsys)
    figures = {k: v for k, v in views.items() if not k.startswith("_")}
    assert set(figures.values()) == {0}, figures
    assert views["_cards"] and all(c["state"] == "rules" and "auto-approval" not in c["time_left"]
                                   for c in views["_cards"])  # sampled and flagged work, decided by the rules
    assert "auto-approval in" not in views["_text"] and "-" not in str([b["auto_approval_in_s"] for b in
                                                                      views["_status"]["batches"]])
    # the simulator's clock, not today's: the ledger's latest time of it is the campaign's "now"
    last = Store(db).rows("SELECT max(submit_time) AS t FROM assignments")[0]["t"]
    assert views["_status"]["platform_now"] >= last and views["_status"]["platform_now"] < last + 30 * 86400


def test_the_state_by_hand() -> None:
    """Two assignments sampled for review, one decided by a person, one by the rules (sent), one open;
    a held batch; an auto-approval time already past counts as 0 s, never negative."""
    queue = pd.DataFrame([
        {"item": "a:x", "kind": "assignment", "batch": 1, "worker_id": "w1", "assignment_id": "x", "why": "sampled",
         "rules": "", "auto_action": "approve", "decided": "reject", "seconds_left": 5.0},
        {"item": "a:y", "kind": "assignment", "batch": 1, "worker_id": "w2", "assignment_id": "y", "why": "sampled",
         "rules": "", "auto_action": "approve", "decided": "", "seconds_left": 5.0},
        {"item": "a:z", "kind": "assignment", "batch": 2, "worker_id": "w3", "assignment_id": "z", "why": "flagged",
         "rules": "time_outlier", "auto_action": "approve", "decided": "", "seconds_left": -5.0}])
    work = pd.DataFrame({"assignment_id": ["x", "y", "z", "q"], "batch": [1, 1, 2, 2],
                         "auto_approval_time": [110.0, 110.0, 95.0, 400.0],
                         "applied": ["Rejected", "Approved", "", ""]})
    held = pd.DataFrame({"batch": [3], "why": ["rule x on 60% of workers"]})
    items = item_states(queue, work, "flagged", now=100.0)
    assert items["state"].tolist() == ["person", "rules", "open"]
    assert items["seconds_left"].iloc[2] == 0.0 and math.isnan(items["seconds_left"].iloc[0])
    state = campaign_state(items, work, held, now=100.0)
    assert (state["needs_person"], state["open"], state["person"], state["rules"], state["held"]) == (2, 1, 1, 1, 1)
    assert state["undecided"] == 2 and state["auto_approval_in_s"] == 0  # z's time has passed: 0, not -5
    assert state["by_batch"][2]["auto_approval_in_s"] == 0 and state["by_batch"][1]["undecided"] == 0
    assert state["by_batch"][1]["auto_approval_in_s"] is None and state["by_batch"][3]["needs_person"] == 1
    assert item_states(queue, work, "none", now=100.0)["state"].tolist() == ["person", "rules", "rules_next"]
