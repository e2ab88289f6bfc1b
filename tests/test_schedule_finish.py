"""A scheduled campaign says it is finished once its last batch is done: the scheduled run
that advanced the last batch left the campaign "waiting for its next scheduled run ... next: nothing" until a
run one interval later wrote the outputs. The next-batch flow's function is called as the schedule's runner
calls it, its steps run directly (no Prefect server: what it adds is tested in tests/test_schedules.py); and the
``ui`` folds a long overview (seven campaigns made a 10,041 px page)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from flows.cli.main import main
from flows.core.ledger.store import Store
from flows.driver.campaign import call_directly
from flows.driver.campaign_status import campaign_status, format_status
from flows.review.overview_app import FOLD_AFTER, OverviewServer, OverviewSite
from flows.sim.service.server import SimServer
from tests.small_configs import small_vizwiz


def test_the_run_that_ends_the_last_batch_finishes_the_campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from flows.driver import campaign_flow  # here: at the top it made every worker's collection import Prefect (~5 s)

    said: list[str] = []
    monkeypatch.setattr(campaign_flow, "progress_line", said.append)
    monkeypatch.setattr(campaign_flow, "prefect_call", lambda name, fn, run, batch: call_directly(name, fn, run, batch))
    config = small_vizwiz(tmp_path, "sched_end", {"batches = 5": "batches = 2"}, items=10)
    db = tmp_path / "h.db"
    with SimServer(seed=3) as sim:
        first: dict[str, Any] = campaign_flow.next_batch_fn(str(config), endpoint_url=sim.url, db_path=str(db),
                                                            out_root=str(tmp_path / "runs"))
        assert first == {"advanced_batch": 1, "done": False}
        assert "(waiting for its next scheduled run" in format_status(campaign_status(Store(db), "sched_end"))
        last = campaign_flow.next_batch_fn(str(config), endpoint_url=sim.url, db_path=str(db),
                                           out_root=str(tmp_path / "runs"))
    assert last == {"advanced_batch": 2, "done": True}
    assert any(line.startswith("sched_end is done") for line in said), said
    assert main(["status", "sched_end", "--db", str(db)]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("sched_end (done) on MTurk via ") and head.endswith("next: nothing: all batches done")
    assert (tmp_path / "runs" / "sched_end" / "report.html").is_file()


def test_a_long_overview_folds_the_campaigns_that_need_nobody(tmp_path: Path) -> None:
    import httpx

    store = Store(tmp_path / "h.db")
    names = [f"c{k}" for k in range(FOLD_AFTER + 4)]
    for name in names:
        store.table("campaigns").insert({"name": name, "config_path": "", "target": "sim", "created_at": 0.0,
                                         "status": "done", "config_json": json.dumps(
                                             {"batches": 1, "platform": "prolific", "unit_cost": "0.10",
                                              "assignments_per_image": 3})})
        store.set_batch(name, 1, status="blocked")
    with store.transaction():  # one still running (a live process holds it): shown open
        store.db.execute("UPDATE campaigns SET status = 'running' WHERE name = 'c0'")
    site = OverviewSite(db_path=tmp_path / "h.db", out_root=tmp_path / "runs", read_status=campaign_status)
    with store.campaign_lock("c0"), OverviewServer(site) as server, httpx.Client(follow_redirects=True) as web:
        page = web.get(f"{server.url}/?token={site.login_token}").text
    opened = dict(re.findall(r'<details class="campaign" id="campaign-\d+" data-name="(\w+)"( open)?>', page))
    assert set(opened) == set(names) and 'id="folded"' in page
    assert [n for n, o in opened.items() if o] == ["c0"]
    small = OverviewSite(db_path=tmp_path / "h.db", out_root=tmp_path / "runs",
                         read_status=lambda s: campaign_status(s)[:FOLD_AFTER])
    with OverviewServer(small) as server, httpx.Client(follow_redirects=True) as web:
        page = web.get(f"{server.url}/?token={small.login_token}").text
    assert page.count('<details class="campaign"') == FOLD_AFTER and page.count(" open>") >= FOLD_AFTER
