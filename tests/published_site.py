"""A task site serving batch 1 of a small VizWiz campaign, planned but posted nowhere: what the
page-telemetry tests (over HTTP and in a browser) send their answers to."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flows.campaigns.campaign_plan import Run, plan_items
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.platforms.mturk import adapter as mturk
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer
from tests.small_configs import small_vizwiz


@contextlib.contextmanager
def published_site(tmp_path: Path, secret: bytes, study_places: int = 0) -> Iterator[dict[str, Any]]:
    """25 images planned, batch 1 marked published (with an active Prolific study of
    ``study_places`` places when given), served by a real task server on a free port."""
    cfg = load_config(small_vizwiz(tmp_path))
    store = Store(tmp_path / "h.db")
    plan_items(Run(cfg, store, None, mturk.Target("sim", "http://unused")), limit=25)
    store.set_batch(cfg.name, 1, status="published")
    if study_places:
        store.table("studies").insert({"study_id": "s" * 24, "campaign": cfg.name, "batch": 1, "status": "ACTIVE",
                                       "places": study_places, "created_at": 0.0}, pk=("campaign", "study_id"))
    site = TaskSite(tmp_path / "h.db", {cfg.name: cfg}, secret=secret)
    with TaskServer(site) as server:
        yield {"url": server.url, "store": store, "cfg": cfg, "site": site, "db": tmp_path / "h.db"}
