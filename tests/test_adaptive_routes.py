"""Adaptive overlap on Prolific-sim and invite links: the same campaign as the MTurk tests
(tests/test_adaptive_campaign.py, whose helpers these reuse), posted with min_judgements; each round's
``ExtendUnit`` rows (and on Prolific one ``IncreasePlaces`` call with the study's new total) are in the
ledger before anything happens, and the task server hands the added work to the uncertain units only.
A kill -9 between a round's intents and its collection (and, on Prolific, right after the places call)
then a resume: no extension doubled, no judgement lost."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pandas as pd
import pytest

from flows.core.config.config import load_config
from flows.core.errors import BudgetError
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.platforms.prolific.statuses import FINISHED
from flows.taskserver.task_server import TaskSite
from flows.taskserver.task_server_thread import TaskServer
from tests.forked_hitflow import ForkServer
from tests.test_adaptive_campaign import adaptive_project, extensions, killed_mid_round

UNPAID = ("RETURNED", "TIMED-OUT", "SCREENED OUT", "NOT ON PROLIFIC")  # stored, but Prolific freed the place


def per_unit(db: Path) -> pd.Series:
    """Finished work per (batch, unit id) as the task server stored it."""
    rows = Store(db).rows("SELECT batch, hit_id, count(*) AS n FROM assignments WHERE batch > 0 AND status NOT IN "
                          f"({','.join('?' * len(UNPAID))}) GROUP BY batch, hit_id", list(UNPAID))
    return pd.Series({(int(r["batch"]), r["hit_id"]): int(r["n"]) for r in rows}, dtype=int)


def asked(db: Path, counts: pd.Series) -> pd.Series:
    """min_judgements (2) plus the ledger's extensions, per unit."""
    ext = extensions(db, "ExtendUnit")
    extra = ext.groupby(["batch", "HITId"])["NumberOfAdditionalAssignments"].sum()
    return 2 + extra.reindex(counts.index, fill_value=0).astype(int)


def check_campaign(db: Path, out: Path, platform: str) -> pd.DataFrame:
    """Every unit got exactly min + its extensions (none doubled, none unasked, none lost), within max."""
    ext = extensions(db, "ExtendUnit")
    assert not ext.empty and set(ext["status"]) == {"ok"} and ext["key"].is_unique
    assert not ext.duplicated(["batch", "HITId", "round"]).any()
    counts = per_unit(db)
    assert len(counts) == 10 and (counts <= 5).all()  # 20 items, 2 a unit, 2 batches
    wanted = asked(db, counts)
    if platform == "prolific":  # Prolific fills every place it was given: nothing doubled, nothing lost
        check_prolific_places_filled(db, counts, wanted)
    else:  # links: a unit is short only by invitees blocked before its batch (their links open nothing more)
        assert (counts <= wanted).all()  # no unit got a judgement no round asked for: nothing doubled
        short = (wanted - counts).groupby(level=0).sum()
        blocked = {b: Store(db).table("blocks").count_where("batch < ?", [b]) for b in short.index}
        assert all(short[b] <= blocked[b] for b in short.index), (short, blocked)
    assert len(pd.read_csv(out / "sentiment" / "answers.csv", dtype=str)) == 20
    store = Store(db)
    undecided = store.rows("SELECT count(*) AS n FROM assignments a WHERE batch > 0 AND NOT EXISTS "
                           "(SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)")
    assert undecided[0]["n"] == 0  # every judgement that came in was reviewed: none lost to the kill
    if platform == "prolific":
        check_places(store, ext)
    return ext


def check_prolific_places_filled(db: Path, counts: pd.Series, wanted: pd.Series) -> None:
    """Each batch's paid work is exactly what its rounds asked. A place Prolific frees (a submission it
    timed out although its answer reached the task server) is taken by whoever comes next, before the run
    learns which unit lost its work: the task server guesses from the run's last look (task_units.replaced_unit).
    When that look cannot tell the lost holder from the others (here a round's people start together and the
    last look before the time-out saw none of them finish) the guess can miss: then one unit holds one more
    than asked and the one that lost its work one less, never more such swaps in a batch than it has unpaid
    submissions."""
    assert counts.groupby(level=0).sum().to_dict() == wanted.groupby(level=0).sum().to_dict()
    over = (counts - wanted).clip(lower=0).groupby(level=0).sum()
    unpaid = {int(r["batch"]): int(r["n"]) for r in Store(db).rows(
        f"SELECT batch, count(*) AS n FROM assignments WHERE batch > 0 AND status IN ({','.join('?' * len(UNPAID))}) "
        "GROUP BY batch", list(UNPAID))}
    assert all(over[b] <= unpaid.get(b, 0) for b in over.index), (over.to_dict(), unpaid)


def check_places(store: Store, ext: pd.DataFrame) -> None:
    """Prolific's own record: each study was given its published places plus one per extension, once, and
    that many participants finished it, each with a stored response."""
    rounds = [{**json.loads(r["params"]), "batch": r["batch"], "status": r["status"]}
              for r in store.rows("SELECT batch, params, status FROM ledger WHERE operation = 'IncreasePlaces'")]
    places = pd.DataFrame(rounds)
    assert set(places["status"]) <= {"ok", "adopted"} and not places.duplicated(["batch", "round"]).any()
    added = ext.groupby(["batch", "round"]).size()
    assert places.set_index(["batch", "round"])["added"].sort_index().to_dict() == added.sort_index().to_dict()
    for batch, group in places.groupby("batch"):
        subs = store.rows("SELECT status, has_response FROM platform_submissions WHERE batch = ?", [int(batch)])
        finished = [s for s in subs if s["status"] in FINISHED]
        assert len(finished) == int(group["total_available_places"].max()) == 10 + int(group["added"].sum())
        assert all(s["has_response"] for s in finished)


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["prolific", "links"])
def test_uncertain_units_get_more_on_each_route(tmp_path: Path, platform: str) -> None:
    config = adaptive_project(tmp_path, items=20, platform=platform)
    db, out = tmp_path / "h.db", tmp_path / "runs"
    summary = run_campaign(config, db_path=db, out_root=out, platform=platform, progress=lambda _: None)
    ext = check_campaign(db, out, platform)
    assert 0 < len(ext) < 10 * 3  # some units stopped at min: the saving
    saving = summary["adaptive"]
    assert saving["asked"] == 20 + int(ext["NumberOfAdditionalAssignments"].sum()) and saving["fixed"] == 50


@contextlib.contextmanager
def standing_task_server(config: Path, db: Path, platform: str) -> Iterator[str]:
    """Prolific: a task server that outlives the killed run (as `hitflow serve` does), since a published
    study's link cannot change; links: none, a resumed run signs its invitees' links for its own."""
    if platform != "prolific":
        yield ""
        return
    cfg = load_config(config)
    Store(db)  # the ledger, and so its task secret, exists before the server reads it
    with TaskServer(TaskSite(db, {cfg.name: cfg}, cfg.prolific.completion_base)) as server:
        yield server.url


@pytest.mark.slow
@pytest.mark.parametrize("platform,when", [("prolific", "intents"), ("prolific", "call"), ("links", "intents")])
def test_kill_mid_round_then_resume_never_doubles_or_loses(tmp_path: Path, platform: str, when: str,
                                                           hitflow_forks: ForkServer) -> None:
    config = adaptive_project(tmp_path, items=20, platform=platform)
    db, out = tmp_path / "h.db", tmp_path / "runs"
    with standing_task_server(config, db, platform) as task_url:
        killed_mid_round(hitflow_forks, config, db, out, platform, when, task_url)
        intended = extensions(db, "ExtendUnit")
        assert not intended.empty and set(intended["status"]) == {"intended"}  # killed inside the first round
        places = Store(db).rows("SELECT status FROM ledger WHERE operation = 'IncreasePlaces'")
        assert [p["status"] for p in places] == (["intended"] if platform == "prolific" else [])
        run_campaign(config, db_path=db, out_root=out, platform=platform, task_url=task_url, progress=lambda _: None)
    ext = check_campaign(db, out, platform)
    assert set(intended["key"]) <= set(ext["key"])  # the resumed run finished the killed round, not a new plan
    if when == "call":  # Prolific had the new total: the resumed run read it back instead of adding again
        first = Store(db).rows("SELECT status FROM ledger WHERE operation = 'IncreasePlaces' ORDER BY id LIMIT 1")
        assert first[0]["status"] == "adopted"


def test_prolific_budget_is_checked_for_max_everywhere(tmp_path: Path) -> None:
    """16 units: 2 places each fit 15 GBP (32 places at 0.27, the 0.20 reward plus Prolific's third: 8.64),
    5 each do not (80 places: 21.60)."""
    config = adaptive_project(tmp_path, platform="prolific")
    config.write_text(config.read_text().replace('budget = "100000.00 GBP"', 'budget = "15.00 GBP"'))
    with pytest.raises(BudgetError, match=r"estimate 21\.60 GBP"):
        run_campaign(config, db_path=tmp_path / "h.db", out_root=tmp_path / "runs", platform="prolific",
                     progress=lambda _: None)
    assert not Store(tmp_path / "h.db").table("studies").count  # refused before any study was made


def test_the_prolific_simulator_takes_more_places_only_upwards_and_reopens_a_stopped_study() -> None:
    """Prolific's rules for a published study as the simulator keeps them (researcher help, "Increase places";
    the API takes the new total): only more places, nothing else changed, and a stopped study is active again."""
    from flows.sim.prolific.prolific_state import ProlificError
    from flows.sim.service.server import SimServer
    from tests.test_sim_state import AUTH, STUDY

    with SimServer(seed=5) as sim:
        made = httpx.post(f"{sim.url}/api/v1/studies/", json=STUDY, headers=AUTH).json()
        state = sim.prolific
        with state.lock:  # no HTTP once it is published: its participants would open the study's (outside) URL
            state.transition_study(made["id"], "PUBLISH")
            state.transition_study(made["id"], "STOP")
            assert state.study(made["id"])["status"] == "COMPLETED"  # stopped with nothing left to review
            for refused in ({"total_available_places": 3}, {"total_available_places": 2},
                            {"total_available_places": 5, "reward": 120}):
                with pytest.raises(ProlificError, match="Invalid study update"):
                    state.update_study(made["id"], refused)
            reopened = state.update_study(made["id"], {"total_available_places": 5})
            assert reopened["status"] == "ACTIVE" and reopened["total_available_places"] == 5
