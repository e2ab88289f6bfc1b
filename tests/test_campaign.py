"""The campaign on the simulator: end to end, killed and resumed, and its outputs."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.campaigns.task_pages import task_page
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.batch_publish import publish_batch
from flows.platforms.targets import advance_sim_clock, sim_clock
from flows.platforms.units import hit_groups, hit_token
from flows.sim.service.server import SimServer
from tests.forked_hitflow import ForkServer
from tests.small_configs import extensions

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"


def quiet(_: str) -> None:
    pass


def make_run(sim, db: Path) -> Run:
    target = mturk.Target("sim", sim.url)
    # the platform's clock is the simulator's virtual one, as a real run's (flows/driver/campaign_run.py): with
    # the wall clock, a campaign planned over a second after the simulator started (a loaded host) was "planned
    # after" the HITs a crashed publish had posted, and the resumed publish posted them again
    return Run(load_config(CONFIG), Store(db), mturk.make_client(target), target, quiet,
               lambda s: advance_sim_clock(target, s) and None, page=task_page, clock=sim_clock(target))


def sim_hits(sim) -> list[dict]:
    """Each HIT's fields as posted (the simulator keeps the Question packed: question_xml() is its text)."""
    return [{**h.fields, "Question": h.question_xml()} for h in sim.market.hits.values()]


@dataclass
class DemoRun:
    """The demo on its first 100 images, finished: its summary, ledger, outputs and the HITs it posted."""

    summary: dict
    db: Path
    out: Path
    hits: list[dict]
    market: Any  # the simulator's marketplace as the run left it


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """One run read by the tests below that only read a finished demo's outputs (each made the same
    run before: the simulator of ``sim``, seed 3, 100 images)."""
    root = tmp_path_factory.mktemp("demo-100")
    with SimServer(seed=3) as sim:
        summary = run_campaign(CONFIG, endpoint_url=sim.url, db_path=root / "h.db", out_root=root, limit=100,
                               progress=quiet)
        return DemoRun(summary, root / "h.db", root / "vizwiz_captions", sim_hits(sim), sim.market)


def test_campaign_end_to_end_outputs(demo_run: DemoRun) -> None:
    summary, out = demo_run.summary, demo_run.out
    assert {p.name for p in out.iterdir()} >= {"dataset.json", "dataset.csv", "flags.csv", "blocked_workers.csv",
                                              "report.html", "sim_workers.json"}
    data = json.loads((out / "dataset.json").read_text())
    # the demo tops up images QC left short of five accepted captions ([answers] top_up_rounds): five
    # captions an assignment, 100 posted plus the extensions
    extra = extensions(demo_run.db)
    assert len(data["images"]) == 100 and len(data["annotations"]) == 5 * (100 + extra)
    assert set(data["images"][0]) == {"id", "file_name", "text_detected", "difficulty"}
    assert {i["difficulty"] for i in data["images"]} <= {"easy", "medium", "difficult", "all_canned"}
    assert {"id", "image_id", "caption", "is_precanned", "is_rejected", "worker_id", "assignment_id", "batch",
            "caption_original"} <= set(data["annotations"][0])
    flags = pd.read_csv(out / "flags.csv")
    assert list(flags.columns) == ["worker_id", "rule", "value", "threshold", "assignment_id", "image_id",
                                   "detail", "batch"]
    blocked = pd.read_csv(out / "blocked_workers.csv")
    assert list(blocked.columns) == ["worker_id", "batch", "rules"] and len(blocked) > 0
    flat = pd.read_csv(out / "dataset.csv")
    for row in blocked.itertuples():  # a blocked worker does no later batch
        assert not ((flat["worker_id"] == row.worker_id) & (flat["batch"] > row.batch)).any()
    truth = summary["truth"].set_index("profile")
    assert truth.loc["low_approval", "worked"] == 0
    assert len(demo_run.hits) == 20 and summary["captions"] == 5 * (100 + extra)


def test_the_demo_ships_no_image_short_of_five_captions_unless_it_ran_out_of_rounds(demo_run: DemoRun) -> None:
    """overlap work: images QC left short get more assignments; those still short are named, and the summary
    says how many were topped up and how many ran out of rounds."""
    from flows.campaigns.summary import summarize

    out = demo_run.out
    data = pd.read_csv(out / "dataset.raw.csv", dtype={"image_id": str})
    kept = data[~data["is_rejected"].astype(bool) & data["caption"].fillna("").str.strip().ne("")]
    accepted = kept.groupby("image_id").size().reindex(data["image_id"].unique(), fill_value=0)
    short = pd.read_csv(out / "short_images.csv", dtype={"image_id": str})
    assert set(accepted[accepted < 5].index) == set(short["image_id"])
    topped = pd.read_csv(out / "top_ups.csv", dtype={"image_id": str})
    assert len(topped)  # this seed: batch 1's rejections and blocks leave images short
    said = summarize(out)
    units = len(topped.drop_duplicates(["batch", "hit_id"]))
    assert f"images topped up: {topped['image_id'].nunique()} on {units} HIT(s)" in said
    assert ("after the top-up rounds: none" in said) if short.empty else \
        (f"after the last top-up round: {len(short)} (" in said)


def test_every_assignment_is_decided_and_rule_breakers_rejected(demo_run: DemoRun) -> None:
    store = Store(demo_run.db)
    decisions = store.rows("SELECT d.action, d.applied, a.worker_id FROM decisions d "
                           "JOIN assignments a USING (assignment_id)")
    # 100 posted, and the demo's top-ups of images QC left short: every one decided
    assert len(decisions) == store.table("assignments").count >= 100
    assert all(d["applied"] for d in decisions)
    breakers = {w.worker_id for w in demo_run.market.workers.values() if w.profile == "rule_breaker"}
    rejected = {d["worker_id"] for d in decisions if d["action"] == "reject"}
    assert rejected and rejected <= breakers
    statuses = {a.status for a in demo_run.market.assignments.values() if a.submit_time is not None}
    assert statuses <= {"Approved", "Rejected"}


def test_crash_mid_publish_resumes_without_duplicates(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=100)
    with pytest.raises(RuntimeError, match="simulated crash"):
        publish_batch(run, 1, crash_after=2)
    assert len(sim_hits(sim)) >= 2
    publish_batch(run, 1)
    annotations = [h["RequesterAnnotation"] for h in sim_hits(sim)]
    assert len(annotations) == len(set(annotations)) == len(hit_groups(run, 1))


def test_crash_mid_publish_resumes_without_duplicates_on_a_slow_host(sim, tmp_path: Path) -> None:
    """The same, with the campaign planned two wall seconds after the simulator started (a loaded host): its
    virtual clock has not moved, and the HITs the crashed publish posted are still this ledger's own."""
    time.sleep(2)
    test_crash_mid_publish_resumes_without_duplicates(sim, tmp_path)


def test_the_platform_is_listed_only_after_a_run_that_may_have_posted(sim, tmp_path: Path) -> None:
    """A fresh publish lists no HITs (each listed HIT carries its ~20 KB page: a listing before every
    batch grew memory batch by batch at COCO's size); a publish after a crash lists them once."""
    run = make_run(sim, tmp_path / "h.db")
    listings: list[str] = []
    run.client.meta.events.register("before-call.mturk.ListHITs", lambda **_: listings.append("ListHITs"))
    plan_items(run, limit=100)
    publish_batch(run, 1)
    publish_batch(run, 2)
    assert listings == []
    with pytest.raises(RuntimeError, match="simulated crash"):
        publish_batch(run, 3, crash_after=1)
    publish_batch(run, 3)
    assert len(listings) == 1  # one page: 100 images' HITs fit in MTurk's 100 per page


def test_intended_call_whose_answer_was_lost_is_adopted(sim, tmp_path: Path) -> None:
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=50)
    publish_batch(run, 1)
    # Batch 2: one HIT reached the platform but the process died before recording it.
    index, items = hit_groups(run, 2)[0]
    ids = [i["item_id"] for i in items]
    key = f"vizwiz_captions:b2:h{index}"
    run.store.intend("vizwiz_captions", 2, "CreateHITWithHITType", key, {})
    type_id = json.loads(run.store.ledger_entry("vizwiz_captions:b1:hittype")["result"])["HITTypeId"]
    lost, _ = mturk.create_hit(run.client, type_id, {"MaxAssignments": 5, "LifetimeInSeconds": 86400,
                                                     "RequesterAnnotation": key,
                                                     "Question": sim_hits(sim)[0]["Question"]},
                               hit_token(run.cfg, 2, index, ids))
    before = len(sim_hits(sim))
    publish_batch(run, 2)
    assert run.store.ledger_entry(key)["status"] == "adopted"
    assert json.loads(run.store.ledger_entry(key)["result"])["HITId"] == lost
    assert len(sim_hits(sim)) == before + len(hit_groups(run, 2)) - 1


def test_killed_process_resumes_where_it_stopped(sim, tmp_path: Path, hitflow_forks: ForkServer) -> None:
    """``hitflow run`` forked from the session's fork server (its own process, killed with SIGKILL; the
    project imported once by the server, not ~2 s of CPU again), on the demo's first 50 images: 5 batches
    of 2 HITs, killed once batch 2 has begun posting."""
    db = tmp_path / "h.db"
    proc = hitflow_forks.popen(["run", str(CONFIG), "--no-prefect", "--endpoint-url", sim.url, "--db", str(db),
                                "--out", str(tmp_path), "--limit", "50"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, cwd=ROOT)
    deadline = time.time() + 60
    killed = False
    while time.time() < deadline and proc.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                    done = conn.execute("SELECT count(*) FROM ledger WHERE operation = 'CreateHITWithHITType' "
                                        "AND status = 'ok'").fetchone()[0]
            except sqlite3.Error:  # the file may not have its tables yet
                done = 0
            if done >= 3:  # in batch 2 of 5 (2 HITs each): work done, posted and still to post
                proc.send_signal(signal.SIGKILL)
                killed = True
                break
        time.sleep(0.01)
    ended = proc.wait(timeout=30)
    assert killed and ended == -signal.SIGKILL, f"the campaign finished before it could be killed ({ended})"
    run_campaign(CONFIG, endpoint_url=sim.url, db_path=db, out_root=tmp_path, limit=50, progress=quiet)
    annotations = [h["RequesterAnnotation"] for h in sim_hits(sim)]
    assert len(annotations) == len(set(annotations)) == 10
    store = Store(db)
    extra = extensions(db)  # the demo's top-ups: each extension made once across the kill
    submitted = [a for a in sim.market.assignments.values() if a.submit_time is not None]
    assert store.db["assignments"].count == len(submitted) == 50 + extra
    assert store.db["decisions"].count == 50 + extra
    flat = pd.read_csv(tmp_path / "vizwiz_captions" / "dataset.csv")
    assert len(flat) == 5 * (50 + extra)
