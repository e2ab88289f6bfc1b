"""What `hitflow status` and `hitflow ui` say of a campaign, as a user reads it: a scheduled
campaign between two runs is waiting for its next run, not "(stopped)"; a finished batch reads "done", not
its last step's name ("blocked")."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from flows.core.ledger.store import Store
from flows.driver.campaign_status import campaign_status, format_status
from flows.driver.schedule_wait import note_scheduled_run
from flows.review.overview_app import OverviewSite, overview


def ledger(tmp_path: Path, name: str = "c") -> Store:
    """A campaign whose run is not alive (no process holds its lock), batch 1 finished, batch 2 not started."""
    store = Store(tmp_path / "h.db")
    store.table("campaigns").insert({"name": name, "config_path": "", "target": "sim", "created_at": 0.0,
                                     "status": "running", "config_json": json.dumps(
                                         {"batches": 2, "platform": "mturk", "unit_cost": "0.10",
                                          "assignments_per_image": 3})})
    store.set_batch(name, 1, status="blocked")
    return store


def first_line(store: Store) -> str:
    return format_status(campaign_status(store, "c")).splitlines()[0]


def test_a_killed_run_without_a_schedule_still_reads_stopped(tmp_path: Path) -> None:
    store = ledger(tmp_path)
    assert first_line(store).startswith("c (stopped) on MTurk via sim")


def test_a_scheduled_campaign_between_runs_says_when_its_next_run_comes(tmp_path: Path) -> None:
    store = ledger(tmp_path)
    started = time.time() - 60
    note_scheduled_run(store, "c", 3600, "", now=started)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started + 3600))
    report = campaign_status(store, "c")
    assert report[0]["status"] == "scheduled"  # what --json carries
    assert first_line(store).startswith(
        f"c (waiting for its next scheduled run, about {when} (every 3600 s)) on MTurk via sim")
    site = OverviewSite(db_path=tmp_path / "h.db", out_root=str(tmp_path / "out"), read_status=campaign_status)
    shown = overview(site)[0]
    assert shown["status_words"] == report[0]["status_words"] and "(stopped)" not in shown["status_words"]


def test_a_late_or_cron_schedule_is_said_as_such(tmp_path: Path) -> None:
    store = ledger(tmp_path)
    note_scheduled_run(store, "c", 600, "", now=time.time() - 7200)
    assert "and not started: is `hitflow serve-schedules`" in first_line(store)
    note_scheduled_run(store, "c", 0, "0 2 * * *")  # the latest note counts
    assert first_line(store).startswith("c (waiting for its next scheduled run (cron 0 2 * * *)) on MTurk via sim")


def test_a_finished_batch_reads_done_in_status_and_the_ui(tmp_path: Path) -> None:
    store = ledger(tmp_path)
    lines = format_status(campaign_status(store, "c")).splitlines()
    assert [line.split(";")[0] for line in lines if line.startswith("  batch ")] == [
        "  batch 1: done", "  batch 2: planned (next: publish batch)"]
    site = OverviewSite(db_path=tmp_path / "h.db", out_root=str(tmp_path / "out"), read_status=campaign_status)
    assert [b["status"] for b in overview(site)[0]["batches"]] == ["done", "planned"]
    assert [b["status"] for b in campaign_status(store, "c")[0]["batches"]] == ["blocked", "planned"]  # the JSON's


def test_a_batch_stopped_after_qc_is_said_in_words_in_status_and_the_ui(tmp_path: Path) -> None:
    """A batch held after QC read "qc_done (next: wait for review)": the stored name, not words."""
    store = ledger(tmp_path)
    store.set_batch("c", 2, status="qc_done")
    lines = [line for line in format_status(campaign_status(store, "c")).splitlines() if line.startswith("  batch 2")]
    assert lines[0].startswith("  batch 2: checked by QC (next: wait for review)") and "qc_done" not in lines[0]
    site = OverviewSite(db_path=tmp_path / "h.db", out_root=str(tmp_path / "out"), read_status=campaign_status)
    assert [b["status"] for b in overview(site)[0]["batches"]] == ["done", "checked by QC"]
    assert campaign_status(store, "c")[0]["batches"][1]["status"] == "qc_done"  # the JSON keeps the stored name


def test_a_row_naming_a_platform_this_hitflow_does_not_know_is_shown_not_a_500(tmp_path: Path) -> None:
    """One campaign's row naming an unknown platform (a newer hitflow's, an edited ledger) made `hitflow ui`
    answer HTTP 500 for every campaign; now each view shows it under that name, with nothing paid."""
    import httpx

    from flows.review.overview_app import OverviewServer

    store = ledger(tmp_path)
    store.table("campaigns").insert({"name": "odd", "config_path": "", "target": "sim", "created_at": 0.0,
                                     "status": "running", "config_json": json.dumps(
                                         {"batches": 1, "platform": "<b>nosuch\x1b[2J", "unit_cost": "0.10"})})
    lines = format_status(campaign_status(store)).splitlines()
    assert any(line.startswith("odd (stopped) on unknown platform '<b>nosuch") for line in lines)
    assert not any("\x1b" in line for line in lines)
    site = OverviewSite(db_path=tmp_path / "h.db", out_root=str(tmp_path / "out"), read_status=campaign_status)
    with OverviewServer(site) as server, httpx.Client(follow_redirects=True, timeout=30) as browser:
        page = browser.get(f"{server.url}/?token={site.login_token}")
        listing = browser.get(f"{server.url}/status.json")
    assert page.status_code == 200 and "unknown platform" in page.text and "<b>nosuch" not in page.text
    assert listing.status_code == 200 and [c["name"] for c in listing.json()] == ["c", "odd"]


def test_status_takes_the_config_file_run_was_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.main import main

    ledger(tmp_path, "vizwiz_captions")
    config = str(Path(__file__).parents[1] / "config" / "vizwiz_captions.toml")
    assert main(["status", config, "--db", str(tmp_path / "h.db")]) == 0
    assert capsys.readouterr().out.startswith("vizwiz_captions (stopped)")
    with pytest.raises(SystemExit) as refused:
        main(["status", str(tmp_path / "missing.toml"), "--db", str(tmp_path / "h.db")])
    assert refused.value.code == 2 and "no config file" in capsys.readouterr().err
