"""The early QC work, chaos on the Prolific route: 200 participants at once against the task server, each
sending its submit twice in parallel (a double click, a retried POST). Every response must be
stored exactly once, none lost, and nobody may get a 500."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.core.config.config import load_config
from flows.core.http_clients import http_client
from flows.core.ledger.store import Store
from flows.platforms.mturk import adapter as mturk
from flows.taskserver.task_guard import SessionLimits
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer
from tests.test_task_server import CONFIG, answers_for

STUDY = "c" * 24
PEOPLE = 200


@pytest.fixture
def crowded(tmp_path: Path) -> Iterator[dict[str, Any]]:
    cfg = load_config(CONFIG)
    store = Store(tmp_path / "h.db")
    # 1,000 images in 5 batches: batch 1's 200 images x 5 captions / 5 images a unit = 200 places
    plan_items(Run(cfg, store, None, mturk.Target("sim", "http://unused")), scale=2)
    store.set_batch(cfg.name, 1, status="published")
    store.table("studies").insert({"study_id": STUDY, "campaign": cfg.name, "batch": 1, "status": "ACTIVE",
                                   "places": PEOPLE, "created_at": 0.0}, pk=("campaign", "study_id"))
    # everyone comes from 127.0.0.1 here; the per-address flood limit is tested in test_security_server
    site = TaskSite(store.path, {cfg.name: cfg}, secret=b"k" * 32,
                    limits=SessionLimits(per_participant=6, per_address=10 * PEOPLE))
    with TaskServer(site) as server:
        yield {"url": server.url, "store": store, "name": cfg.name}


def participant(s: dict[str, Any], n: int) -> dict[str, Any]:
    """Open the study page, fill it, and post the same answers twice at once."""
    with http_client(base_url=s["url"], timeout=120, follow_redirects=False) as http:
        page = http.get(f"/task/{s['name']}", params={"PROLIFIC_PID": f"pid{n:03d}", "STUDY_ID": STUDY,
                                                       "SESSION_ID": f"sess{n:03d}"})
        if page.status_code != 200:
            return {"n": n, "page": page.status_code, "submits": []}
        values = answers_for(page.text)

        def post(_: int) -> int:
            with http_client(timeout=120) as c:
                return c.post(f"{s['url']}/task/{s['name']}/submit", data=values).status_code

        with ThreadPoolExecutor(2) as pair:
            codes = list(pair.map(post, range(2)))
        shown = sorted(v for k, v in values.items() if k.startswith("image_id_"))
        return {"n": n, "page": 200, "submits": codes, "items": shown}


def test_two_hundred_participants_with_double_submits_store_every_response_once(
        crowded: dict[str, Any]) -> None:
    with ThreadPoolExecutor(50) as pool:
        results = list(pool.map(lambda n: participant(crowded, n), range(PEOPLE)))
    assert [r for r in results if r["page"] != 200] == []  # 200 places, 200 people: everyone got a unit
    codes = [c for r in results for c in r["submits"]]
    assert 500 not in codes and set(codes) == {303}  # both submits end at the completion redirect
    store = crowded["store"]
    stored = store.rows("SELECT assignment_id, COUNT(*) AS n FROM assignments GROUP BY assignment_id")
    assert len(stored) == PEOPLE and all(r["n"] == 1 for r in stored)  # none lost, none twice
    answers = store.rows("SELECT assignment_id, item_id, COUNT(*) AS n FROM answers WHERE field = 'caption' "
                         "GROUP BY assignment_id, item_id")
    assert all(r["n"] == 1 for r in answers)
    by_session: dict[str, list[str]] = {}
    for r in answers:
        by_session.setdefault(r["assignment_id"], []).append(r["item_id"])
    # each stored response holds exactly the items its participant was shown
    assert {f"sess{r['n']:03d}": r["items"] for r in results} == {k: sorted(v) for k, v in by_session.items()}
    # every caption of every response once (5 images a unit), spread evenly over the batch's items
    per_item = store.rows("SELECT item_id, COUNT(*) AS n FROM answers WHERE field = 'caption' GROUP BY item_id")
    assert sum(r["n"] for r in per_item) == 5 * PEOPLE and len({r["n"] for r in per_item}) == 1
