"""Adaptive overlap in a custom campaign on MTurk-sim: min_judgements posted, rounds
of CreateAdditionalAssignmentsForHIT only on uncertain units up to max_judgements, each extension in the
ledger before its call; a kill -9 between the intents and the calls never doubles an extension."""

from __future__ import annotations

import json
import signal
import time
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from bench.answers_accuracy import project
from flows.core.config.config import load_config
from flows.core.errors import BudgetError, ConfigError
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.driver.campaign_status import campaign_status, format_status
from flows.platforms.targets import sim_state_path
from tests.forked_hitflow import ForkServer

ROOT = Path(__file__).resolve().parents[1]
ADAPTIVE = "min_judgements = 2\nmax_judgements = 5\nconfidence = 0.95\n"


# On Prolific: a place pays 0.20 GBP for about a minute's work (above Prolific's hourly floor), budget in GBP
PROLIFIC = '[prolific]\nreward = "0.20"\ncurrency = "GBP"\nestimated_minutes = 1\nmaximum_minutes = 10\n\n'


def adaptive_project(folder: Path, items: int = 30, answers: str = ADAPTIVE, platform: str = "mturk") -> Path:
    """The bench's campaign, small, with the adaptive keys (2 items a unit, 2 batches); priced for ``platform``."""
    config = project(folder, items, adversaries=2, share=0.0)  # the bench's [answers] table gets the adaptive keys
    text = config.read_text().replace("images_per_hit = 10", "images_per_hit = 2").replace("batches = 3",
                                                                                            "batches = 2")
    if platform == "prolific":
        text = text.replace('budget = "100000.00 USD"', 'budget = "100000.00 GBP"').replace("[target]",
                                                                                        PROLIFIC + "[target]")
    config.write_text(text.replace("[answers]\n", "[answers]\n" + answers, 1), encoding="utf-8")
    return config


def extensions(db: Path, operation: str = "CreateAdditionalAssignmentsForHIT") -> pd.DataFrame:
    """The ledger's extension rows (MTurk's calls, or ``ExtendUnit`` on Prolific and links: ``unit`` for ``HITId``)."""
    rows = Store(db).rows("SELECT idem_key, status, params, batch FROM ledger WHERE operation = ?", [operation])
    frame = pd.DataFrame([{**json.loads(r["params"]), "key": r["idem_key"], "status": r["status"], "batch": r["batch"]}
                          for r in rows])
    frame = frame.rename(columns={"unit": "HITId"})
    return frame.reindex(columns=["HITId", "NumberOfAdditionalAssignments", "round", "key", "status", "batch"])


def per_hit(db: Path) -> pd.Series:
    return pd.Series({r["hit_id"]: r["n"] for r in Store(db).rows(
        "SELECT h.hit_id, count(a.assignment_id) AS n FROM hits h LEFT JOIN assignments a ON a.hit_id = h.hit_id "
        "WHERE h.batch > 0 GROUP BY h.hit_id")})


def test_config_posts_min_and_budgets_max(tmp_path: Path) -> None:
    cfg = load_config(adaptive_project(tmp_path))
    assert cfg.assignments_per_image == 2 and cfg.worst_per_item == 5
    assert cfg.answers.adaptive and cfg.answers.fixed_overlap == 5 and cfg.answers.confidence == 0.95
    for bad, says in (("max_judgements = 1", "below min_judgements"), ("max_judgements = 12", "fewer than 10")):
        folder = tmp_path / bad.split()[-1]
        folder.mkdir()
        with pytest.raises(ConfigError, match=says):
            load_config(adaptive_project(folder, answers=ADAPTIVE.replace("max_judgements = 5", bad)))


@pytest.mark.slow
def test_uncertain_units_get_more_up_to_max(tmp_path: Path) -> None:
    config = adaptive_project(tmp_path, items=20)  # the routes' size (tests/test_adaptive_routes.py)
    db = tmp_path / "h.db"
    summary = run_campaign(config, db_path=db, out_root=tmp_path / "runs", progress=lambda _: None)
    assert "held" not in summary and "open" not in summary
    ext = extensions(db)
    counts = per_hit(db)
    assert len(counts) == 10  # 20 items in 2 batches of 10, 2 a HIT: 5 HITs a batch
    assert not ext.empty and set(ext["status"]) == {"ok"}
    assert ext["NumberOfAdditionalAssignments"].eq(1).all()
    assert not ext.duplicated(["HITId", "round"]).any() and ext["key"].is_unique
    # every HIT got min, none more than max, and exactly min + its extensions (no stray work)
    asked = 2 + ext.groupby("HITId").size().reindex(counts.index, fill_value=0)
    assert (counts >= 2).all() and (counts <= 5).all()
    assert counts.to_dict() == asked.to_dict()
    assert 0 < len(ext) < 10 * 3  # some units stopped early: the saving
    out = tmp_path / "runs" / "sentiment"
    answers = pd.read_csv(out / "answers.csv", dtype=str)
    assert len(answers) == 20
    # status and the summary: assignments asked (posted + extensions) against fixed overlap's 5 a HIT
    report = campaign_status(Store(db), "sentiment")[0]
    saving = report["adaptive"]
    assert saving["asked"] == int(counts.sum()) and saving["fixed"] == 10 * 5
    unit = Decimal(saving["fixed_cost"]) / 50
    assert Decimal(saving["saving"]) == unit * (50 - int(counts.sum())) > 0
    assert "adaptive overlap:" in format_status([report])
    assert f"{saving['asked']} assignments asked of fixed overlap's 50" in (out / "summary.txt").read_text()


def test_budget_is_checked_for_max_everywhere(tmp_path: Path) -> None:
    """16 HITs: 2 assignments each fit a budget of 10 USD (0.24 each with the fee: 7.68), 5 do not (19.20)."""
    config = adaptive_project(tmp_path)
    config.write_text(config.read_text().replace('budget = "100000.00 USD"', 'budget = "10.00 USD"'))
    with pytest.raises(BudgetError, match=r"19\.20"):
        run_campaign(config, db_path=tmp_path / "h.db", out_root=tmp_path / "runs", progress=lambda _: None)
    assert not Store(tmp_path / "h.db").table("hits").count


KILL = """
import importlib, os, signal
die = lambda: os.kill(os.getpid(), signal.SIGKILL)
platform, when = {platform!r}, {when!r}
if when == "intents":  # after a round's intents are written, before its platform call
    extend = importlib.import_module(f"flows.platforms.{{platform}}.extend")
    intend = extend.intend_calls
    extend.intend_calls = lambda *args: (intend(*args), die())
else:  # Prolific: the places call went through, its answer never written down
    from flows.platforms.prolific import adapter
    real = adapter.call
    def call(client, method, path, body=None, params=None):
        answer = real(client, method, path, body, params)
        if method == "PATCH" and "total_available_places" in (body or {{}}):
            die()
        return answer
    adapter.call = call
"""


def killed_mid_round(forks: ForkServer, config: Path, db: Path, out: Path, platform: str = "mturk",
                     when: str = "intents", task_url: str = "") -> None:
    """``hitflow run`` of the campaign, forked, killed with SIGKILL in its first extension round (``when``: right
    after the round's ledger intents, or right after its platform call; ``task_url``: a standing task server);
    the child must have died that way."""
    args = ["run", str(config), "--no-prefect", "--db", str(db), "--out", str(out), "--platform", platform]
    proc = forks.run([*args, *(["--task-url", task_url] if task_url else [])], timeout=600, cwd=config.parent,
                     preamble=KILL.format(platform=platform, when=when))
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]


@pytest.mark.slow
def test_kill_between_intent_and_call_never_doubles(tmp_path: Path, hitflow_forks: ForkServer) -> None:
    config = adaptive_project(tmp_path, items=20)
    db, out = tmp_path / "h.db", tmp_path / "runs"
    killed_mid_round(hitflow_forks, config, db, out)
    intended = extensions(db)
    assert not intended.empty and set(intended["status"]) == {"intended"}  # killed after the intents
    assert sim_state_path(db, 1, None).parent.exists()
    run_campaign(config, db_path=db, out_root=out, progress=lambda _: None)
    ext = extensions(db)
    assert set(intended["key"]) <= set(ext["key"]) and set(ext["status"]) == {"ok"}
    counts = per_hit(db)
    asked = 2 + ext.groupby("HITId").size().reindex(counts.index, fill_value=0)
    assert counts.to_dict() == asked.to_dict()  # the platform has exactly what the ledger asked: none doubled
    assert (out / "sentiment" / "answers.csv").is_file()


def test_units_to_extend_by_hand() -> None:
    from postprocess.answers.extension_rounds import units_to_extend

    answers = pd.DataFrame({"item_id": ["a", "b", "c", "d", "e"], "field": "f",
                            "confidence": [0.99, 0.6, 0.99, 0.5, 0.97], "judgements": [2, 2, 1, 3, 2]})
    units = pd.DataFrame({"unit_id": ["h1", "h2", "h3", "h4", "h5", "h6"], "item_id": ["a", "b", "c", "d", "e", "z"],
                          "asked": [2, 2, 2, 5, 2, 2], "received": [2, 2, 2, 5, 1, 2]})
    # b: unsure; c: one usable judgement of min 2; d: unsure but at max; e: sure at 0.95 (and its HIT came
    # back short); z: no usable judgement at all
    assert units_to_extend(answers, units, 0.95, 5, min_judgements=2) == ["h2", "h3", "h6"]
    assert units_to_extend(answers, units, 0.98, 5, min_judgements=1) == ["h2", "h6"]  # e short; c sure at 1


def test_settled_items_get_no_more_judgements() -> None:
    """An item whose answer the judgements it may still get could at best tie stops (stop_settled)."""
    from postprocess.answers.extension_rounds import units_to_extend

    w = 1.5  # how far one more judgement moves the log odds
    answers = pd.DataFrame({"item_id": ["a", "b", "c", "d"], "field": "f", "confidence": 0.8,
                            "judgements": [5, 3, 4, 2], "margin": [1.5, 1.5, 3.0, 0.0], "vote_weight": w})
    units = pd.DataFrame({"unit_id": ["h1", "h2", "h3", "h4"], "item_id": ["a", "b", "c", "d"],
                          "asked": [5, 3, 4, 2], "received": [5, 3, 4, 2]})
    # at max 6: a (one left, a lead of one) and c (two left, a lead of two) could at best tie; b (three
    # left) and d (a tie) could still change
    assert units_to_extend(answers, units, 0.95, 6, 2, stop_settled=True) == ["h2", "h4"]
    assert units_to_extend(answers, units, 0.95, 6, 2, stop_settled=False) == ["h1", "h2", "h3", "h4"]
    assert units_to_extend(answers, units, 0.95, 7, 2, stop_settled=True) == ["h1", "h2", "h3", "h4"]


@pytest.mark.slow
@pytest.mark.prefect
def test_rounds_are_coarse_prefect_tasks(sim, tmp_path: Path, on_prefect_server: str) -> None:
    """Under Prefect each adaptive round is one task (never one per HIT), and late review follows it."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    from flows.driver.campaign_flow import whole_campaign

    # one batch of 10 HITs: its rounds extend 9 and 7 HITs, which one task a round must not become (a second batch
    # only repeated its steps' tasks under Prefect)
    config = adaptive_project(tmp_path, items=20)
    config.write_text(config.read_text(encoding="utf-8").replace("batches = 2", "batches = 1"), encoding="utf-8")
    state = whole_campaign(config_path=str(config), endpoint_url=sim.url, db_path=str(tmp_path / "h.db"),
                            out_root=str(tmp_path / "runs"), return_state=True)
    assert state.is_completed()
    extended = extensions(tmp_path / "h.db")
    assert not extended.empty
    # the batch: one task per round that extended, and the last one that found nothing more to do
    assert set(extended["key"].str.extract(r":b(\d+):")[0]) == {"1"}
    expected = extended["round"].max() + 1
    # Prefect 3 records task runs from the events the run sent, after the flow returns: a loaded host
    # showed 3 of 8 at once, so read until the count stops short of nothing or 60 s pass
    deadline = time.monotonic() + 60
    with get_client(sync_client=True) as client:
        while True:
            names = [t.name.rsplit("-", 1)[0] for t in client.read_task_runs(
                flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[state.state_details.flow_run_id])))]
            rounds = [n for n in names if n.startswith("adaptive round")]
            if len(rounds) >= expected or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    assert len(rounds) == expected
    assert any(n.startswith("late work: run QC") for n in names)
    assert len(rounds) < len(extended) or len(extended) <= 2  # coarse: not one task per extended HIT


@pytest.mark.slow
def test_fast_workers_are_the_rushed_ones_and_every_item_is_scored(tmp_path: Path) -> None:
    """[answers] fast_share: the workers the stopping posterior puts in the fast group are those whose
    typical time is under half the crowd's (the simulator's speeders, never its honest profiles); and the
    bench scores every item by its latent answer, which on MTurk-sim agrees with sim_items.json."""
    from bench.answers_accuracy import every_latent_answer
    from flows.core.run.run_context import Run
    from flows.custom.adaptive_rounds import fast_workers
    from flows.platforms.mturk import adapter as mturk

    config = adaptive_project(tmp_path, items=20, answers=ADAPTIVE + "crowd_prior_weight = 20\nfast_share = 0.5\n")
    db = tmp_path / "h.db"
    run_campaign(config, db_path=db, out_root=tmp_path / "runs", progress=lambda _: None)
    run = Run(load_config(config), Store(db), None, mturk.Target("sim", "http://unused"))  # type: ignore[arg-type]
    out = tmp_path / "runs" / "sentiment"
    profiles = {w["worker_id"]: w["profile"] for w in json.loads((out / "sim_workers.json").read_text())}
    worked = set(pd.read_csv(out / "responses.csv", dtype=str)["worker_id"])
    fast = fast_workers(run, 0.5)
    assert {w for w in worked if profiles[w] == "speeder"} <= fast and fast
    assert not {w for w in fast if profiles[w] in ("diligent", "typo_prone", "slow")}
    assert fast_workers(run, 0.0) == frozenset()
    truth = every_latent_answer(tmp_path)
    seen = pd.DataFrame(json.loads((out / "sim_items.json").read_text()), dtype=str)
    assert len(truth) == 20 and set(seen["item_id"]) <= set(truth["item_id"])
    both = seen.merge(truth, on=["item_id", "field"])
    assert len(both) == len(seen) and (both["answer_x"] == both["answer_y"]).all()
