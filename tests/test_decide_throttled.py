"""Decisions on many threads against a platform that throttles hard: every one is applied, once."""

from __future__ import annotations

from pathlib import Path

from flows.campaigns.batch_review import decide_batch, qc_batch
from flows.campaigns.campaign_plan import Run, plan_items
from flows.campaigns.task_pages import task_page
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.batch_collect import collect_batch
from flows.platforms.mturk.batch_publish import publish_batch
from flows.platforms.targets import sim_clock
from flows.sim.service.pacing import Pacing
from tests.conftest import advance

ROOT = Path(__file__).resolve().parents[1]


def test_sixteen_threads_deciding_against_a_tight_rate_limit_all_get_through(sim, tmp_path: Path) -> None:
    target = mturk.Target("sim", sim.url)
    run = Run(load_config(ROOT / "config" / "vizwiz_captions.toml"), Store(tmp_path / "h.db"),
              mturk.make_client(target), target, lambda _: None, lambda s: advance(sim, s), page=task_page,
              clock=sim_clock(target))
    plan_items(run, limit=150)  # 6 HITs x 5 assignments in batch 1
    for step in (publish_batch, collect_batch, qc_batch):
        step(run, 1)
    sim.httpd.pacing = Pacing(latency_ms=5, rate_per_s=10, burst=1)  # 16 threads want ~3,000 calls/s
    decide_batch(run, 1)
    decided = {a.assignment_id: a.status for a in sim.market.assignments.values()}
    applied = run.store.rows("SELECT assignment_id, applied FROM decisions WHERE batch = 1")
    assert sim.httpd.pacing.throttled > len(applied)  # the limit was really hit, many times
    assert len(applied) == len(decided) == 30 and all(d["applied"] for d in applied)
    assert set(decided.values()) <= {"Approved", "Rejected"}
