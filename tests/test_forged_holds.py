"""Issue 55 point 4: forged PROLIFIC_PIDs from one address cannot hold every unit. Under adaptive
overlap a unit held by ``max_judgements`` sessions is handed to nobody else, so forged sessions that
never submit once told real newcomers "no work left" until their holds lapsed. Now one address holds
at most ``holds_per_address`` units unsubmitted at once; submitting frees the address's count.

In-process through Starlette's TestClient, one client per address (its ``client`` argument)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from flows.campaigns.campaign_plan import Run, plan_items
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.platforms.mturk import adapter as mturk
from flows.taskserver.task_guard import SessionLimits
from flows.taskserver.task_server import TaskSite, make_app
from tests.test_task_server import CONFIG, answers_for

STUDY = "s" * 24
CAP = 3


@pytest.fixture
def site(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """2 units of 5 items; adaptive overlap: a unit is handed to at most 5 holders (max_judgements)."""
    base = load_config(CONFIG)
    cfg = dataclasses.replace(base, answers=dataclasses.replace(base.answers, min_judgements=5,
                                                                  max_judgements=5))
    store = Store(tmp_path / "h.db")
    plan_items(Run(cfg, store, None, mturk.Target("sim", "http://unused")), limit=50)
    store.set_batch(cfg.name, 1, status="published")
    store.table("studies").insert({"study_id": STUDY, "campaign": cfg.name, "batch": 1, "status": "ACTIVE",
                                   "places": 10, "created_at": 0.0}, pk="study_id")
    task_site = TaskSite(store.path, {cfg.name: cfg}, secret=b"f" * 32,
                         limits=SessionLimits(per_participant=10**6, per_address=10**6, holds_per_address=CAP))
    app = make_app(task_site)
    clients = {a: TestClient(app, follow_redirects=False, client=(a, 40000)) for a in
               ("203.0.113.9", "198.51.100.7", *(f"192.0.2.{n}" for n in range(1, 11)))}
    yield {"cfg": cfg, "store": store, "clients": clients}
    for client in clients.values():
        client.close()


def visit(s: dict[str, Any], address: str, pid: str) -> Any:
    return s["clients"][address].get(f"/task/{s['cfg'].name}", params={
        "PROLIFIC_PID": pid, "STUDY_ID": STUDY, "SESSION_ID": f"sess-{pid}"})


def test_forged_ids_from_one_address_leave_the_units_to_real_participants(site: dict[str, Any]) -> None:
    forged = [visit(site, "203.0.113.9", f"forged{n:02d}").status_code for n in range(20)]
    assert forged.count(200) == CAP and set(forged[CAP:]) == {429}  # the rest refused, holding nothing
    held = site["store"].rows("SELECT COUNT(*) AS n FROM task_sessions")[0]["n"]
    assert held == CAP
    real = [visit(site, f"192.0.2.{n}", f"real{n:02d}") for n in range(1, 8)]  # one person per address
    assert [r.status_code for r in real] == [200] * 7  # the 10 places less the forger's 3
    assert visit(site, "192.0.2.8", "real08").status_code == 409  # now every unit is at max_judgements


def test_an_address_that_submits_may_take_more(site: dict[str, Any]) -> None:
    """A household or lab behind one address: each person who submits frees the address's count."""
    client = site["clients"]["198.51.100.7"]
    for n in range(CAP + 2):
        page = visit(site, "198.51.100.7", f"lab{n:02d}")
        assert page.status_code == 200, n
        done = client.post(f"/task/{site['cfg'].name}/submit", data=answers_for(page.text))
        assert done.status_code == 303
    assert site["store"].rows("SELECT COUNT(*) AS n FROM task_sessions WHERE submitted_at IS NOT NULL")[0]["n"] == 5
