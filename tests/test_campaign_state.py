"""One truth in every view: what needs a person, what is decided and when the platform
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
from flows.core.pages.templates import render
from flows.driver.campaign_run import run_campaign
from flows.driver.campaign_status import campaign_status
from flows.driver.operations import open_campaign_run
from flows.review.overview_app import OverviewSite, overview
from flows.review.review_app import FILTERS
from flows.review.review_cards import queue_cards
from flows.sim.service.server import SimServer
from qc.campaign_state import campaign_state, item_states
from tests.review_helpers import review_config, run_until_review
from tests.small_configs import small_vizwiz
from tests.test_cancel_resume import hitflow

NAME = "vizwiz_captions"


def cards_marked_open(page: dict[str, Any]) -> int:
    """The queue page as a person gets it: the cards it marks open (the keys' first stop, its styling)."""
    shown = render("review.html.j2", {**page, "filters": {k: "" for k in FILTERS}, "csrf": "c", "nonce": "n",
                                      "reviewer": "r", "campaign": NAME, "message": "", "categories": [],
                                      "min_reason_chars": 0})
    return shown.count('data-open="1"')


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
            "queue": page["counts"]["open"], "queue_cards": cards_marked_open(page),
            "_status": status, "_cards": page["cards"], "_text": text}


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
    state = campaign_state(items.to_dict("records"), work.to_dict("records"), held.to_dict("records"), now=100.0)
    assert (state["needs_person"], state["open"], state["person"], state["rules"], state["held"]) == (2, 1, 1, 1, 1)
    assert state["undecided"] == 2 and state["auto_approval_in_s"] == 0  # z's time has passed: 0, not -5
    assert state["by_batch"][2]["auto_approval_in_s"] == 0 and state["by_batch"][1]["undecided"] == 0
    assert state["by_batch"][1]["auto_approval_in_s"] is None and state["by_batch"][3]["needs_person"] == 1
    assert item_states(queue, work, "none", now=100.0)["state"].tolist() == ["person", "rules", "rules_next"]


def frame_state(items: pd.DataFrame, work: pd.DataFrame, held: pd.DataFrame, now: float) -> dict[str, Any]:
    """campaign_state as it was computed over DataFrames before it took plain rows: the
    reference the plain-rows version must equal."""
    pending = work[work["applied"].fillna("").astype(str) == ""]
    due = pd.to_numeric(pending["auto_approval_time"], errors="coerce")
    batches = sorted({int(b) for frame in (work, items, held) for b in frame["batch"]})

    def one(scope_items: pd.DataFrame, scope_pending: pd.DataFrame, scope_due: pd.Series, holds: int) -> dict[str, Any]:
        counts = {s: int((scope_items["state"] == s).sum()) for s in ("open", "person", "rules", "rules_next")}
        soonest = scope_due.min() if len(scope_due) else float("nan")
        return {"needs_person": counts["open"] + holds, **counts, "held": holds, "undecided": len(scope_pending),
                "auto_approval_in_s": None if pd.isna(soonest) else round(max(0.0, float(soonest) - now))}

    by_batch = {}
    for b in batches:
        mask = pending["batch"].astype(int) == b
        by_batch[b] = one(items[items["batch"].astype(int) == b], pending[mask], due[mask],
                          int((held["batch"].astype(int) == b).sum()))
    return {**one(items, pending, due, len(held)), "by_batch": by_batch}


@pytest.mark.parametrize("seed", range(20))
def test_the_state_from_plain_rows_equals_the_dataframe_computation(seed: int) -> None:
    """`hitflow status` sums plain ledger rows (no pandas); the sums equal the DataFrame computation's on
    ledgers with unknown or unreadable deadlines (None, NaN, text), decisions not sent ("" or None), past
    deadlines, batches with only decided work, only queue items or only a hold."""
    import random

    rng = random.Random(seed)
    work = [{"assignment_id": f"a{k}", "batch": rng.randint(1, 4),
             "auto_approval_time": rng.choice([None, float("nan"), "soon", 50.0, 100.0 + k, 90]),
             "applied": rng.choice(["", None, float("nan"), "Approved", "Rejected", "self-hosted"])}
            for k in range(rng.randint(0, 30))]
    items = [{"batch": rng.randint(1, 6), "state": rng.choice(["open", "person", "rules", "rules_next"])}
             for _ in range(rng.randint(0, 12))]
    held = [{"batch": rng.randint(1, 7), "why": "a rule on most workers"} for _ in range(rng.randint(0, 2))]
    frames = [pd.DataFrame(rows, columns=list(columns)) for rows, columns in
              ((items, ("batch", "state")), (work, ("assignment_id", "batch", "auto_approval_time", "applied")),
               (held, ("batch", "why")))]
    assert campaign_state(items, work, held, now=100.0) == frame_state(*frames, now=100.0)


@pytest.mark.parametrize(("policy", "mode"), [("", "none"), ('review = "none"\n', "none"),
                                              ('review = "flagged"\n', "flagged"), ('review = "sample"\n', "sample"),
                                              ('review = "flagged"\nreview_deadline_s = -5\n', "none")])
def test_the_review_mode_is_the_loaded_config_s(tmp_path: Path, policy: str, mode: str) -> None:
    """`hitflow status` reads "none" from the config's TOML without loading it; any other mode, and a config
    that no longer loads (a negative deadline: "none", nothing to wait for), are load_config's word."""
    from flows.campaigns.review_rows import review_settings
    from flows.core.config.config import load_config
    from flows.core.errors import HitflowError

    config = small_vizwiz(tmp_path, items=3, edits={"[policy]\n": "[policy]\n" + policy})
    store = Store(tmp_path / "h.db")
    store.table("campaigns").insert({"name": NAME, "config_path": str(config), "config_json": "{}", "target": "sim",
                                     "created_at": 0.0, "status": "done"})
    try:
        loaded = load_config(config).review
    except HitflowError:
        loaded = "none"
    cfg, said = review_settings(store, NAME)
    assert said == loaded == mode and (cfg is None) == (mode == "none")
